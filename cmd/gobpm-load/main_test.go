package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// serverBinary builds cmd/gobpm-web into a temp dir, or returns
// $GOBPM_LOAD_SERVER when set (a prebuilt server, e.g. while the tree does
// not compile).
func serverBinary(t *testing.T) string {
	t.Helper()
	if bin := os.Getenv("GOBPM_LOAD_SERVER"); bin != "" {
		return bin
	}
	bin := filepath.Join(t.TempDir(), "gobpm-web")
	out, err := exec.Command("go", "build", "-o", bin, "../gobpm-web").CombinedOutput()
	if err != nil {
		t.Fatalf("build the server: %v\n%s", err, out)
	}
	return bin
}

// tiny is a configuration that runs every scenario in a few seconds.
func tiny(t *testing.T, args ...string) Config {
	t.Helper()
	base := []string{"-duration", "1s", "-concurrency", "4", "-workers", "2", "-batch", "4",
		"-mi-size", "40", "-sample", "10", "-waiting", "60", "-stored", "300", "-reps", "2", "-quiet"}
	cfg, err := ParseConfig(append(base, args...), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// assertSane checks counts and consistency, never speeds.
func assertSane(t *testing.T, rep *Report) {
	t.Helper()
	for _, r := range rep.Scenarios {
		if r.Errors > 0 {
			t.Errorf("%s: %d requests failed: %v", r.Scenario, r.Errors, r.ErrorSamples)
		}
		for _, c := range r.Checks {
			if !c.OK {
				t.Errorf("%s: check %q: want %s, got %s", r.Scenario, c.Name, c.Want, c.Got)
			}
		}
		for _, p := range r.Phases {
			if p.Started == 0 || p.Completed == 0 || p.InWindow > p.Completed || p.Latency.N == 0 {
				t.Errorf("%s: phase %q: %+v", r.Scenario, p.Name, p)
			}
			if p.Latency.P50Ms > p.Latency.P99Ms || p.Latency.P99Ms > p.Latency.MaxMs {
				t.Errorf("%s: phase %q: percentiles out of order: %+v", r.Scenario, p.Name, p.Latency)
			}
		}
	}
}

func scenario(t *testing.T, rep *Report, name string) *Result {
	t.Helper()
	for _, r := range rep.Scenarios {
		if r.Scenario == name {
			return r
		}
	}
	t.Fatalf("no %s scenario in the report", name)
	return nil
}

// TestEndToEnd spawns the real server and runs every scenario for about a
// second with tiny sizes.
func TestEndToEnd(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs the server binary")
	}
	bin := serverBinary(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	rep, err := Run(ctx, tiny(t, "-spawn", "-server", bin), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Scenarios) != len(allScenarios) {
		t.Fatalf("%d scenarios reported, want %d", len(rep.Scenarios), len(allScenarios))
	}
	assertSane(t, rep)

	for _, name := range []string{"straight", "job"} {
		if r := scenario(t, rep, name); len(r.Phases) != 2 || r.Phases[1].TargetRate <= 0 {
			t.Errorf("%s: want a closed and a half-rate phase: %+v", name, r.Phases)
		}
	}
	mi := scenario(t, rep, "mi")
	if len(mi.Timings) != 8 || len(mi.Ratios) == 0 || mi.Ratios[0].Value <= 0 {
		t.Errorf("mi: timings %+v ratios %+v", mi.Timings, mi.Ratios)
	}
	for _, tm := range mi.Timings {
		if strings.HasPrefix(tm.Name, "complete one job") && tm.N != 10 {
			t.Errorf("mi: %s timed %d completions, want 10", tm.Name, tm.N)
		}
	}
	by := scenario(t, rep, "bytes")
	if len(by.Bytes) != 3 || by.Bytes[1].Instances != 60 || by.Bytes[1].PerInstance <= 0 {
		t.Errorf("bytes: %+v", by.Bytes)
	}
	list := scenario(t, rep, "list")
	if len(list.Lists) < 9 {
		t.Errorf("list: %d queries timed", len(list.Lists))
	}
	for _, l := range list.Lists {
		if l.N != 2 || l.Items == 0 {
			t.Errorf("list %s %s: %d calls, %d items", l.Filter, l.Query, l.N, l.Items)
		}
	}

	var md bytes.Buffer
	rep.Markdown(&md)
	for _, want := range []string{"### job", "PI/s", "p99", "bytes/instance", "processKey+status", "synchronous=FULL"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("markdown lacks %q", want)
		}
	}
	data, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	var back Report
	if err := json.Unmarshal(data, &back); err != nil || len(back.Scenarios) != len(rep.Scenarios) {
		t.Errorf("JSON round trip: %v", err)
	}
}

// TestExternalServer runs against a server the tool did not start (-addr),
// with a fixed open-loop rate, and measures bytes from the live file (-db).
func TestExternalServer(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs the server binary")
	}
	bin := serverBinary(t)
	dir := t.TempDir()
	srv := &Server{Bin: bin, DB: filepath.Join(dir, "gobpm.db"), Sync: "FULL", Log: filepath.Join(dir, "server.log")}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := srv.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer srv.Stop()
	rep, err := Run(ctx, tiny(t, "-addr", srv.Addr, "-db", srv.DB, "-scenario", "job,bytes", "-rate", "50"), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	assertSane(t, rep)
	job := scenario(t, rep, "job")
	if len(job.Phases) != 1 || job.Phases[0].TargetRate != 50 {
		t.Errorf("job with -rate: want one open-loop phase at 50/s: %+v", job.Phases)
	}
	if by := scenario(t, rep, "bytes"); len(by.Bytes) != 1 || by.Bytes[0].Instances != 60 {
		t.Errorf("bytes against an external server: %+v", by.Bytes)
	}
	// A second run on the same server finds what the first left and still counts right.
	rep, err = Run(ctx, tiny(t, "-addr", srv.Addr, "-scenario", "job,list", "-rate", "50"), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	assertSane(t, rep)
}
