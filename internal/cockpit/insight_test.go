package cockpit_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/gobpm/gobpm/internal/api"
	"github.com/gobpm/gobpm/internal/clock"
	"github.com/gobpm/gobpm/internal/cockpit"
	"github.com/gobpm/gobpm/internal/runtime"
	"github.com/gobpm/gobpm/internal/store/sqlite"
)

// insightStart is when the seeded instances of setupInsight start.
var insightStart = time.Date(2026, 11, 2, 10, 0, 0, 0, time.UTC)

// setupInsight serves the cockpit over a runtime on a manual clock with
// two versions of the insight process and known history:
//
//   - v1: four instances started at insightStart; the task "check" of one
//     completes after 1 minute without an amount (an incident at the
//     gateway "route"), of the others after 2, 4 and 8 minutes (they end);
//   - v2: two instances whose task completes after 30 and 60 minutes.
//
// It returns the bundle and the v1 instances (the failed one first, then
// by the time their task took).
func setupInsight(t testing.TB) (*bundle, []runtime.InstanceID) {
	t.Helper()
	ctx := context.Background()
	db, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "gobpm.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rt := runtime.New(db, runtime.Options{ManualClock: clock.NewManual(insightStart)})
	h := api.New(rt, nil, api.Options{Fallback: cockpit.New(rt, nil, cockpit.Options{})})
	srv := httptest.NewServer(h)
	jar, _ := cookiejar.New(nil)
	b := &bundle{t: t, db: db, rt: rt, srv: srv, client: &http.Client{Jar: jar}}
	t.Cleanup(func() {
		rt.BeginShutdown()
		srv.Close()
		if err := rt.Close(); err != nil {
			t.Error(err)
		}
		if err := db.Close(); err != nil {
			t.Error(err)
		}
	})
	b.deploy("insight.bpmn")
	var v1 []runtime.InstanceID
	for range 4 {
		v1 = append(v1, b.start("insight", "", nil).ID)
	}
	complete := func(at time.Duration, id runtime.InstanceID, vars map[string]any) {
		t.Helper()
		if _, err := rt.SetClock(ctx, insightStart.Add(at)); err != nil {
			t.Fatal(err)
		}
		tasks, _, err := rt.Tasks(ctx, runtime.TaskFilter{Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		for _, task := range tasks {
			if task.InstanceID == id {
				if err := rt.CompleteTask(ctx, task.ID, runtime.Actor{User: "ann"}, vars); err != nil {
					t.Fatal(err)
				}
				return
			}
		}
		t.Fatalf("no task of %s", id)
	}
	complete(time.Minute, v1[0], nil)
	for i, d := range []time.Duration{2, 4, 8} {
		complete(d*time.Minute, v1[i+1], map[string]any{"amount": 5})
	}
	v2xml := bytes.Replace(fixture(t, "insight.bpmn"), []byte("Check the order"), []byte("Check the order again"), 1)
	if _, err := rt.Deploy(ctx, []runtime.File{{Name: "insight.bpmn", Content: v2xml}}); err != nil {
		t.Fatal(err)
	}
	var v2 []runtime.InstanceID
	for range 2 {
		v2 = append(v2, b.start("insight", "", nil).ID)
	}
	complete(38*time.Minute, v2[0], map[string]any{"amount": 5})
	complete(68*time.Minute, v2[1], map[string]any{"amount": 5})
	if _, err := rt.SetClock(ctx, insightStart.Add(90*time.Minute)); err != nil {
		t.Fatal(err)
	}
	return b, v1
}

// apiStatistics reads the JSON API's statistics of insight over the last
// 24 hours of the manual clock, numbers as written.
func apiStatistics(t *testing.T, b *bundle, version string) map[string]map[string]any {
	t.Helper()
	now := insightStart.Add(90 * time.Minute)
	q := url.Values{"from": {now.Add(-24 * time.Hour).Format(time.RFC3339)}, "to": {now.Format(time.RFC3339)}, "version": {version}}
	res, err := b.client.Get(b.srv.URL + "/api/v1/processes/insight/statistics?" + q.Encode())
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("statistics: %s", res.Status)
	}
	var body struct {
		Elements []map[string]any `json:"elements"`
	}
	dec := json.NewDecoder(res.Body)
	dec.UseNumber()
	if err := dec.Decode(&body); err != nil {
		t.Fatal(err)
	}
	out := map[string]map[string]any{}
	for _, e := range body.Elements {
		out[e["nodeId"].(string)] = e
	}
	return out
}

// apiNumber reads a number of an API answer: field, or kind.field.
func apiNumber(e map[string]any, path string) string {
	var v any = e
	for _, p := range strings.Split(path, ".") {
		v = v.(map[string]any)[p]
	}
	return v.(json.Number).String()
}

// The process page shows the element statistics as the JSON API answers
// them, with the heatmap data, a timeline chart with an accessible name
// and its data table, and the drill-down into an element.
func TestProcessInsightNumbersMatchTheAPI(t *testing.T) {
	t.Parallel()
	b, v1 := setupInsight(t)

	p := b.mustGet("/processes/insight?version=1&stats=1&period=24h&overlay=active-p90")
	stats := apiStatistics(t, b, "1")
	for node, cols := range map[string]map[string]string{
		"check": {"stat-activations": "activations", "stat-completions": "completions", "stat-active-p50": "active.p50Ms",
			"stat-active-p90": "active.p90Ms", "stat-active-max": "active.maxMs", "stat-wait-p50": "wait.p50Ms"},
		"route": {"stat-activations": "activations", "stat-incidents": "incidents"},
	} {
		row := p.doc.Find(`[data-testid="insight-element"][data-node="` + node + `"]`)
		if row.Length() != 1 {
			t.Fatalf("no row of %s:\n%s", node, p.body)
		}
		for testid, field := range cols {
			cell := row.Find(`[data-testid="` + testid + `"]`)
			got := cell.AttrOr("value", strings.TrimSpace(cell.Text()))
			if want := apiNumber(stats[node], field); got != want {
				t.Errorf("%s %s: %q, the API answers %q", node, testid, got, want)
			}
		}
	}
	check := p.doc.Find(`[data-testid="insight-element"][data-node="check"]`)
	if got := strings.TrimSpace(check.Find(`[data-testid="stat-activations"]`).Text()); got != "4" {
		t.Errorf("check activations %q, want 4", got)
	}
	route := p.doc.Find(`[data-testid="insight-element"][data-node="route"]`)
	if got := route.Find(`[data-testid="stat-incident-rate"]`).AttrOr("value", ""); got != "0.25" {
		t.Errorf("route incident rate %q, want 0.25", got)
	}
	if got := p.text("total-starts"); got != "4" {
		t.Errorf("starts %q, want 4", got)
	}

	var heat struct {
		Selected string `json:"selected"`
		Kinds    map[string][]struct {
			ID    string `json:"id"`
			Text  string `json:"text"`
			Level int    `json:"level"`
		} `json:"kinds"`
	}
	if err := json.Unmarshal([]byte(p.testid("heatmap-data").AttrOr("data-heatmap", "")), &heat); err != nil {
		t.Fatal(err)
	}
	if heat.Selected != "active-p90" || len(heat.Kinds["count"]) == 0 || len(heat.Kinds["incidents"]) == 0 {
		t.Errorf("heatmap %+v", heat)
	}
	if p.testid("overlay-choice-active-p90").AttrOr("checked", "no") == "no" {
		t.Error("the selected overlay is not checked")
	}
	shown := p.doc.Find(`[data-testid="heatmap-legend"]:not([hidden])`)
	if shown.Length() != 1 || shown.AttrOr("data-kind", "") != "active-p90" || shown.Find(`[data-testid="legend-step"]`).Length() != 5 {
		t.Errorf("legend shown: %d, %s", shown.Length(), shown.AttrOr("data-kind", ""))
	}

	svg := p.testid("timeline-svg")
	if svg.AttrOr("role", "") != "img" || svg.Find("title").First().Text() == "" || svg.Find("desc").Text() == "" || svg.Find("rect").Length() == 0 {
		t.Errorf("timeline svg: role %q, %d rects", svg.AttrOr("role", ""), svg.Find("rect").Length())
	}
	for _, id := range strings.Fields(svg.AttrOr("aria-labelledby", "")) {
		if p.doc.Find("#"+id).Length() != 1 {
			t.Errorf("aria-labelledby %s names nothing", id)
		}
	}
	if rows := p.testid("timeline-row"); rows.Length() != 1 || !strings.Contains(rows.Text(), "4") {
		t.Errorf("timeline table: %d rows %q", rows.Length(), rows.Text())
	}

	// The drill-down: the slowest instances at check, the failed at route.
	d := b.mustGet(p.doc.Find(`[data-testid="insight-element"][data-node="check"] [data-testid="insight-element-link"]`).AttrOr("href", ""))
	slow := d.testid("slowest-run")
	if slow.Length() != 4 || slow.First().AttrOr("data-instance", "") != string(v1[3]) || slow.Last().AttrOr("data-instance", "") != string(v1[0]) {
		t.Errorf("slowest at check: %d, first %s", slow.Length(), slow.First().AttrOr("data-instance", ""))
	}
	if got := strings.TrimSpace(slow.First().Find(`[data-testid="run-active"]`).Text()); got != "8 min" {
		t.Errorf("slowest took %q, want 8 min", got)
	}
	if h := d.testid("histogram-active-svg"); h.AttrOr("role", "") != "img" || h.Find("rect").Length() == 0 {
		t.Errorf("histogram: %s", d.testid("histogram-active").Text())
	}
	var sum int
	d.testid("histogram-active-row").Each(func(_ int, s *goquery.Selection) {
		n, _ := strconv.Atoi(strings.TrimSpace(s.Find("td").Last().Text()))
		sum += n
	})
	if sum != 4 {
		t.Errorf("histogram counts add up to %d, want 4", sum)
	}
	r := b.mustGet("/processes/insight?version=1&stats=1&period=24h&element=route")
	failed := r.testid("failed-run")
	if failed.Length() != 1 || failed.AttrOr("data-instance", "") != string(v1[0]) {
		t.Errorf("failed at route: %d %q", failed.Length(), failed.Text())
	}
	if href := failed.Find(`[data-testid="run-link"]`).AttrOr("href", ""); href != "/instances/"+string(v1[0]) {
		t.Errorf("failed instance link %q", href)
	}

	// Every version counted: six starts.
	all := b.mustGet("/processes/insight?stats=all&period=24h")
	if got := all.text("total-starts"); got != "6" {
		t.Errorf("all versions: %q starts, want 6", got)
	}
	// The default period, 7 days, draws the timeline per day.
	week := b.mustGet("/processes/insight")
	if got := week.doc.Find(`[data-testid="timeline"] figcaption`).Text(); got != "Instances per day" {
		t.Errorf("default timeline %q", got)
	}
	if rows := week.testid("timeline-row"); rows.Length() != 1 || week.text("insight-stats") == "" {
		t.Errorf("default timeline: %d rows", rows.Length())
	}
	if got := week.doc.Find(`[data-testid="insight-stats"] option[selected]`).AttrOr("value", ""); got != "2" {
		t.Errorf("versions counted by default %q, want the page's version 2", got)
	}
	// A bad period is explained, and the page still answers.
	bad := b.mustGet("/processes/insight?period=custom&from=yesterday")
	if !strings.Contains(bad.text("insight-error"), "From must be a day") {
		t.Errorf("bad period: %q", bad.text("insight-error"))
	}
}

// The compare page shows both versions' numbers side by side, as the API
// answers each, with the differences marked.
func TestProcessCompareVersions(t *testing.T) {
	t.Parallel()
	b, _ := setupInsight(t)
	p := b.mustGet("/processes/insight?period=24h")
	link := p.testid("compare-link").AttrOr("href", "")
	if !strings.Contains(link, "a=1") || !strings.Contains(link, "b=2") {
		t.Fatalf("compare link %q", link)
	}
	c := b.mustGet(link)
	s1, s2 := apiStatistics(t, b, "1"), apiStatistics(t, b, "2")
	row := c.doc.Find(`[data-testid="compare-elements"] [data-testid="compare-row"][data-node="check"]`)
	a, bb := row.Find(`[data-testid="compare-a-value"]`), row.Find(`[data-testid="compare-b-value"]`)
	if a.Length() != 7 || bb.Length() != 7 {
		t.Fatalf("check row: %d and %d cells\n%s", a.Length(), bb.Length(), c.body)
	}
	for i, field := range map[int]string{0: "activations", 3: "active.p50Ms", 4: "active.p90Ms"} {
		if got, want := a.Eq(i).AttrOr("value", ""), apiNumber(s1["check"], field); got != want {
			t.Errorf("v1 %s %q, API %q", field, got, want)
		}
		if got, want := bb.Eq(i).AttrOr("value", ""), apiNumber(s2["check"], field); got != want {
			t.Errorf("v2 %s %q, API %q", field, got, want)
		}
	}
	// v2's task takes longer: worse.
	if cell := row.Find("td.compare-b").Eq(3); !cell.HasClass("trend-worse") || !strings.Contains(cell.Find(`[data-testid="compare-diff"]`).Text(), "+") {
		t.Errorf("active p50 of v2: %q", cell.Text())
	}
	// v2 had no incident at route: better.
	route := c.doc.Find(`[data-testid="compare-elements"] [data-testid="compare-row"][data-node="route"]`)
	if !route.Find("td.compare-b").Eq(1).HasClass("trend-better") {
		t.Errorf("route incidents: %q", route.Text())
	}
	if got := c.doc.Find(`[data-testid="compare-process"] [data-node="starts"] [data-testid="compare-b-value"]`).AttrOr("value", ""); got != "2" {
		t.Errorf("v2 starts %q", got)
	}
	// ?compare=A,B on the process page leads to the same page.
	if alias := b.mustGet("/processes/insight?compare=1,2&period=24h"); !strings.HasPrefix(alias.url, "/processes/insight/compare?") ||
		alias.doc.Find(`[data-testid="compare-row"][data-node="check"]`).Length() != 1 {
		t.Errorf("compare=1,2 answers %s", alias.url)
	}
	if bad := b.get("/processes/insight?compare=1"); bad.status != http.StatusBadRequest {
		t.Errorf("compare=1 answers %d", bad.status)
	}
	if bad := b.get("/processes/insight/compare?a=x"); bad.status != http.StatusBadRequest {
		t.Errorf("a bad version answers %d", bad.status)
	}
}
