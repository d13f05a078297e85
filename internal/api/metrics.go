package api

import (
	"bytes"
	"cmp"
	"fmt"
	"net/http"
	goruntime "runtime"
	"runtime/metrics"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/gobpm/gobpm/internal/runtime"
)

// metricsContentType is the Prometheus text exposition format, version 0.0.4.
const metricsContentType = "text/plain; version=0.0.4; charset=utf-8"

// routeUnmatched labels requests that no route pattern matched (404s, 405s),
// so a scanner probing random paths cannot mint new series.
const routeUnmatched = "unmatched"

// durationBuckets are the upper bounds, in seconds, of the request latency
// histogram (the Prometheus client's default buckets).
var durationBuckets = [...]float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10}

// processStart approximates the process's start: the moment this package was
// initialised. It is written once, before main runs, and only read after.
var processStart = time.Now()

// httpMetrics counts the requests the router served; the request logger
// records into it and GET /metrics reads it. Each router has its own.
type httpMetrics struct {
	mu        sync.Mutex
	requests  map[requestKey]uint64
	durations map[routeKey]*histogram
}

type routeKey struct{ route, method string }

type requestKey struct {
	routeKey
	code int
}

// histogram is one latency series: counts[i] counts the observations ≤
// durationBuckets[i] (not cumulative; the exposition sums them).
type histogram struct {
	counts [len(durationBuckets)]uint64
	count  uint64
	sum    float64
}

func newHTTPMetrics() *httpMetrics {
	return &httpMetrics{requests: map[requestKey]uint64{}, durations: map[routeKey]*histogram{}}
}

// observe records one served request.
func (m *httpMetrics) observe(route, method string, code int, d time.Duration) {
	rk := routeKey{route: route, method: metricMethod(method)}
	secs := d.Seconds()
	m.mu.Lock()
	defer m.mu.Unlock()
	m.requests[requestKey{rk, code}]++
	h := m.durations[rk]
	if h == nil {
		h = &histogram{}
		m.durations[rk] = h
	}
	h.count++
	h.sum += secs
	if i, _ := slices.BinarySearch(durationBuckets[:], secs); i < len(durationBuckets) {
		h.counts[i]++
	}
}

// metricMethod keeps the method label bounded: a method outside the standard
// set is counted as OTHER.
func metricMethod(m string) string {
	switch m {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
		http.MethodDelete, http.MethodOptions, http.MethodConnect, http.MethodTrace:
		return m
	}
	return "OTHER"
}

// routeLabel is the chi route pattern that served r (never the raw path, so
// ids do not become series), or routeUnmatched when no route took it: the
// router's 404 and 405 answers, and fallback requests no pattern matched.
func routeLabel(r *http.Request, st *logState) string {
	rctx := chi.RouteContext(r.Context())
	if st.unmatched || rctx == nil {
		return routeUnmatched
	}
	if p := rctx.RoutePattern(); p != "" {
		return p
	}
	return routeUnmatched
}

// writeHTTP writes the request counter and the latency histogram, series in
// label order so scrapes are stable.
func (m *httpMetrics) writeHTTP(b *bytes.Buffer) {
	m.mu.Lock()
	reqs := make([]requestKey, 0, len(m.requests))
	for k := range m.requests {
		reqs = append(reqs, k)
	}
	counts := make(map[requestKey]uint64, len(m.requests))
	for k, v := range m.requests {
		counts[k] = v
	}
	routes := make([]routeKey, 0, len(m.durations))
	hists := make(map[routeKey]histogram, len(m.durations))
	for k, h := range m.durations {
		routes = append(routes, k)
		hists[k] = *h
	}
	m.mu.Unlock()

	slices.SortFunc(reqs, func(a, b requestKey) int {
		return cmp.Or(compareRoute(a.routeKey, b.routeKey), cmp.Compare(a.code, b.code))
	})
	slices.SortFunc(routes, compareRoute)

	header(b, "gobpm_http_requests_total", "counter", "HTTP requests served, by route pattern, method and status code.")
	for _, k := range reqs {
		fmt.Fprintf(b, "gobpm_http_requests_total{route=%s,method=%s,code=\"%d\"} %d\n",
			quoteLabel(k.route), quoteLabel(k.method), k.code, counts[k])
	}
	header(b, "gobpm_http_request_duration_seconds", "histogram", "HTTP request latency in seconds, by route pattern and method.")
	for _, k := range routes {
		h := hists[k]
		labels := "route=" + quoteLabel(k.route) + ",method=" + quoteLabel(k.method)
		var cum uint64
		for i, le := range durationBuckets {
			cum += h.counts[i]
			fmt.Fprintf(b, "gobpm_http_request_duration_seconds_bucket{%s,le=\"%s\"} %d\n", labels, formatFloat(le), cum)
		}
		fmt.Fprintf(b, "gobpm_http_request_duration_seconds_bucket{%s,le=\"+Inf\"} %d\n", labels, h.count)
		fmt.Fprintf(b, "gobpm_http_request_duration_seconds_sum{%s} %s\n", labels, formatFloat(h.sum))
		fmt.Fprintf(b, "gobpm_http_request_duration_seconds_count{%s} %d\n", labels, h.count)
	}
}

func compareRoute(a, b routeKey) int {
	return cmp.Or(cmp.Compare(a.route, b.route), cmp.Compare(a.method, b.method))
}

// metrics answers GET /metrics in the Prometheus text format: the runtime's
// counters, the open waits per kind, the router's HTTP series and a few
// process gauges.
func (s *server) metrics(w http.ResponseWriter, r *http.Request) error {
	waits, err := s.svc.WaitCounts(r.Context())
	if err != nil {
		return err
	}
	m := s.svc.Metrics()
	pm, err := s.svc.ProcessMetrics(r.Context())
	if err != nil {
		return err
	}

	var b bytes.Buffer
	for _, c := range []struct {
		name, help string
		value      int64
	}{
		{"gobpm_steps_committed_total", "Committed steps (one per instance per command).", m.StepsCommitted},
		{"gobpm_commit_batches_total", "Store transactions the committed steps shared (group commit).", m.CommitBatches},
		{"gobpm_instances_started_total", "Process instances started, called children included.", m.InstancesStarted},
		{"gobpm_instances_ended_total", "Process instances that ended (completed, terminated or failed).", m.InstancesEnded},
		{"gobpm_jobs_activated_total", "Jobs locked for workers.", m.JobsActivated},
		{"gobpm_timers_fired_total", "Timers fired.", m.TimersFired},
		{"gobpm_incidents_opened_total", "Incidents opened.", m.IncidentsOpened},
		{"gobpm_instances_deleted_total", "Ended instances deleted with their history (retention, DELETE).", m.InstancesDeleted},
		{"gobpm_stale_steps_total", "Steps re-run because another node committed their instance first.", m.StaleSteps},
		{"gobpm_step_collisions_total", "Commands whose step another node's commit of the same instance overtook at least once.", m.Collisions},
		{"gobpm_deploy_dir_deployments_total", "Deployments from the --deploy-dir folder.", m.FolderDeployments},
		{"gobpm_deploy_dir_refusals_total", "Refused deployments from the --deploy-dir folder (every problem is logged).", m.FolderRefusals},
	} {
		header(&b, c.name, "counter", c.help)
		fmt.Fprintf(&b, "%s %d\n", c.name, c.value)
	}

	writeCommitHistogram(&b, m.Commits)
	writeProcessMetrics(&b, pm)

	header(&b, "gobpm_open_waits", "gauge", "Open waits, by kind.")
	kinds := make([]string, 0, len(waits))
	for k := range waits {
		kinds = append(kinds, k)
	}
	slices.Sort(kinds)
	for _, k := range kinds {
		fmt.Fprintf(&b, "gobpm_open_waits{kind=%s} %d\n", quoteLabel(k), waits[k])
	}

	s.http.writeHTTP(&b)

	header(&b, "go_goroutines", "gauge", "Number of goroutines that currently exist.")
	fmt.Fprintf(&b, "go_goroutines %d\n", goruntime.NumGoroutine())
	writeGCSettings(&b)
	header(&b, "process_start_time_seconds", "gauge", "Start time of the process since unix epoch in seconds.")
	fmt.Fprintf(&b, "process_start_time_seconds %s\n", formatFloat(float64(processStart.UnixNano())/1e9))

	w.Header().Set("Content-Type", metricsContentType)
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(b.Bytes())
	return nil
}

// writeGCSettings writes the garbage collector's settings (the server tunes
// them at start): go_gc_gogc_percent (0 when the collector is off) and
// go_gc_gomemlimit_bytes, under the names Prometheus's Go client uses.
func writeGCSettings(b *bytes.Buffer) {
	samples := []metrics.Sample{{Name: "/gc/gogc:percent"}, {Name: "/gc/gomemlimit:bytes"}}
	metrics.Read(samples)
	for i, m := range []struct{ name, help string }{
		{"go_gc_gogc_percent", "Heap size target percentage configured by the user, otherwise 100 (GOGC)."},
		{"go_gc_gomemlimit_bytes", "Go runtime memory limit configured by the user, otherwise math.MaxInt64 (GOMEMLIMIT)."},
	} {
		if samples[i].Value.Kind() != metrics.KindUint64 {
			continue
		}
		header(b, m.name, "gauge", m.help)
		fmt.Fprintf(b, "%s %d\n", m.name, samples[i].Value.Uint64())
	}
}

// writeCommitHistogram writes the duration of the runtime's store
// transactions: a disk whose fsync stalls shows in its upper buckets.
func writeCommitHistogram(b *bytes.Buffer, h runtime.Histogram) {
	const name = "gobpm_commit_duration_seconds"
	header(b, name, "histogram", "Duration of each store transaction of committed steps (group commit, fsync included).")
	var cum int64
	for i, le := range runtime.CommitBuckets {
		cum += h.Counts[i]
		fmt.Fprintf(b, "%s_bucket{le=\"%s\"} %d\n", name, formatFloat(le), cum)
	}
	fmt.Fprintf(b, "%s_bucket{le=\"+Inf\"} %d\n", name, h.Count)
	fmt.Fprintf(b, "%s_sum %s\n", name, formatFloat(h.Sum.Seconds()))
	fmt.Fprintf(b, "%s_count %d\n", name, h.Count)
}

func header(b *bytes.Buffer, name, typ, help string) {
	fmt.Fprintf(b, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, typ)
}

// quoteLabel quotes a label value as the text format wants: backslash,
// double quote and line feed escaped.
func quoteLabel(v string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`).Replace(v) + `"`
}

func formatFloat(f float64) string {
	return strconv.FormatFloat(f, 'g', -1, 64)
}
