package api

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/gobpm/gobpm/internal/runtime"
)

// Element statistics (docs/statistics.md): GET …/statistics and
// …/statistics/timeline read the runtime's rollups for a period and a
// version (or all). Two versions compare with one call each.

// Durations is the distribution of one kind of duration in milliseconds:
// percentiles within Precision of the exact values, Max exact.
type Durations struct {
	Count int64   `json:"count"`
	P50   float64 `json:"p50Ms"`
	P90   float64 `json:"p90Ms"`
	P99   float64 `json:"p99Ms"`
	Max   float64 `json:"maxMs"`
}

// ElementStatistics are one element's numbers over the period.
type ElementStatistics struct {
	NodeID        string    `json:"nodeId"`
	Activations   int64     `json:"activations"`
	Completions   int64     `json:"completions"`
	Incidents     int64     `json:"incidents"`
	Cancellations int64     `json:"cancellations"`
	Active        Durations `json:"active"`
	Wait          Durations `json:"wait"`
}

// ProcessStatistics is the answer of GET /api/v1/processes/{key}/statistics.
type ProcessStatistics struct {
	Key string `json:"key"`
	// Version is the version counted; 0 for all of them.
	Version int       `json:"version"`
	From    time.Time `json:"from"`
	To      time.Time `json:"to"`
	// Precision is the relative error of the percentiles (0.05: 5 %).
	Precision     float64             `json:"precision"`
	Starts        int64               `json:"starts"`
	Completions   int64               `json:"completions"`
	Cancellations int64               `json:"cancellations"`
	Failures      int64               `json:"failures"`
	Incidents     int64               `json:"incidents"`
	Duration      Durations           `json:"duration"`
	Elements      []ElementStatistics `json:"elements"`
}

// TimelineEntry is one hour or day of a process's timeline.
type TimelineEntry struct {
	Start         time.Time `json:"start"`
	Starts        int64     `json:"starts"`
	Completions   int64     `json:"completions"`
	Cancellations int64     `json:"cancellations"`
	Failures      int64     `json:"failures"`
	Incidents     int64     `json:"incidents"`
	Duration      Durations `json:"duration"`
}

// StatisticsTimeline is the answer of GET
// /api/v1/processes/{key}/statistics/timeline.
type StatisticsTimeline struct {
	Key       string          `json:"key"`
	Version   int             `json:"version"`
	Bucket    string          `json:"bucket"`
	From      time.Time       `json:"from"`
	To        time.Time       `json:"to"`
	Precision float64         `json:"precision"`
	Items     []TimelineEntry `json:"items"`
}

// toDurations maps a runtime distribution.
func toDurations(d runtime.DurationStats) Durations {
	return Durations{Count: d.Count, P50: d.P50, P90: d.P90, P99: d.P99, Max: d.Max}
}

// statsFilter reads the key, from, to and version parameters.
func statsFilter(r *http.Request) (runtime.StatsFilter, error) {
	f := runtime.StatsFilter{ProcessKey: chi.URLParam(r, "key")}
	for _, p := range []struct {
		name string
		dst  *time.Time
	}{{"from", &f.From}, {"to", &f.To}} {
		t, err := queryTime(r, p.name)
		if err != nil {
			return f, err
		}
		*p.dst = t
	}
	if raw := r.URL.Query().Get("version"); raw != "" && !strings.EqualFold(raw, "all") {
		v, err := strconv.Atoi(raw)
		if err != nil || v < 1 {
			return f, errorf(kindInvalidRequest, "version", "version must be a positive integer or all, not "+strconv.Quote(raw))
		}
		f.Version = v
	}
	if !f.From.IsZero() && !f.To.IsZero() && !f.From.Before(f.To) {
		return f, errorf(kindInvalidRequest, "from", "from must be before to")
	}
	return f, nil
}

// statistics handles GET /api/v1/processes/{key}/statistics.
func (s *server) statistics(w http.ResponseWriter, r *http.Request) error {
	f, err := statsFilter(r)
	if err != nil {
		return err
	}
	st, err := s.svc.Statistics(r.Context(), f)
	if err != nil {
		return err
	}
	out := ProcessStatistics{Key: st.Key, Version: st.Version, From: st.From, To: st.To, Precision: runtime.StatsPrecision,
		Starts: st.Starts, Completions: st.Completions, Cancellations: st.Cancellations, Failures: st.Failures,
		Incidents: st.Incidents, Duration: toDurations(st.Duration), Elements: make([]ElementStatistics, 0, len(st.Elements))}
	for _, e := range st.Elements {
		out.Elements = append(out.Elements, ElementStatistics{NodeID: e.NodeID, Activations: e.Activations,
			Completions: e.Completions, Incidents: e.Incidents, Cancellations: e.Cancellations,
			Active: toDurations(e.Active), Wait: toDurations(e.Wait)})
	}
	s.writeJSON(w, r, http.StatusOK, out)
	return nil
}

// statisticsTimeline handles GET /api/v1/processes/{key}/statistics/timeline.
func (s *server) statisticsTimeline(w http.ResponseWriter, r *http.Request) error {
	f, err := statsFilter(r)
	if err != nil {
		return err
	}
	bucket := r.URL.Query().Get("bucket")
	switch bucket {
	case "":
		bucket = runtime.BucketHour
	case runtime.BucketHour, runtime.BucketDay:
	default:
		return errorf(kindInvalidRequest, "bucket", "bucket must be hour or day, not "+strconv.Quote(bucket))
	}
	tl, err := s.svc.StatisticsTimeline(r.Context(), f, bucket)
	if err != nil {
		return err
	}
	out := StatisticsTimeline{Key: tl.Key, Version: tl.Version, Bucket: tl.Bucket, From: tl.From, To: tl.To,
		Precision: runtime.StatsPrecision, Items: make([]TimelineEntry, 0, len(tl.Buckets))}
	for _, b := range tl.Buckets {
		out.Items = append(out.Items, TimelineEntry{Start: b.Start, Starts: b.Starts, Completions: b.Completions,
			Cancellations: b.Cancellations, Failures: b.Failures, Incidents: b.Incidents, Duration: toDurations(b.Duration)})
	}
	s.writeJSON(w, r, http.StatusOK, out)
	return nil
}
