package api_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/gobpm/gobpm/internal/api"
	"github.com/gobpm/gobpm/internal/runtime"
	"github.com/gobpm/gobpm/internal/testdb"
)

// grafanaDashboard is the part of a Grafana dashboard the test reads.
type grafanaDashboard struct {
	Title         string `json:"title"`
	UID           string `json:"uid"`
	SchemaVersion int    `json:"schemaVersion"`
	Templating    struct {
		List []struct {
			Name       string          `json:"name"`
			Type       string          `json:"type"`
			Definition string          `json:"definition"`
			Query      json.RawMessage `json:"query"`
		} `json:"list"`
	} `json:"templating"`
	Panels []struct {
		ID      int    `json:"id"`
		Type    string `json:"type"`
		Title   string `json:"title"`
		GridPos struct {
			H, W, X, Y int
		} `json:"gridPos"`
		Targets []struct {
			RefID string `json:"refId"`
			Expr  string `json:"expr"`
		} `json:"targets"`
	} `json:"panels"`
}

// metricName finds the metric names a PromQL expression uses: the gobpm_
// and go_ identifiers and process_start_time_seconds (no label is spelled
// so).
var metricName = regexp.MustCompile(`\b(?:(?:gobpm|go)_[a-zA-Z0-9_]+|process_start_time_seconds)\b`)

// TestGrafanaDashboard keeps docs/grafana/gobpm-dashboard.json true: it is
// a dashboard Grafana can import, and every series its queries and
// variables name is a family (or a histogram's bucket, sum or count) that
// /metrics serves.
func TestGrafanaDashboard(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile(filepath.Join("..", "..", "docs", "grafana", "gobpm-dashboard.json"))
	if err != nil {
		t.Fatal(err)
	}
	var d grafanaDashboard
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	if err := dec.Decode(&d); err != nil {
		t.Fatalf("the dashboard is not JSON: %v", err)
	}
	if d.Title == "" || d.UID == "" || d.SchemaVersion < 30 || len(d.Panels) == 0 {
		t.Fatalf("not a dashboard: title %q, uid %q, schemaVersion %d, %d panels", d.Title, d.UID, d.SchemaVersion, len(d.Panels))
	}

	// A scrape of a real runtime has every family (with or without series).
	ctx := context.Background()
	db, err := testdb.Open(ctx, testdb.DSN(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	rt := runtime.New(db, runtime.Options{})
	t.Cleanup(func() { _ = rt.Close() })
	e := setup(t, rt, api.Options{}).scrape(t)
	served := func(name string) bool {
		if e.types[name] != "" {
			return true
		}
		for _, suffix := range []string{"_bucket", "_sum", "_count"} {
			if base, ok := strings.CutSuffix(name, suffix); ok && e.types[base] == "histogram" {
				return true
			}
		}
		return false
	}

	var exprs []string
	ids := map[int]bool{}
	for _, p := range d.Panels {
		if p.Title == "" || p.Type == "" || ids[p.ID] || p.GridPos.W < 1 || p.GridPos.H < 1 || len(p.Targets) == 0 {
			t.Errorf("panel %d %q (%s) lacks a unique id, title, type, size or query", p.ID, p.Title, p.Type)
		}
		ids[p.ID] = true
		for _, tg := range p.Targets {
			if tg.Expr == "" || tg.RefID == "" {
				t.Errorf("panel %q: a target without expr or refId", p.Title)
			}
			exprs = append(exprs, tg.Expr)
		}
	}
	for _, v := range d.Templating.List {
		exprs = append(exprs, v.Definition, string(v.Query))
	}
	var used []string
	for _, x := range exprs {
		for _, name := range metricName.FindAllString(x, -1) {
			if !slices.Contains(used, name) {
				used = append(used, name)
			}
			if !served(name) {
				t.Errorf("the dashboard queries %s, which /metrics does not serve (in %s)", name, x)
			}
		}
	}
	// The dashboard shows what it promises.
	for _, name := range []string{"gobpm_process_instances_started_total", "gobpm_process_instances_ended_total",
		"gobpm_process_incidents_open", "gobpm_job_activations_total", "gobpm_job_completions_total",
		"gobpm_step_duration_seconds_bucket", "gobpm_commit_duration_seconds_bucket"} {
		if !slices.Contains(used, name) {
			t.Errorf("the dashboard does not query %s", name)
		}
	}
}
