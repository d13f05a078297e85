package api

import (
	"bytes"
	"fmt"

	"github.com/gobpm/gobpm/internal/runtime"
)

// The outcomes of gobpm_process_instances_ended_total, in the order written.
var endOutcomes = [...]string{"completed", "terminated", "failed"}

// writeProcessMetrics writes the labelled series of docs/metrics.md: per
// process key, per job type and per step trigger. Every family has its
// HELP and TYPE even without series, so the set of families never changes.
func writeProcessMetrics(b *bytes.Buffer, pm runtime.ProcessMetrics) {
	header(b, "gobpm_process_instances_started_total", "counter", "Process instances started on this node, by process key (called children included).")
	for _, p := range pm.Processes {
		fmt.Fprintf(b, "gobpm_process_instances_started_total{process_key=%s} %d\n", quoteLabel(p.Key), p.Started)
	}
	header(b, "gobpm_process_instances_ended_total", "counter", "Process instances that ended on this node, by process key and outcome (completed, terminated, failed).")
	for _, p := range pm.Processes {
		for i, n := range [...]int64{p.Completed, p.Terminated, p.Failed} {
			fmt.Fprintf(b, "gobpm_process_instances_ended_total{process_key=%s,outcome=\"%s\"} %d\n", quoteLabel(p.Key), endOutcomes[i], n)
		}
	}
	header(b, "gobpm_process_incidents_created_total", "counter", "Incidents raised on this node, by process key.")
	for _, p := range pm.Processes {
		fmt.Fprintf(b, "gobpm_process_incidents_created_total{process_key=%s} %d\n", quoteLabel(p.Key), p.IncidentsCreated)
	}
	header(b, "gobpm_process_incidents_open", "gauge", "Open incidents in the store (every node's), by process key.")
	for _, p := range pm.Processes {
		fmt.Fprintf(b, "gobpm_process_incidents_open{process_key=%s} %d\n", quoteLabel(p.Key), p.IncidentsOpen)
	}
	header(b, "gobpm_process_element_activations_total", "counter", "Element activations on this node, by process key and element type.")
	for _, p := range pm.Processes {
		for _, e := range p.Elements {
			fmt.Fprintf(b, "gobpm_process_element_activations_total{process_key=%s,element_type=%s} %d\n", quoteLabel(p.Key), quoteLabel(e.Type), e.Activations)
		}
	}
	for _, c := range []struct {
		name, help string
		value      func(runtime.JobSeries) int64
	}{
		{"gobpm_job_activations_total", "Jobs locked for workers on this node, by job type.", func(j runtime.JobSeries) int64 { return j.Activated }},
		{"gobpm_job_completions_total", "Jobs completed by their workers on this node, by job type.", func(j runtime.JobSeries) int64 { return j.Completed }},
		{"gobpm_job_failures_total", "Failed job attempts reported by workers on this node, by job type.", func(j runtime.JobSeries) int64 { return j.Failed }},
		{"gobpm_job_errors_total", "BPMN errors thrown by job workers on this node, by job type.", func(j runtime.JobSeries) int64 { return j.ErrorsThrown }},
	} {
		header(b, c.name, "counter", c.help)
		for _, j := range pm.Jobs {
			fmt.Fprintf(b, "%s{job_type=%s} %d\n", c.name, quoteLabel(j.Type), c.value(j))
		}
	}
	const steps = "gobpm_step_duration_seconds"
	header(b, steps, "histogram", "Duration of each committed step, from the instance's lock to its durable commit, by trigger.")
	for _, s := range pm.Steps {
		writeHistogram(b, steps, "trigger="+quoteLabel(s.Trigger), s.Durations)
	}
}

// writeHistogram writes one labelled series of a histogram over
// runtime.CommitBuckets (its HELP and TYPE written before).
func writeHistogram(b *bytes.Buffer, name, labels string, h runtime.Histogram) {
	var cum int64
	for i, le := range runtime.CommitBuckets {
		cum += h.Counts[i]
		fmt.Fprintf(b, "%s_bucket{%s,le=\"%s\"} %d\n", name, labels, formatFloat(le), cum)
	}
	fmt.Fprintf(b, "%s_bucket{%s,le=\"+Inf\"} %d\n", name, labels, h.Count)
	fmt.Fprintf(b, "%s_sum{%s} %s\n", name, labels, formatFloat(h.Sum.Seconds()))
	fmt.Fprintf(b, "%s_count{%s} %d\n", name, labels, h.Count)
}
