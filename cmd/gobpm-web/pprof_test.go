package main

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
)

// TestProfiler checks that --pprof serves Go's profiler on its own
// loopback listener, apart from the API, and refuses other addresses.
func TestProfiler(t *testing.T) {
	t.Parallel()
	for _, addr := range []string{"0.0.0.0:6060", ":6060", "192.168.1.5:6060"} {
		if _, err := ParseConfig([]string{"--pprof", addr, "--allow-remote"}, func(string) string { return "" }, io.Discard); err == nil {
			t.Errorf("--pprof %s accepted", addr)
		}
	}
	cfg, err := ParseConfig([]string{"--addr", "127.0.0.1:0", "--pprof", "127.0.0.1:0", "--db", filepath.Join(t.TempDir(), "gobpm.db")},
		func(string) string { return "" }, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	m := NewMain(cfg, slog.New(slog.DiscardHandler))
	if err := m.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if m.ProfilerAddr() == "" || m.ProfilerAddr() == m.Addr() {
		t.Fatalf("profiler at %q, API at %q", m.ProfilerAddr(), m.Addr())
	}
	res, err := http.Get("http://" + m.ProfilerAddr() + "/debug/pprof/")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusOK || !strings.Contains(string(body), "goroutine") {
		t.Fatalf("profiler index: %d %.200s", res.StatusCode, body)
	}
	if res, err := http.Get("http://" + m.Addr() + "/debug/pprof/"); err == nil {
		res.Body.Close()
		if res.StatusCode == http.StatusOK {
			t.Error("the API's listener serves the profiler too")
		}
	}
}
