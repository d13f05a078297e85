package api_test

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gobpm/gobpm/internal/api"
	"github.com/gobpm/gobpm/internal/runtime"
	"github.com/gobpm/gobpm/internal/testdb"
)

// sample is one parsed sample line of the Prometheus text format.
type sample struct {
	name   string
	labels map[string]string
	value  float64
}

// key is the sample's name and labels in a canonical form:
// name{a="x",b="y"} with the labels sorted, or just name.
func (s sample) key() string {
	if len(s.labels) == 0 {
		return s.name
	}
	names := make([]string, 0, len(s.labels))
	for n := range s.labels {
		names = append(names, n)
	}
	slices.Sort(names)
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = fmt.Sprintf("%s=%q", n, s.labels[n])
	}
	return s.name + "{" + strings.Join(parts, ",") + "}"
}

// exposition is a parsed scrape.
type exposition struct {
	types   map[string]string // family → TYPE
	helps   map[string]string // family → HELP
	samples []sample
	byKey   map[string]float64
}

var (
	sampleLine = regexp.MustCompile(`^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$`)
	labelPair  = regexp.MustCompile(`^([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\n]|\\["\\n])*)"(?:,|$)`)
	metaLine   = regexp.MustCompile(`^# (HELP|TYPE) ([a-zA-Z_:][a-zA-Z0-9_:]*) (.+)$`)
)

// parseExposition parses body strictly: every line is a HELP, a TYPE or a
// sample `name{labels} value`; every sample belongs to a family whose HELP
// and TYPE came before it; families are not interleaved.
func parseExposition(t *testing.T, body string) *exposition {
	t.Helper()
	e := &exposition{types: map[string]string{}, helps: map[string]string{}, byKey: map[string]float64{}}
	if !strings.HasSuffix(body, "\n") {
		t.Errorf("exposition does not end with a line feed")
	}
	var current string
	done := map[string]bool{}
	for i, line := range strings.Split(strings.TrimSuffix(body, "\n"), "\n") {
		if m := metaLine.FindStringSubmatch(line); m != nil {
			if m[2] != current {
				if done[m[2]] {
					t.Errorf("line %d: family %s appears twice", i+1, m[2])
				}
				if current != "" {
					done[current] = true
				}
				current = m[2]
			}
			if m[1] == "HELP" {
				e.helps[m[2]] = m[3]
			} else {
				e.types[m[2]] = m[3]
			}
			continue
		}
		m := sampleLine.FindStringSubmatch(line)
		if m == nil {
			t.Errorf("line %d is not `name{labels} value`: %q", i+1, line)
			continue
		}
		s := sample{name: m[1], labels: map[string]string{}}
		for rest := m[2]; rest != ""; {
			lm := labelPair.FindStringSubmatch(rest)
			if lm == nil {
				t.Errorf("line %d: bad labels %q", i+1, m[2])
				break
			}
			if _, dup := s.labels[lm[1]]; dup {
				t.Errorf("line %d: label %s twice", i+1, lm[1])
			}
			s.labels[lm[1]] = strings.NewReplacer(`\\`, `\`, `\"`, `"`, `\n`, "\n").Replace(lm[2])
			rest = rest[len(lm[0]):]
		}
		v, err := strconv.ParseFloat(m[3], 64)
		if err != nil {
			t.Errorf("line %d: value %q: %v", i+1, m[3], err)
		}
		s.value = v
		family := s.name
		if e.types[current] == "histogram" {
			for _, suffix := range []string{"_bucket", "_sum", "_count"} {
				if strings.TrimSuffix(s.name, suffix) == current {
					family = current
				}
			}
		}
		if family != current {
			t.Errorf("line %d: sample %s outside its family's block (in %s)", i+1, s.name, current)
		}
		if e.helps[family] == "" || e.types[family] == "" {
			t.Errorf("line %d: sample %s without HELP and TYPE before it", i+1, s.name)
		}
		if _, dup := e.byKey[s.key()]; dup {
			t.Errorf("line %d: series %s twice", i+1, s.key())
		}
		e.samples = append(e.samples, s)
		e.byKey[s.key()] = v
	}
	for family, typ := range e.types {
		if !slices.Contains([]string{"counter", "gauge", "histogram"}, typ) {
			t.Errorf("family %s has TYPE %q", family, typ)
		}
		if e.helps[family] == "" {
			t.Errorf("family %s has no HELP", family)
		}
	}
	return e
}

// value returns the sample with this key, failing the test if it is absent.
func (e *exposition) value(t *testing.T, key string) float64 {
	t.Helper()
	v, ok := e.byKey[key]
	if !ok {
		t.Errorf("no sample %s", key)
	}
	return v
}

// checkHistograms checks every histogram series: the buckets are the
// documented ones, in order, cumulative, and +Inf equals _count.
func (e *exposition) checkHistograms(t *testing.T) {
	t.Helper()
	bounds := map[string][]string{
		"gobpm_http_request_duration_seconds": {"0.005", "0.01", "0.025", "0.05", "0.1", "0.25", "0.5", "1", "2.5", "5", "10", "+Inf"},
		"gobpm_commit_duration_seconds":       {"0.0005", "0.001", "0.0025", "0.005", "0.01", "0.025", "0.05", "0.1", "0.25", "0.5", "1", "2.5", "+Inf"},
		"gobpm_step_duration_seconds":         {"0.0005", "0.001", "0.0025", "0.005", "0.01", "0.025", "0.05", "0.1", "0.25", "0.5", "1", "2.5", "+Inf"},
	}
	for family, typ := range e.types {
		if typ != "histogram" {
			continue
		}
		wantLe, ok := bounds[family]
		if !ok {
			t.Errorf("histogram %s: no bounds to check", family)
			continue
		}
		type series struct {
			les     []string
			counts  []float64
			sum     *float64
			count   *float64
			display string
		}
		all := map[string]*series{}
		get := func(s sample) *series {
			rest := sample{name: family, labels: map[string]string{}}
			for k, v := range s.labels {
				if k != "le" {
					rest.labels[k] = v
				}
			}
			k := rest.key()
			if all[k] == nil {
				all[k] = &series{display: k}
			}
			return all[k]
		}
		for _, s := range e.samples {
			switch s.name {
			case family + "_bucket":
				sr := get(s)
				sr.les = append(sr.les, s.labels["le"])
				sr.counts = append(sr.counts, s.value)
			case family + "_sum":
				v := s.value
				get(s).sum = &v
			case family + "_count":
				v := s.value
				get(s).count = &v
			}
		}
		for _, sr := range all {
			if !slices.Equal(sr.les, wantLe) {
				t.Errorf("%s: buckets %v, want %v", sr.display, sr.les, wantLe)
				continue
			}
			if !slices.IsSorted(sr.counts) {
				t.Errorf("%s: buckets are not cumulative: %v", sr.display, sr.counts)
			}
			if sr.sum == nil || sr.count == nil {
				t.Errorf("%s: no _sum or _count", sr.display)
				continue
			}
			// A served request shows in its route's series; a runtime that
			// committed nothing yet has an all-zero commit histogram.
			if inf := sr.counts[len(sr.counts)-1]; inf != *sr.count || (*sr.count < 1 && family != "gobpm_commit_duration_seconds") {
				t.Errorf("%s: +Inf bucket %v, _count %v", sr.display, inf, *sr.count)
			}
			if *sr.sum < 0 || math.IsNaN(*sr.sum) {
				t.Errorf("%s: _sum %v", sr.display, *sr.sum)
			}
		}
	}
}

// scrape GETs /metrics, checks the content type and parses the answer.
func (b *bundle) scrape(t *testing.T) *exposition {
	t.Helper()
	res := b.get("/metrics").wantStatus(t, http.StatusOK)
	if ct := res.Header.Get("Content-Type"); ct != "text/plain; version=0.0.4; charset=utf-8" {
		t.Errorf("Content-Type = %q", ct)
	}
	e := parseExposition(t, string(res.Body))
	e.checkHistograms(t)
	wantTypes := map[string]string{
		"gobpm_steps_committed_total": "counter", "gobpm_commit_batches_total": "counter",
		"gobpm_instances_started_total": "counter", "gobpm_instances_ended_total": "counter",
		"gobpm_jobs_activated_total": "counter", "gobpm_timers_fired_total": "counter",
		"gobpm_incidents_opened_total": "counter", "gobpm_open_waits": "gauge",
		"gobpm_instances_deleted_total": "counter", "gobpm_stale_steps_total": "counter", "gobpm_step_collisions_total": "counter",
		"gobpm_deploy_dir_deployments_total": "counter", "gobpm_deploy_dir_refusals_total": "counter",
		"gobpm_http_requests_total": "counter", "gobpm_http_request_duration_seconds": "histogram",
		"gobpm_commit_duration_seconds": "histogram", "go_goroutines": "gauge", "process_start_time_seconds": "gauge",
		"go_gc_gogc_percent": "gauge", "go_gc_gomemlimit_bytes": "gauge",
	}
	for family, typ := range processFamilies {
		wantTypes[family] = typ
	}
	for family, typ := range wantTypes {
		if e.types[family] != typ {
			t.Errorf("TYPE of %s = %q, want %q", family, e.types[family], typ)
		}
	}
	if len(e.types) != len(wantTypes) {
		t.Errorf("families %v, want %v", e.types, wantTypes)
	}
	return e
}

// TestMetricsOverRealRuntime drives a real runtime through the API, then
// checks that /metrics reports its counters and waits and the requests.
func TestMetricsOverRealRuntime(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, err := testdb.Open(ctx, testdb.DSN(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	rt := runtime.New(db, runtime.Options{})
	t.Cleanup(func() { _ = rt.Close() })
	b := setup(t, rt, api.Options{})
	before := time.Now()

	b.postXML("/api/v1/deployments", waitsModel).wantStatus(t, http.StatusCreated)
	var ids []string
	for _, order := range []string{"o-1", "o-2"} {
		inst := b.postJSON("/api/v1/processes/waits/instances", `{"variables":{"orderId":"`+order+`"}}`).wantStatus(t, http.StatusCreated).object(t)
		ids = append(ids, inst["id"].(string))
	}
	jobs := b.postJSON("/api/v1/jobs/activate", `{"type":"charge","worker":"w1","maxJobs":1,"lockDurationMs":60000}`).
		wantStatus(t, http.StatusOK).object(t)["jobs"].([]any)
	if len(jobs) != 1 {
		t.Fatalf("jobs = %v", jobs)
	}
	b.get("/api/v1/instances/"+ids[0]).wantStatus(t, http.StatusOK)
	b.get("/api/v1/instances/"+ids[1]).wantStatus(t, http.StatusOK)
	b.get("/api/v1/instances/no-such-instance").problem(t, http.StatusNotFound, "not-found")
	b.get("/api/v1/no-such-route/"+ids[0]).problem(t, http.StatusNotFound, "not-found")
	rt.CountFolderDeployment(false) // what --deploy-dir's watcher reports
	rt.CountFolderDeployment(false)
	rt.CountFolderDeployment(true)

	e := b.scrape(t)
	if e.value(t, "gobpm_deploy_dir_deployments_total") != 2 || e.value(t, "gobpm_deploy_dir_refusals_total") != 1 {
		t.Errorf("the folder's counters do not reflect two deployments and one refusal: %v", e.byKey)
	}

	// The runtime's counters, as the runtime itself reports them.
	m := rt.Metrics()
	for name, want := range map[string]int64{
		"gobpm_steps_committed_total": m.StepsCommitted, "gobpm_commit_batches_total": m.CommitBatches,
		"gobpm_instances_started_total": m.InstancesStarted, "gobpm_instances_ended_total": m.InstancesEnded,
		"gobpm_jobs_activated_total": m.JobsActivated, "gobpm_timers_fired_total": m.TimersFired,
		"gobpm_incidents_opened_total": m.IncidentsOpened, "gobpm_instances_deleted_total": m.InstancesDeleted,
		"gobpm_stale_steps_total": m.StaleSteps, "gobpm_step_collisions_total": m.Collisions,
		"gobpm_deploy_dir_deployments_total": m.FolderDeployments, "gobpm_deploy_dir_refusals_total": m.FolderRefusals,
	} {
		if got := e.value(t, name); got != float64(want) {
			t.Errorf("%s = %v, want %d", name, got, want)
		}
	}
	if e.value(t, "gobpm_instances_started_total") != 2 || e.value(t, "gobpm_jobs_activated_total") != 1 ||
		e.value(t, "gobpm_instances_ended_total") != 0 || e.value(t, "gobpm_steps_committed_total") < 2 {
		t.Errorf("counters do not reflect two starts and one activation: %v", e.byKey)
	}
	if c, s := e.value(t, "gobpm_commit_batches_total"), e.value(t, "gobpm_steps_committed_total"); c < 1 || c > s {
		t.Errorf("commit batches %v for %v steps", c, s)
	}
	// Every committed batch was one timed transaction (failed ones count too).
	if n, c := e.value(t, "gobpm_commit_duration_seconds_count"), e.value(t, "gobpm_commit_batches_total"); n < c || n != float64(m.Commits.Count) {
		t.Errorf("commit durations counted %v for %v batches (runtime: %d)", n, c, m.Commits.Count)
	}

	// Both instances wait at the job (one of them locked).
	var waits []string
	for _, s := range e.samples {
		if s.name == "gobpm_open_waits" {
			waits = append(waits, s.labels["kind"])
		}
	}
	counts, err := rt.WaitCounts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.IsSorted(waits) || len(waits) != len(counts) {
		t.Errorf("open-wait kinds %v, want the sorted kinds of %v", waits, counts)
	}
	for kind, n := range counts {
		if got := e.value(t, `gobpm_open_waits{kind="`+kind+`"}`); got != float64(n) {
			t.Errorf("open waits of %s = %v, want %d", kind, got, n)
		}
	}
	if counts[runtime.WaitJob] != 2 {
		t.Errorf("wait counts %v, want 2 jobs", counts)
	}

	// The requests, by route pattern.
	for key, want := range map[string]float64{
		`gobpm_http_requests_total{code="201",method="POST",route="/api/v1/deployments"}`:                    1,
		`gobpm_http_requests_total{code="201",method="POST",route="/api/v1/processes/{key}/instances"}`:      2,
		`gobpm_http_requests_total{code="200",method="POST",route="/api/v1/jobs/activate"}`:                  1,
		`gobpm_http_requests_total{code="200",method="GET",route="/api/v1/instances/{id}"}`:                  2,
		`gobpm_http_requests_total{code="404",method="GET",route="/api/v1/instances/{id}"}`:                  1,
		`gobpm_http_requests_total{code="404",method="GET",route="unmatched"}`:                               1,
		`gobpm_http_request_duration_seconds_count{method="POST",route="/api/v1/processes/{key}/instances"}`: 2,
		`gobpm_http_request_duration_seconds_count{method="GET",route="/api/v1/instances/{id}"}`:             3,
	} {
		if got := e.value(t, key); got != want {
			t.Errorf("%s = %v, want %v", key, got, want)
		}
	}
	var total float64
	for _, s := range e.samples {
		if s.name == "gobpm_http_requests_total" {
			total += s.value
			for _, id := range ids {
				if strings.Contains(s.labels["route"], id) {
					t.Errorf("a raw path became a route label: %s", s.key())
				}
			}
		}
	}
	if total != 8 { // the scrape counts itself only after it answered
		t.Errorf("%v requests counted, want 8", total)
	}

	if g := e.value(t, "go_goroutines"); g < 1 {
		t.Errorf("go_goroutines = %v", g)
	}
	if st := e.value(t, "process_start_time_seconds"); st > float64(before.Unix())+1 || st < float64(before.Add(-24*time.Hour).Unix()) {
		t.Errorf("process_start_time_seconds = %v, test began at %d", st, before.Unix())
	}

	// A second scrape sees the first.
	again := b.scrape(t)
	if got := again.value(t, `gobpm_http_requests_total{code="200",method="GET",route="/metrics"}`); got != 1 {
		t.Errorf("first scrape counted %v times", got)
	}
}

// TestMetricsIsNotTheCockpits checks that /metrics is the API's even with a
// cockpit fallback that would answer every other path, and that the
// fallback's requests are counted too.
func TestMetricsIsNotTheCockpits(t *testing.T) {
	t.Parallel()
	cockpit := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte("<html>cockpit</html>"))
	})
	b := setup(t, newFake(), api.Options{Fallback: cockpit})
	// The cockpit's pages are outside the contract: serve them directly.
	rec := httptest.NewRecorder()
	b.handler.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/instances", nil))
	if rec.Code != http.StatusOK || rec.Body.String() != "<html>cockpit</html>" {
		t.Fatalf("fallback answered %d %s", rec.Code, rec.Body)
	}
	b.send(http.MethodDelete, "/healthz", "", "").problem(t, http.StatusMethodNotAllowed, "method-not-allowed")
	b.send(http.MethodPost, "/metrics", "", "").problem(t, http.StatusMethodNotAllowed, "method-not-allowed")
	e := b.scrape(t)
	for key, want := range map[string]float64{
		"gobpm_steps_committed_total": 7, "gobpm_commit_batches_total": 3, "gobpm_instances_started_total": 2,
		"gobpm_instances_ended_total": 1, "gobpm_jobs_activated_total": 4, "gobpm_timers_fired_total": 5,
		"gobpm_incidents_opened_total": 6,
		`gobpm_open_waits{kind="job"}`: 2, `gobpm_open_waits{kind="task"}`: 4,
		// A plain (non-chi) fallback has no route pattern.
		`gobpm_http_requests_total{code="200",method="GET",route="unmatched"}`:    1,
		`gobpm_http_requests_total{code="405",method="DELETE",route="unmatched"}`: 1,
		`gobpm_http_requests_total{code="405",method="POST",route="unmatched"}`:   1,
	} {
		if got := e.value(t, key); got != want {
			t.Errorf("%s = %v, want %v", key, got, want)
		}
	}
}

// TestMetricsStoreFailure: a store that cannot count waits is a 500 problem,
// logged once, not a partial scrape.
func TestMetricsStoreFailure(t *testing.T) {
	t.Parallel()
	b := setup(t, brokenStore{newFake()}, api.Options{})
	b.get("/metrics").problem(t, http.StatusInternalServerError, "internal")
	var logged int
	for _, rec := range b.logs.records(t) {
		if rec["level"] == "ERROR" && strings.Contains(fmt.Sprint(rec["error"]), "disk I/O error") {
			logged++
		}
	}
	if logged != 1 {
		t.Errorf("the store error was logged %d times", logged)
	}
}

// TestMetricsLabelValuesAreEscaped: a wait kind with a quote, a backslash and
// a line feed still gives one parsable sample line.
func TestMetricsLabelValuesAreEscaped(t *testing.T) {
	t.Parallel()
	odd := "a\"b\\c\nd"
	b := setup(t, oddKinds{newFake(), odd}, api.Options{})
	e := b.scrape(t)
	if _, ok := e.types["gobpm_http_request_duration_seconds"]; !ok {
		t.Error("an empty histogram lost its HELP and TYPE")
	}
	if got := e.value(t, sample{name: "gobpm_open_waits", labels: map[string]string{"kind": odd}}.key()); got != 3 {
		t.Errorf("odd kind = %v", got)
	}
}

// oddKinds reports one wait kind with characters the format must escape.
type oddKinds struct {
	*fakeService
	kind string
}

func (o oddKinds) WaitCounts(context.Context) (map[string]int, error) {
	return map[string]int{o.kind: 3}, nil
}
