package api_test

// Element statistics through the API over the real runtime and a real store
// (SQLite, or PostgreSQL with GOBPM_TEST_DB=postgres): a generated history
// with known durations gives known counts and percentiles, within the
// histogram's precision.

import (
	"encoding/json"
	"math"
	"net/http"
	"net/url"
	"testing"
	"time"
)

// statsModel: start → work (a job) → end.
const statsModel = `<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:gobpm="urn:gobpm:1" targetNamespace="urn:test">
  <process id="stats" isExecutable="true">
    <startEvent id="start"/>
    <sequenceFlow id="f1" sourceRef="start" targetRef="work"/>
    <serviceTask id="work" gobpm:type="stats-work"/>
    <sequenceFlow id="f2" sourceRef="work" targetRef="end"/>
    <endEvent id="end"/>
  </process>
</definitions>`

func TestIntegrationStatistics(t *testing.T) {
	t.Parallel()
	b, _, clk := setupRealClock(t)
	b.postXML("/api/v1/deployments", statsModel).wantStatus(t, http.StatusCreated)
	begin := clk.Now()
	// 20 instances whose jobs complete after 1 s, 2 s, … 20 s; 2 more cancelled.
	var cancel []string
	for i := 0; i < 22; i++ {
		inst := b.postJSON("/api/v1/processes/stats/instances", `{}`).wantStatus(t, http.StatusCreated).object(t)
		if i >= 20 {
			cancel = append(cancel, inst["id"].(string))
		}
	}
	jobs := b.postJSON("/api/v1/jobs/activate", `{"type":"stats-work","worker":"w","maxJobs":30,"lockDurationMs":600000}`).
		wantStatus(t, http.StatusOK).object(t)["jobs"].([]any)
	if len(jobs) != 22 {
		t.Fatalf("activated %d jobs, want 22", len(jobs))
	}
	done := 0
	for _, j := range jobs {
		job := j.(map[string]any)
		if job["instanceId"] == cancel[0] || job["instanceId"] == cancel[1] {
			continue
		}
		clk.Advance(time.Second)
		b.postJSON("/api/v1/jobs/"+job["key"].(string)+"/complete", withToken(job, ``)).noContent(t)
		done++
	}
	for _, id := range cancel {
		b.postJSON("/api/v1/instances/"+id+"/cancel", `{}`).wantStatus(t, http.StatusOK)
	}
	period := url.Values{"from": {begin.Format(time.RFC3339)}, "to": {clk.Now().Add(time.Hour).Format(time.RFC3339)}}

	var st struct {
		Key                                                     string
		Version                                                 int
		Precision                                               float64
		Starts, Completions, Cancellations, Failures, Incidents int64
		Duration                                                durationsDTO
		Elements                                                []struct {
			NodeID                                             string
			Activations, Completions, Incidents, Cancellations int64
			Active, Wait                                       durationsDTO
		}
	}
	decode := func(r *response, into any) {
		t.Helper()
		if err := json.Unmarshal(r.wantStatus(t, http.StatusOK).Body, into); err != nil {
			t.Fatal(err)
		}
	}
	decode(b.get("/api/v1/processes/stats/statistics?"+period.Encode()), &st)
	if st.Starts != 22 || st.Completions != 20 || st.Cancellations != 2 || st.Failures != 0 {
		t.Errorf("process counts = %d starts, %d completions, %d cancellations, %d failures; want 22, 20, 2, 0",
			st.Starts, st.Completions, st.Cancellations, st.Failures)
	}
	near := func(what string, got, want float64) {
		t.Helper()
		if math.Abs(got-want) > want*st.Precision+1e-9 {
			t.Errorf("%s = %.1f ms, want %.1f ms within %.0f %%", what, got, want, st.Precision*100)
		}
	}
	near("instance p50", st.Duration.P50, 10_000)
	near("instance p90", st.Duration.P90, 18_000)
	if st.Duration.Max != 20_000 || st.Duration.Count != 20 {
		t.Errorf("instance durations = %+v, want 20 up to 20000 ms", st.Duration)
	}
	by := map[string]int{}
	for i, e := range st.Elements {
		by[e.NodeID] = i
	}
	if _, ok := by["work"]; !ok {
		t.Fatalf("no statistics of work: %+v", st.Elements)
	}
	work := st.Elements[by["work"]]
	if work.Activations != 22 || work.Completions != 20 || work.Cancellations != 2 {
		t.Errorf("work = %+v, want 22 activations, 20 completions, 2 cancellations", work)
	}
	for name, d := range map[string]durationsDTO{"active": work.Active, "wait": work.Wait} {
		if d.Count != 20 || d.Max != 20_000 {
			t.Errorf("work %s = %+v, want 20 durations up to 20000 ms", name, d)
		}
		near("work "+name+" p50", d.P50, 10_000)
		near("work "+name+" p90", d.P90, 18_000)
		near("work "+name+" p99", d.P99, 20_000)
	}
	if e := st.Elements[by["end"]]; e.Activations != 20 || e.Active.Max != 0 {
		t.Errorf("end = %+v, want 20 activations of 0 ms", e)
	}

	// Per version: version 1 is all there is; version 2 does not exist.
	var v1 struct{ Version int }
	decode(b.get("/api/v1/processes/stats/statistics?version=1&"+period.Encode()), &v1)
	if v1.Version != 1 {
		t.Errorf("version = %d, want 1", v1.Version)
	}
	b.get("/api/v1/processes/stats/statistics?version=2").problem(t, http.StatusNotFound, "not-found")
	b.get("/api/v1/processes/nope/statistics").problem(t, http.StatusNotFound, "not-found")

	// The timeline: everything happened in one hour.
	var tl struct {
		Bucket string
		Items  []struct {
			Start       time.Time
			Starts      int64
			Completions int64
		}
	}
	decode(b.get("/api/v1/processes/stats/statistics/timeline?bucket=day&"+period.Encode()), &tl)
	if tl.Bucket != "day" || len(tl.Items) != 1 || tl.Items[0].Starts != 22 || tl.Items[0].Completions != 20 ||
		!tl.Items[0].Start.Equal(begin.UTC().Truncate(24*time.Hour)) {
		t.Errorf("timeline = %+v, want one day with 22 starts and 20 completions", tl)
	}

	for _, c := range []struct{ query string }{
		{"from=yesterday"}, {"version=0"}, {"version=x"}, {"from=2026-01-02T00:00:00Z&to=2026-01-01T00:00:00Z"},
	} {
		b.get("/api/v1/processes/stats/statistics?"+c.query).problem(t, http.StatusBadRequest, "invalid-request")
	}
	b.get("/api/v1/processes/stats/statistics/timeline?bucket=week").problem(t, http.StatusBadRequest, "invalid-request")
	b.get("/api/v1/processes/stats/statistics?from=2024-01-01T00:00:00Z&to=2026-01-01T00:00:00Z").problem(t, http.StatusBadRequest, "invalid-request")
}

// durationsDTO is the Durations schema as the tests read it.
type durationsDTO struct {
	Count int64
	P50   float64 `json:"p50Ms"`
	P90   float64 `json:"p90Ms"`
	P99   float64 `json:"p99Ms"`
	Max   float64 `json:"maxMs"`
}
