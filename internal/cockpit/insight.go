package cockpit

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/gobpm/gobpm/internal/runtime"
	"github.com/gobpm/gobpm/web/templates"
)

// Process insight (docs/statistics.md): the process page's heatmaps,
// element table, timeline and drill-down, and the compare page. Every
// number is read from the runtime functions the JSON API reads
// (Statistics, StatisticsTimeline) and shown as the API answers it; the
// cockpit only lays them out.

// detailRuns is how many slowest and failed instances a drill-down lists.
const detailRuns = 10

// insightDay is the layout of the period form's from and to days.
const insightDay = "2006-01-02"

// insightQuery reads the statistics form of the process page or the
// compare page into a filter for the runtime, with the form as sent
// (defaults filled in); stats is the version counted by default.
func (h *handler) insightQuery(q url.Values, stats string) (templates.InsightFilter, runtime.StatsFilter, error) {
	in := templates.InsightFilter{Period: q.Get("period"), From: q.Get("from"), To: q.Get("to"),
		Stats: q.Get("stats"), Overlay: q.Get("overlay"), Element: q.Get("element")}
	var f runtime.StatsFilter
	if in.Period == "" {
		in.Period = templates.Period7d
		if in.From != "" || in.To != "" {
			in.Period = templates.PeriodCustom
		}
	}
	now := h.svc.Clock().Now.UTC()
	switch in.Period {
	case templates.Period24h:
		f.From, f.To = now.Add(-24*time.Hour), now
	case templates.Period7d:
		f.From, f.To = now.Add(-7*24*time.Hour), now
	case templates.Period30d:
		f.From, f.To = now.Add(-30*24*time.Hour), now
	case templates.PeriodCustom:
		from, err := time.Parse(insightDay, in.From)
		if err != nil {
			return in, f, fmt.Errorf("From must be a day such as %s.", now.Format(insightDay))
		}
		f.From, f.To = from, now
		if in.To != "" {
			to, err := time.Parse(insightDay, in.To)
			if err != nil {
				return in, f, fmt.Errorf("To must be a day such as %s.", now.Format(insightDay))
			}
			f.To = to.Add(24 * time.Hour)
		}
		if !f.From.Before(f.To) {
			return in, f, errors.New("From must be before To.")
		}
	default:
		return in, f, fmt.Errorf("The period must be 24h, 7d, 30d or custom, not %q.", in.Period)
	}
	if in.Stats == "" {
		in.Stats = stats
	}
	if in.Stats != "all" {
		v, ok := version(in.Stats)
		if !ok || v == 0 {
			return in, f, fmt.Errorf("The versions counted must be all or a version number, not %q.", in.Stats)
		}
		f.Version = v
	}
	switch in.Overlay {
	case "":
		in.Overlay = templates.OverlayNone
	case templates.OverlayNone, templates.OverlayCount, templates.OverlayActiveP50, templates.OverlayActiveP90,
		templates.OverlayWaitP50, templates.OverlayWaitP90, templates.OverlayIncidents:
	default:
		return in, f, fmt.Errorf("The heatmap %q is not one of the choices.", in.Overlay)
	}
	return in, f, nil
}

// processInsight reads the statistics part of the process page of key at
// version v: nil when the store keeps no statistics.
func (h *handler) processInsight(r *http.Request, key string, v int, versions []int, names map[string]string) (*templates.Insight, error) {
	ctx := r.Context()
	in := &templates.Insight{Key: key, Version: v, Versions: versions, Precision: percent(runtime.StatsPrecision)}
	var f runtime.StatsFilter
	var err error
	in.Filter, f, err = h.insightQuery(r.URL.Query(), strconv.Itoa(v))
	if err != nil {
		in.Error = err.Error()
		return in, nil
	}
	f.ProcessKey = key
	st, err := h.svc.Statistics(ctx, f)
	switch {
	case err == nil:
	case runtime.ErrorCode(err) == runtime.EINVALID:
		if strings.Contains(err.Error(), "keeps no statistics") {
			return nil, nil
		}
		in.Error = h.plain(r, err)
		return in, nil
	case runtime.ErrorCode(err) == runtime.ENOTFOUND:
		in.Error = h.plain(r, err)
		return in, nil
	default:
		return nil, err
	}
	in.Range = periodText(st.From, st.To)
	in.Process = templates.InsightProcess{Starts: st.Starts, Completions: st.Completions, Cancellations: st.Cancellations,
		Failures: st.Failures, Incidents: st.Incidents,
		DurationP50: msNum(st.Duration.P50, st.Duration.Count), DurationP90: msNum(st.Duration.P90, st.Duration.Count),
		DurationMax: msNum(st.Duration.Max, st.Duration.Count)}
	for _, e := range st.Elements {
		in.Elements = append(in.Elements, templates.InsightElement{NodeID: e.NodeID, Name: names[e.NodeID],
			Activations: e.Activations, Completions: e.Completions, Incidents: e.Incidents, Cancellations: e.Cancellations,
			IncidentRate: rateNum(e), ActiveCount: e.Active.Count, WaitCount: e.Wait.Count,
			ActiveP50: msNum(e.Active.P50, e.Active.Count), ActiveP90: msNum(e.Active.P90, e.Active.Count),
			ActiveP99: msNum(e.Active.P99, e.Active.Count), ActiveMax: msNum(e.Active.Max, e.Active.Count),
			WaitP50: msNum(e.Wait.P50, e.Wait.Count), WaitP90: msNum(e.Wait.P90, e.Wait.Count),
			URL: templates.InsightElementURL(key, v, in.Filter, e.NodeID)})
	}
	in.Heatmap, in.Legends = heatmap(st.Elements, in.Filter.Overlay)
	bucket := runtime.BucketDay
	if st.To.Sub(st.From) <= 48*time.Hour {
		bucket = runtime.BucketHour
	}
	tl, err := h.svc.StatisticsTimeline(ctx, f, bucket)
	if err != nil {
		return nil, err
	}
	in.Timeline = timelineChart(tl)
	if in.Filter.Element != "" {
		d, err := h.elementDetail(ctx, f, in.Filter.Element, names[in.Filter.Element])
		if err != nil {
			return nil, err
		}
		in.Detail = &d
	}
	return in, nil
}

// elementDetail reads the drill-down into element node.
func (h *handler) elementDetail(ctx context.Context, f runtime.StatsFilter, node, name string) (templates.ElementDetail, error) {
	d := templates.ElementDetail{NodeID: node, Name: name}
	hist, err := h.svc.StatisticsHistogram(ctx, f, node)
	if err != nil {
		return d, err
	}
	label := name
	if label == "" {
		label = node
	}
	d.Active = histogramChart("hist-active", "Active time of "+label, hist.Active)
	d.Wait = histogramChart("hist-wait", "Wait time of "+label, hist.Wait)
	runs, err := h.svc.ElementInstances(ctx, f, node, detailRuns)
	if err != nil {
		return d, err
	}
	d.Scanned, d.Limited = runs.Scanned, runs.Limited
	conv := func(r runtime.ElementRun) templates.ElementRun {
		out := templates.ElementRun{InstanceID: string(r.InstanceID), Number: r.Number, Version: r.ProcessVersion, Status: r.Status,
			Open: r.Open, Incidents: r.Incidents, Message: r.Message}
		if !r.Activated.IsZero() {
			out.Active, out.Activated = readableMS(float64(r.Active.Milliseconds())), r.Activated.UTC().Format("2006-01-02 15:04:05")
		}
		if !r.IncidentAt.IsZero() {
			out.IncidentAt = r.IncidentAt.UTC().Format("2006-01-02 15:04:05")
		}
		return out
	}
	for _, r := range runs.Slowest {
		d.Slowest = append(d.Slowest, conv(r))
	}
	for _, r := range runs.Failed {
		d.Failed = append(d.Failed, conv(r))
	}
	return d, nil
}

// apiNumber is v as the JSON API writes it (encoding/json's shortest
// form, which for these magnitudes has no exponent).
func apiNumber(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// msNum is a duration statistic in milliseconds; none without measures.
func msNum(ms float64, count int64) templates.Num {
	if count == 0 {
		return templates.Num{}
	}
	return templates.Num{Value: apiNumber(ms), Text: readableMS(ms)}
}

// rateNum is an element's incident rate; none without activations.
func rateNum(e runtime.ElementStats) templates.Num {
	if e.Activations == 0 {
		return templates.Num{}
	}
	return templates.Num{Value: apiNumber(e.IncidentRate()), Text: percent(e.IncidentRate())}
}

// percent shows a ratio as a percentage with up to one decimal.
func percent(r float64) string {
	return strconv.FormatFloat(math.Round(r*1000)/10, 'f', -1, 64) + " %"
}

// readableMS shows a duration in milliseconds with three significant
// digits in a fitting unit.
func readableMS(ms float64) string {
	units := []struct {
		size float64
		name string
	}{{86400000, "d"}, {3600000, "h"}, {60000, "min"}, {1000, "s"}}
	for _, u := range units {
		if ms >= u.size {
			return strconv.FormatFloat(ms/u.size, 'g', 3, 64) + " " + u.name
		}
	}
	return strconv.FormatFloat(ms, 'g', 3, 64) + " ms"
}

// periodText shows a period of whole UTC hours.
func periodText(from, to time.Time) string {
	return from.UTC().Format("2006-01-02 15:04") + " to " + to.UTC().Format("2006-01-02 15:04") + " UTC"
}

// heatCell is one element's badge of one overlay.
type heatCell struct {
	ID    string `json:"id"`
	Text  string `json:"text"`
	Level int    `json:"level"`
	Title string `json:"title"`
}

// heatKind describes one overlay: its label, the value it shows of an
// element (ok false when the element has none) and how it is written.
type heatKind struct {
	kind, label string
	value       func(e runtime.ElementStats) (float64, bool)
	text        func(v float64) string
}

// heatKinds lists the overlays.
func heatKinds() []heatKind {
	count := func(v float64) string { return strconv.FormatFloat(v, 'f', 0, 64) }
	dur := func(get func(e runtime.ElementStats) runtime.DurationStats, p90 bool) func(e runtime.ElementStats) (float64, bool) {
		return func(e runtime.ElementStats) (float64, bool) {
			d := get(e)
			if p90 {
				return d.P90, d.Count > 0
			}
			return d.P50, d.Count > 0
		}
	}
	active := func(e runtime.ElementStats) runtime.DurationStats { return e.Active }
	wait := func(e runtime.ElementStats) runtime.DurationStats { return e.Wait }
	return []heatKind{
		{templates.OverlayCount, "Activations", func(e runtime.ElementStats) (float64, bool) { return float64(e.Activations), e.Activations > 0 }, count},
		{templates.OverlayActiveP50, "Active time p50", dur(active, false), readableMS},
		{templates.OverlayActiveP90, "Active time p90", dur(active, true), readableMS},
		{templates.OverlayWaitP50, "Wait time p50", dur(wait, false), readableMS},
		{templates.OverlayWaitP90, "Wait time p90", dur(wait, true), readableMS},
		{templates.OverlayIncidents, "Incident rate", func(e runtime.ElementStats) (float64, bool) { return e.IncidentRate(), e.Activations > 0 }, percent},
	}
}

// heatLevel places v on a scale of templates.HeatLevels colours up to top.
func heatLevel(v, top float64) int {
	if top <= 0 || v <= 0 {
		return 0
	}
	return max(1, min(templates.HeatLevels, int(math.Ceil(v/top*templates.HeatLevels))))
}

// heatmap is the overlay data cockpit.js draws (every overlay, so the
// switch needs no request) and the legends, the one of selected shown.
func heatmap(els []runtime.ElementStats, selected string) (string, []templates.HeatLegend) {
	data := struct {
		Selected string                `json:"selected"`
		Kinds    map[string][]heatCell `json:"kinds"`
	}{Selected: selected, Kinds: map[string][]heatCell{}}
	var legends []templates.HeatLegend
	for _, k := range heatKinds() {
		top := 0.0
		for _, e := range els {
			if v, ok := k.value(e); ok {
				top = max(top, v)
			}
		}
		cells := []heatCell{}
		for _, e := range els {
			v, ok := k.value(e)
			if !ok {
				continue
			}
			cells = append(cells, heatCell{ID: e.NodeID, Text: k.text(v), Level: heatLevel(v, top), Title: k.label + ": " + k.text(v)})
		}
		data.Kinds[k.kind] = cells
		l := templates.HeatLegend{Kind: k.kind, Label: k.label, Selected: k.kind == selected}
		for i := 1; i <= templates.HeatLevels; i++ {
			lo, hi := top*float64(i-1)/templates.HeatLevels, top*float64(i)/templates.HeatLevels
			l.Steps = append(l.Steps, templates.LegendStep{Level: i, Text: k.text(lo) + " – " + k.text(hi)})
		}
		if top == 0 {
			l.Steps = []templates.LegendStep{{Level: 0, Text: "nothing measured in this period"}}
		}
		legends = append(legends, l)
	}
	b, _ := json.Marshal(data)
	return string(b), legends
}

// Chart geometry, in SVG user units.
const (
	chartWidth  = 720
	chartHeight = 220
	chartLeft   = 48
	chartBottom = 30
	chartTop    = 10
)

// fmtUnit writes a coordinate.
func fmtUnit(v float64) string { return strconv.FormatFloat(math.Round(v*10)/10, 'f', -1, 64) }

// timelineChart draws the starts, completions and incidents per bucket
// of a timeline, every bucket of the period with a slot.
func timelineChart(tl runtime.Timeline) templates.Chart {
	size := time.Hour
	layout := "2006-01-02 15:04"
	if tl.Bucket == runtime.BucketDay {
		size, layout = 24*time.Hour, "2006-01-02"
	}
	c := templates.Chart{ID: "timeline", Title: "Instances per " + tl.Bucket, Width: chartWidth, Height: chartHeight,
		Series: []templates.ChartSeries{{Class: "series-starts", Label: "started"}, {Class: "series-completions", Label: "completed"},
			{Class: "series-incidents", Label: "incidents"}},
		Table: templates.ChartTable{Caption: "Instances per " + tl.Bucket + " (UTC); buckets without events are left out",
			Head: []string{"From (UTC)", "Started", "Completed", "Cancelled", "Failed", "Incidents", "Duration p50"}}}
	first := tl.From.Truncate(size)
	n := int(tl.To.Sub(first) / size)
	if tl.To.After(first.Add(time.Duration(n) * size)) {
		n++
	}
	var top int64
	var starts, ends, incidents int64
	for _, b := range tl.Buckets {
		top = max(top, b.Starts, b.Completions, b.Incidents)
		starts, ends, incidents = starts+b.Starts, ends+b.Completions, incidents+b.Incidents
		p50 := "–"
		if b.Duration.Count > 0 {
			p50 = readableMS(b.Duration.P50)
		}
		c.Table.Rows = append(c.Table.Rows, []string{b.Start.UTC().Format(layout), strconv.FormatInt(b.Starts, 10),
			strconv.FormatInt(b.Completions, 10), strconv.FormatInt(b.Cancellations, 10), strconv.FormatInt(b.Failures, 10),
			strconv.FormatInt(b.Incidents, 10), p50})
	}
	c.Desc = fmt.Sprintf("Bar chart of %s to %s UTC per %s: %d started, %d completed, %d incidents in all; the busiest %s had %d.",
		tl.From.UTC().Format(layout), tl.To.UTC().Format(layout), tl.Bucket, starts, ends, incidents, tl.Bucket, top)
	if top == 0 || n <= 0 {
		c.Empty = true
		c.Desc = "No instance started, completed or raised an incident in this period."
		return c
	}
	plotW, plotH := float64(chartWidth-chartLeft-4), float64(chartHeight-chartBottom-chartTop)
	slot := plotW / float64(n)
	bar := slot / 3.5
	y := func(v int64) (float64, float64) {
		h := plotH * float64(v) / float64(top)
		return float64(chartTop) + plotH - h, h
	}
	for _, b := range tl.Buckets {
		i := int(b.Start.Sub(first) / size)
		if i < 0 || i >= n {
			continue
		}
		x0 := float64(chartLeft) + slot*float64(i) + slot/8
		for j, s := range []struct {
			v     int64
			class string
			what  string
		}{{b.Starts, "series-starts", "started"}, {b.Completions, "series-completions", "completed"}, {b.Incidents, "series-incidents", "incidents"}} {
			if s.v == 0 {
				continue
			}
			yy, h := y(s.v)
			c.Rects = append(c.Rects, templates.ChartRect{X: fmtUnit(x0 + bar*float64(j)), Y: fmtUnit(yy), W: fmtUnit(bar), H: fmtUnit(h),
				Class: s.class, Title: fmt.Sprintf("%s: %d %s", b.Start.UTC().Format(layout), s.v, s.what)})
		}
	}
	c.Labels = axisLabels(strconv.FormatInt(top, 10), []string{first.Format(layout), first.Add(time.Duration(n-1) * size).Format(layout)})
	return c
}

// axisLabels writes the y axis's top and zero and the x axis's first and
// last slot.
func axisLabels(top string, x []string) []templates.ChartLabel {
	base := fmtUnit(float64(chartHeight - chartBottom + 16))
	out := []templates.ChartLabel{
		{X: fmtUnit(chartLeft - 6), Y: fmtUnit(chartTop + 10), Text: top, Anchor: "end"},
		{X: fmtUnit(chartLeft - 6), Y: fmtUnit(chartHeight - chartBottom), Text: "0", Anchor: "end"},
		{X: fmtUnit(chartLeft), Y: base, Text: x[0], Anchor: "start"},
	}
	if len(x) > 1 {
		out = append(out, templates.ChartLabel{X: fmtUnit(chartWidth - 4), Y: base, Text: x[len(x)-1], Anchor: "end"})
	}
	return out
}

// histogramChart draws a duration histogram.
func histogramChart(id, title string, bins []runtime.HistogramBin) templates.Chart {
	c := templates.Chart{ID: id, Title: title, Width: chartWidth, Height: chartHeight,
		Table: templates.ChartTable{Caption: title + ": how many durations fell in each range", Head: []string{"From", "To", "Count"}}}
	if len(bins) == 0 {
		c.Empty = true
		c.Desc = "Nothing was measured in this period."
		return c
	}
	var top, total int64
	for _, b := range bins {
		top, total = max(top, b.Count), total+b.Count
		c.Table.Rows = append(c.Table.Rows, []string{readableMS(b.FromMS), readableMS(b.ToMS), strconv.FormatInt(b.Count, 10)})
	}
	c.Desc = fmt.Sprintf("Histogram of %d durations from %s to %s in %d ranges; the fullest range holds %d.",
		total, readableMS(bins[0].FromMS), readableMS(bins[len(bins)-1].ToMS), len(bins), top)
	plotW, plotH := float64(chartWidth-chartLeft-4), float64(chartHeight-chartBottom-chartTop)
	slot := plotW / float64(len(bins))
	for i, b := range bins {
		h := plotH * float64(b.Count) / float64(top)
		c.Rects = append(c.Rects, templates.ChartRect{X: fmtUnit(float64(chartLeft) + slot*float64(i) + 1), Y: fmtUnit(float64(chartTop) + plotH - h),
			W: fmtUnit(slot - 2), H: fmtUnit(h), Class: "series-durations",
			Title: fmt.Sprintf("%s to %s: %d", readableMS(b.FromMS), readableMS(b.ToMS), b.Count)})
	}
	c.Labels = axisLabels(strconv.FormatInt(top, 10), []string{readableMS(bins[0].FromMS), readableMS(bins[len(bins)-1].ToMS)})
	return c
}

// compareRedirect answers the process page's ?compare=A,B with the
// compare page of versions A and B over the same period.
func (h *handler) compareRedirect(w http.ResponseWriter, r *http.Request, key, c string) {
	a, b, ok := strings.Cut(c, ",")
	va, okA := version(strings.TrimSpace(a))
	vb, okB := version(strings.TrimSpace(b))
	if !ok || !okA || !okB || va == 0 || vb == 0 {
		h.fail(w, r, http.StatusBadRequest, "compare must name two versions, such as compare=1,2.")
		return
	}
	q := r.URL.Query()
	f := templates.InsightFilter{Period: q.Get("period"), From: q.Get("from"), To: q.Get("to")}
	if f.Period == "" {
		f.Period = templates.Period7d
		if f.From != "" || f.To != "" {
			f.Period = templates.PeriodCustom
		}
	}
	http.Redirect(w, r, templates.CompareURL(key, va, vb, f), http.StatusSeeOther)
}

// compare serves the compare page: the statistics of versions a and b of
// a process over one period, side by side.
func (h *handler) compare(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	key := chi.URLParam(r, "key")
	versions, err := h.svc.ProcessVersions(ctx, key)
	if err != nil {
		h.failErr(w, r, err)
		return
	}
	p := templates.ComparePage{Layout: h.layout(w, r, key+": compare versions", templates.NavProcesses), Key: key}
	for _, d := range versions {
		p.Versions = append(p.Versions, d.Version)
	}
	q := r.URL.Query()
	p.A, p.B = p.Versions[0], p.Versions[len(p.Versions)-1]
	if len(p.Versions) > 1 {
		p.A = p.Versions[len(p.Versions)-2]
	}
	for _, s := range []struct {
		name string
		dst  *int
	}{{"a", &p.A}, {"b", &p.B}} {
		if raw := q.Get(s.name); raw != "" {
			v, ok := version(raw)
			if !ok || v == 0 {
				h.fail(w, r, http.StatusBadRequest, "The versions to compare must be version numbers.")
				return
			}
			*s.dst = v
		}
	}
	q.Del("stats")
	q.Del("overlay")
	var f runtime.StatsFilter
	p.Filter, f, err = h.insightQuery(q, "all")
	if err != nil {
		p.Error = err.Error()
		h.render(w, r, http.StatusBadRequest, templates.Compare(p))
		return
	}
	f.ProcessKey = key
	var st [2]runtime.ProcessStats
	for i, v := range []int{p.A, p.B} {
		f.Version = v
		if st[i], err = h.svc.Statistics(ctx, f); err != nil {
			if c := runtime.ErrorCode(err); c == runtime.ENOTFOUND || c == runtime.EINVALID {
				p.Error = h.plain(r, err)
				h.render(w, r, statusOf(err), templates.Compare(p))
				return
			}
			h.failErr(w, r, err)
			return
		}
	}
	p.Range = periodText(st[0].From, st[0].To)
	names := map[string]string{}
	for _, v := range []int{p.A, p.B} {
		o, err := h.outline(ctx, key, v)
		if err != nil {
			h.failErr(w, r, err)
			return
		}
		for id, n := range o.Names() {
			if names[id] == "" {
				names[id] = n
			}
		}
	}
	p.Columns = []string{"Activations", "Incidents", "Incident rate", "Active p50", "Active p90", "Wait p50", "Wait p90"}
	p.Process = compareProcess(st[0], st[1])
	p.Rows = compareElements(st[0].Elements, st[1].Elements, names)
	h.render(w, r, http.StatusOK, templates.Compare(p))
}

// countCell compares two counts; higher is worse when bad.
func countCell(a, b int64, bad bool) templates.CompareCell {
	c := templates.CompareCell{A: countNum(a), B: countNum(b)}
	if a != b {
		c.Diff = fmt.Sprintf("%+d", b-a)
		c.Trend = trend(float64(a), float64(b), bad)
	}
	return c
}

// countNum is a count as a statistic.
func countNum(n int64) templates.Num {
	s := strconv.FormatInt(n, 10)
	return templates.Num{Value: s, Text: s}
}

// trend says whether b is worse or better than a (higher is worse when
// bad) or only changed.
func trend(a, b float64, bad bool) string {
	switch {
	case a == b:
		return ""
	case !bad:
		return "changed"
	case b > a:
		return "worse"
	default:
		return "better"
	}
}

// durationCell compares two duration statistics (ok: measured).
func durationCell(a, b runtime.DurationStats, p90 bool) templates.CompareCell {
	va, vb := a.P50, b.P50
	if p90 {
		va, vb = a.P90, b.P90
	}
	c := templates.CompareCell{A: msNum(va, a.Count), B: msNum(vb, b.Count)}
	if a.Count > 0 && b.Count > 0 && va != vb {
		sign := "+"
		if vb < va {
			sign = "−"
		}
		c.Diff = sign + readableMS(math.Abs(vb-va))
		c.Trend = trend(va, vb, true)
	}
	return c
}

// rateCell compares two elements' incident rates.
func rateCell(a, b runtime.ElementStats) templates.CompareCell {
	c := templates.CompareCell{A: rateNum(a), B: rateNum(b)}
	if a.Activations > 0 && b.Activations > 0 && a.IncidentRate() != b.IncidentRate() {
		d := (b.IncidentRate() - a.IncidentRate()) * 100
		c.Diff = strconv.FormatFloat(math.Round(d*10)/10, 'f', -1, 64) + " points"
		if d > 0 {
			c.Diff = "+" + c.Diff
		}
		c.Trend = trend(a.IncidentRate(), b.IncidentRate(), true)
	}
	return c
}

// compareProcess lays out the process's own numbers of both versions.
func compareProcess(a, b runtime.ProcessStats) []templates.CompareRow {
	return []templates.CompareRow{
		{NodeID: "starts", Name: "Started", Cells: []templates.CompareCell{countCell(a.Starts, b.Starts, false)}},
		{NodeID: "completions", Name: "Completed", Cells: []templates.CompareCell{countCell(a.Completions, b.Completions, false)}},
		{NodeID: "failures", Name: "Failed", Cells: []templates.CompareCell{countCell(a.Failures, b.Failures, true)}},
		{NodeID: "incidents", Name: "Incidents", Cells: []templates.CompareCell{countCell(a.Incidents, b.Incidents, true)}},
		{NodeID: "duration-p50", Name: "Duration p50", Cells: []templates.CompareCell{durationCell(a.Duration, b.Duration, false)}},
		{NodeID: "duration-p90", Name: "Duration p90", Cells: []templates.CompareCell{durationCell(a.Duration, b.Duration, true)}},
	}
}

// compareElements lays out every element of either version, by id.
func compareElements(a, b []runtime.ElementStats, names map[string]string) []templates.CompareRow {
	by := map[string]*[2]runtime.ElementStats{}
	for i, side := range [][]runtime.ElementStats{a, b} {
		for _, e := range side {
			p, ok := by[e.NodeID]
			if !ok {
				p = &[2]runtime.ElementStats{{NodeID: e.NodeID}, {NodeID: e.NodeID}}
				by[e.NodeID] = p
			}
			p[i] = e
		}
	}
	ids := make([]string, 0, len(by))
	for id := range by {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	out := make([]templates.CompareRow, 0, len(ids))
	for _, id := range ids {
		x, y := by[id][0], by[id][1]
		out = append(out, templates.CompareRow{NodeID: id, Name: names[id], Cells: []templates.CompareCell{
			countCell(x.Activations, y.Activations, false), countCell(x.Incidents, y.Incidents, true), rateCell(x, y),
			durationCell(x.Active, y.Active, false), durationCell(x.Active, y.Active, true),
			durationCell(x.Wait, y.Wait, false), durationCell(x.Wait, y.Wait, true)}})
	}
	return out
}
