package api_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/gobpm/gobpm/internal/api"
	"github.com/gobpm/gobpm/internal/runtime"
	"github.com/gobpm/gobpm/internal/testdb"
)

// processFamilies are the labelled families of docs/metrics.md, which every
// scrape has (with or without series).
var processFamilies = map[string]string{
	"gobpm_process_instances_started_total":   "counter",
	"gobpm_process_instances_ended_total":     "counter",
	"gobpm_process_incidents_created_total":   "counter",
	"gobpm_process_incidents_open":            "gauge",
	"gobpm_process_element_activations_total": "counter",
	"gobpm_job_activations_total":             "counter",
	"gobpm_job_completions_total":             "counter",
	"gobpm_job_failures_total":                "counter",
	"gobpm_job_errors_total":                  "counter",
	"gobpm_step_duration_seconds":             "histogram",
}

// oneJobModel is a process of one service task of job type typ.
func oneJobModel(key, typ string) string {
	return `<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:gobpm="urn:gobpm:1" targetNamespace="urn:test">
  <process id="` + key + `" isExecutable="true">
    <startEvent id="start"/>
    <sequenceFlow id="f1" sourceRef="start" targetRef="work"/>
    <serviceTask id="work" gobpm:type="` + typ + `" gobpm:retries="3"/>
    <sequenceFlow id="f2" sourceRef="work" targetRef="end"/>
    <endEvent id="end"/>
  </process>
</definitions>`
}

// TestProcessMetricsOverRealRuntime runs instances of three processes
// through the router on a real runtime whose label sets hold two values,
// then checks every labelled series exactly: the third process key and
// job type are counted under "other".
func TestProcessMetricsOverRealRuntime(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, err := testdb.Open(ctx, testdb.DSN(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	rt := runtime.New(db, runtime.Options{MetricsLabelLimit: 2})
	t.Cleanup(func() { _ = rt.Close() })
	b := setup(t, rt, api.Options{})

	start := func(key string) string {
		t.Helper()
		return b.postJSON("/api/v1/processes/"+key+"/instances", `{}`).wantStatus(t, http.StatusCreated).object(t)["id"].(string)
	}
	activate := func(typ string, n int) []map[string]any {
		t.Helper()
		body := `{"type":"` + typ + `","worker":"w1","maxJobs":` + string(rune('0'+n)) + `,"lockDurationMs":60000}`
		raw := b.postJSON("/api/v1/jobs/activate", body).wantStatus(t, http.StatusOK).object(t)["jobs"].([]any)
		if len(raw) != n {
			t.Fatalf("activated %d %s jobs, want %d", len(raw), typ, n)
		}
		jobs := make([]map[string]any, n)
		for i, j := range raw {
			jobs[i] = j.(map[string]any)
		}
		return jobs
	}
	act := func(job map[string]any, what, rest string) {
		t.Helper()
		b.postJSON("/api/v1/jobs/"+job["key"].(string)+"/"+what, withToken(job, rest)).noContent(t)
	}

	// orders: one instance completes, one fails its job into an incident.
	// refunds: one completes, one is cancelled before its job is taken.
	// audits, the third key (and audit the third job type): one completes.
	for _, m := range []struct{ key, typ string }{{"orders", "charge"}, {"refunds", "refund"}, {"audits", "audit"}} {
		b.postXML("/api/v1/deployments", oneJobModel(m.key, m.typ)).wantStatus(t, http.StatusCreated)
	}
	var ids []string
	ids = append(ids, start("orders"), start("orders"))
	charges := activate("charge", 2)
	act(charges[0], "complete", ``)
	act(charges[1], "fail", `"retries":0,"errorMessage":"card declined"`)
	ids = append(ids, start("refunds"))
	act(activate("refund", 1)[0], "complete", ``)
	cancelled := start("refunds")
	ids = append(ids, cancelled)
	b.postJSON("/api/v1/instances/"+cancelled+"/cancel", `{}`).wantStatus(t, http.StatusOK)
	ids = append(ids, start("audits"))
	act(activate("audit", 1)[0], "complete", ``)

	e := b.scrape(t)
	want := map[string]float64{
		`gobpm_process_instances_started_total{process_key="orders"}`:                     2,
		`gobpm_process_instances_started_total{process_key="refunds"}`:                    2,
		`gobpm_process_instances_started_total{process_key="other"}`:                      1,
		`gobpm_process_instances_ended_total{outcome="completed",process_key="orders"}`:   1,
		`gobpm_process_instances_ended_total{outcome="terminated",process_key="orders"}`:  0,
		`gobpm_process_instances_ended_total{outcome="failed",process_key="orders"}`:      0,
		`gobpm_process_instances_ended_total{outcome="completed",process_key="refunds"}`:  1,
		`gobpm_process_instances_ended_total{outcome="terminated",process_key="refunds"}`: 1,
		`gobpm_process_instances_ended_total{outcome="failed",process_key="refunds"}`:     0,
		`gobpm_process_instances_ended_total{outcome="completed",process_key="other"}`:    1,
		`gobpm_process_instances_ended_total{outcome="terminated",process_key="other"}`:   0,
		`gobpm_process_instances_ended_total{outcome="failed",process_key="other"}`:       0,
		`gobpm_process_incidents_created_total{process_key="orders"}`:                     1,
		`gobpm_process_incidents_created_total{process_key="refunds"}`:                    0,
		`gobpm_process_incidents_created_total{process_key="other"}`:                      0,
		`gobpm_process_incidents_open{process_key="orders"}`:                              1,
		`gobpm_process_incidents_open{process_key="refunds"}`:                             0,
		`gobpm_process_incidents_open{process_key="other"}`:                               0,

		`gobpm_process_element_activations_total{element_type="startEvent",process_key="orders"}`:   2,
		`gobpm_process_element_activations_total{element_type="serviceTask",process_key="orders"}`:  2,
		`gobpm_process_element_activations_total{element_type="endEvent",process_key="orders"}`:     1,
		`gobpm_process_element_activations_total{element_type="startEvent",process_key="refunds"}`:  2,
		`gobpm_process_element_activations_total{element_type="serviceTask",process_key="refunds"}`: 2,
		`gobpm_process_element_activations_total{element_type="endEvent",process_key="refunds"}`:    1,
		`gobpm_process_element_activations_total{element_type="startEvent",process_key="other"}`:    1,
		`gobpm_process_element_activations_total{element_type="serviceTask",process_key="other"}`:   1,
		`gobpm_process_element_activations_total{element_type="endEvent",process_key="other"}`:      1,

		`gobpm_job_activations_total{job_type="charge"}`: 2, `gobpm_job_completions_total{job_type="charge"}`: 1,
		`gobpm_job_failures_total{job_type="charge"}`: 1, `gobpm_job_errors_total{job_type="charge"}`: 0,
		`gobpm_job_activations_total{job_type="refund"}`: 1, `gobpm_job_completions_total{job_type="refund"}`: 1,
		`gobpm_job_failures_total{job_type="refund"}`: 0, `gobpm_job_errors_total{job_type="refund"}`: 0,
		`gobpm_job_activations_total{job_type="other"}`: 1, `gobpm_job_completions_total{job_type="other"}`: 1,
		`gobpm_job_failures_total{job_type="other"}`: 0, `gobpm_job_errors_total{job_type="other"}`: 0,

		`gobpm_step_duration_seconds_count{trigger="start"}`:         5,
		`gobpm_step_duration_seconds_count{trigger="job-completed"}`: 3,
		`gobpm_step_duration_seconds_count{trigger="job-failed"}`:    1,
		`gobpm_step_duration_seconds_count{trigger="cancel"}`:        1,

		// The unlabelled totals agree.
		"gobpm_instances_started_total": 5, "gobpm_jobs_activated_total": 4,
	}
	for key, v := range want {
		if got := e.value(t, key); got != v {
			t.Errorf("%s = %v, want %v", key, got, v)
		}
	}
	// Nothing else: every labelled sample is one of those above (or a
	// step histogram's bucket or sum).
	for _, s := range e.samples {
		if processFamilies[s.name] == "" && !strings.HasPrefix(s.name, "gobpm_step_duration_seconds_") {
			continue
		}
		for _, v := range s.labels {
			for _, id := range ids {
				if strings.Contains(v, id) {
					t.Errorf("an instance id became a label: %s", s.key())
				}
			}
		}
		if s.name == "gobpm_step_duration_seconds_bucket" || s.name == "gobpm_step_duration_seconds_sum" {
			continue
		}
		if _, ok := want[s.key()]; !ok {
			t.Errorf("unexpected series %s = %v", s.key(), s.value)
		}
	}

	// Resolving the incident (retry, then completing the job) empties the
	// gauge, which reads the store.
	incidents, err := rt.Incidents(ctx, "", true)
	if err != nil || len(incidents) != 1 {
		t.Fatalf("open incidents %v, %v", incidents, err)
	}
	b.postJSON("/api/v1/incidents/"+incidents[0].ID+"/retry", `{"retries":1}`).wantStatus(t, http.StatusOK)
	act(activate("charge", 1)[0], "complete", ``)
	e = b.scrape(t)
	for key, v := range map[string]float64{
		`gobpm_process_incidents_open{process_key="orders"}`:                            0,
		`gobpm_process_incidents_created_total{process_key="orders"}`:                   1,
		`gobpm_process_instances_ended_total{outcome="completed",process_key="orders"}`: 2,
		`gobpm_job_activations_total{job_type="charge"}`:                                3,
		`gobpm_job_completions_total{job_type="charge"}`:                                2,
	} {
		if got := e.value(t, key); got != v {
			t.Errorf("after the retry: %s = %v, want %v", key, got, v)
		}
	}
}

// TestProcessMetricsExposition checks the labelled families' text: every
// outcome of every process, the overflow series last, a histogram per
// trigger whose +Inf bucket is its count.
func TestProcessMetricsExposition(t *testing.T) {
	t.Parallel()
	e := setup(t, newFake(), api.Options{}).scrape(t)
	for key, want := range map[string]float64{
		`gobpm_process_instances_started_total{process_key="order"}`:                              5,
		`gobpm_process_instances_started_total{process_key="other"}`:                              1,
		`gobpm_process_instances_ended_total{outcome="completed",process_key="order"}`:            3,
		`gobpm_process_instances_ended_total{outcome="terminated",process_key="order"}`:           1,
		`gobpm_process_instances_ended_total{outcome="failed",process_key="order"}`:               0,
		`gobpm_process_instances_ended_total{outcome="completed",process_key="other"}`:            0,
		`gobpm_process_incidents_created_total{process_key="order"}`:                              2,
		`gobpm_process_incidents_open{process_key="order"}`:                                       1,
		`gobpm_process_element_activations_total{element_type="serviceTask",process_key="order"}`: 4,
		`gobpm_process_element_activations_total{element_type="startEvent",process_key="order"}`:  5,
		`gobpm_job_activations_total{job_type="charge"}`:                                          4,
		`gobpm_job_completions_total{job_type="charge"}`:                                          2,
		`gobpm_job_failures_total{job_type="charge"}`:                                             1,
		`gobpm_job_errors_total{job_type="charge"}`:                                               1,
		`gobpm_step_duration_seconds_bucket{le="0.0025",trigger="start"}`:                         0,
		`gobpm_step_duration_seconds_bucket{le="0.005",trigger="start"}`:                          2,
		`gobpm_step_duration_seconds_bucket{le="2.5",trigger="start"}`:                            2,
		`gobpm_step_duration_seconds_bucket{le="+Inf",trigger="start"}`:                           3,
		`gobpm_step_duration_seconds_sum{trigger="start"}`:                                        0.03,
		`gobpm_step_duration_seconds_count{trigger="start"}`:                                      3,
	} {
		if got := e.value(t, key); got != want {
			t.Errorf("%s = %v, want %v", key, got, want)
		}
	}
	var keys []string
	for _, s := range e.samples {
		if s.name == "gobpm_process_instances_started_total" {
			keys = append(keys, s.labels["process_key"])
		}
	}
	if strings.Join(keys, ",") != "order,other" {
		t.Errorf("process keys in order %v, want order then other", keys)
	}
}
