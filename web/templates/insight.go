package templates

import (
	"net/url"
	"strconv"
)

// RouteProcessCompare shows two versions' element statistics side by side.
const RouteProcessCompare = "/processes/{key}/compare"

// The heatmap overlays of the process page (InsightFilter.Overlay).
const (
	OverlayNone      = "none"
	OverlayCount     = "count"
	OverlayActiveP50 = "active-p50"
	OverlayActiveP90 = "active-p90"
	OverlayWaitP50   = "wait-p50"
	OverlayWaitP90   = "wait-p90"
	OverlayIncidents = "incidents"
)

// The statistics periods of the process page (InsightFilter.Period).
const (
	Period24h    = "24h"
	Period7d     = "7d"
	Period30d    = "30d"
	PeriodCustom = "custom"
)

// HeatLevels is the number of colour steps of a heatmap.
const HeatLevels = 5

// InsightFilter is what the statistics on the process page and the compare
// page are read for, as the GET form sends it.
type InsightFilter struct {
	// Period is one of the Period* constants; From and To (YYYY-MM-DD, UTC
	// days, To included) bound a PeriodCustom one.
	Period, From, To string
	// Stats is the version counted: "all" or a version number.
	Stats string
	// Overlay is one of the Overlay* constants.
	Overlay string
	// Element is the element drilled into ("" for none).
	Element string
}

// query is f as URL query values, with the diagram's version v (0: none).
func (f InsightFilter) query(v int) url.Values {
	q := url.Values{}
	if v > 0 {
		q.Set("version", strconv.Itoa(v))
	}
	q.Set("period", f.Period)
	if f.Period == PeriodCustom {
		q.Set("from", f.From)
		q.Set("to", f.To)
	}
	if f.Stats != "" {
		q.Set("stats", f.Stats)
	}
	if f.Overlay != "" && f.Overlay != OverlayNone {
		q.Set("overlay", f.Overlay)
	}
	if f.Element != "" {
		q.Set("element", f.Element)
	}
	return q
}

// InsightURL links the process page of key at version v with the
// statistics of f.
func InsightURL(key string, v int, f InsightFilter) string {
	return "/processes/" + url.PathEscape(key) + "?" + f.query(v).Encode()
}

// InsightElementURL drills into element node on the process page.
func InsightElementURL(key string, v int, f InsightFilter, node string) string {
	f.Element = node
	return InsightURL(key, v, f) + "#element-detail"
}

// CompareFormURL is where the compare page's form sends its query.
func CompareFormURL(key string) string { return "/processes/" + url.PathEscape(key) + "/compare" }

// CompareURL links the compare page of versions a and b over f's period.
func CompareURL(key string, a, b int, f InsightFilter) string {
	q := url.Values{}
	q.Set("a", strconv.Itoa(a))
	q.Set("b", strconv.Itoa(b))
	q.Set("period", f.Period)
	if f.Period == PeriodCustom {
		q.Set("from", f.From)
		q.Set("to", f.To)
	}
	return CompareFormURL(key) + "?" + q.Encode()
}

// Num is one statistic: Value the number exactly as the JSON API answers
// it (milliseconds for a duration, a ratio for a rate), Text it for
// reading ("1.2 s", "12.5 %").
type Num struct {
	Value string
	Text  string
}

// Insight is the statistics part of the process page.
type Insight struct {
	Key string
	// Version is the diagram's version; Versions every version.
	Version  int
	Versions []int
	Filter   InsightFilter
	// Error explains a filter that could not be read ("" when none); the
	// statistics are then left out.
	Error string
	// Range is the period counted, in whole UTC hours, for reading.
	Range string
	// Precision is the percentiles' relative error, for reading ("5 %").
	Precision string
	Process   InsightProcess
	Elements  []InsightElement
	// Heatmap is the JSON cockpit.js draws the overlays from.
	Heatmap  string
	Legends  []HeatLegend
	Timeline Chart
	// Detail is the element drilled into (nil when none).
	Detail *ElementDetail
}

// InsightProcess are the process's own numbers over the period.
type InsightProcess struct {
	Starts, Completions, Cancellations, Failures, Incidents int64
	DurationP50, DurationP90, DurationMax                   Num
}

// InsightElement is one element's row of the statistics table.
type InsightElement struct {
	NodeID string
	// Name is the element's name in the model ("" when it has none).
	Name                                               string
	Activations, Completions, Incidents, Cancellations int64
	IncidentRate                                       Num
	ActiveCount, WaitCount                             int64
	ActiveP50, ActiveP90, ActiveP99, ActiveMax         Num
	WaitP50, WaitP90                                   Num
	// URL drills into the element.
	URL string
}

// HeatLegend is the colour scale of one overlay with its numbers.
type HeatLegend struct {
	Kind, Label string
	// Steps are the HeatLevels colours, lowest first, each with the range
	// of values it stands for.
	Steps []LegendStep
	// Selected is the overlay shown first.
	Selected bool
}

// LegendStep is one colour of a legend.
type LegendStep struct {
	Level int
	Text  string
}

// OverlayChoice is one option of the overlay switch.
type OverlayChoice struct {
	Value, Label string
}

// OverlayChoices returns the options of the overlay switch, in order.
func OverlayChoices() []OverlayChoice {
	return []OverlayChoice{
		{OverlayNone, "None (live tokens)"},
		{OverlayCount, "Activations"},
		{OverlayActiveP50, "Active time p50"},
		{OverlayActiveP90, "Active time p90"},
		{OverlayWaitP50, "Wait time p50"},
		{OverlayWaitP90, "Wait time p90"},
		{OverlayIncidents, "Incident rate"},
	}
}

// ElementDetail is the drill-down into one element: its duration
// histograms and the instances behind its numbers.
type ElementDetail struct {
	NodeID, Name string
	Active, Wait Chart
	// Scanned and Limited say how many instances the lists were read from.
	Scanned int
	Limited bool
	Slowest []ElementRun
	Failed  []ElementRun
}

// ScannedText says which instances the drill-down lists were read from.
func (d ElementDetail) ScannedText() string {
	s := "The instances below are from the " + strconv.Itoa(d.Scanned) + " most recent instances of the period"
	if d.Limited {
		s += " (there are more: narrow the period to reach older ones)"
	}
	return s + "."
}

// RunText says when the measured activation started, and whether it is
// still active.
func (r ElementRun) RunText() string {
	if r.Open {
		return "(still active), since " + r.Activated
	}
	return "from " + r.Activated
}

// ElementRun is one instance in a drill-down list.
type ElementRun struct {
	InstanceID string
	Number     int64
	Version    int
	Status     string
	// Active is how long the element was active (Open: still is);
	// Activated when, UTC.
	Active    string
	Activated string
	Open      bool
	Incidents int
	// IncidentAt and Message are the last incident's.
	IncidentAt string
	Message    string
}

// Chart is a server-drawn SVG bar chart with its data as a table.
type Chart struct {
	// ID prefixes the ids of the chart's title and description.
	ID, Title, Desc string
	Width, Height   int
	Rects           []ChartRect
	Labels          []ChartLabel
	Series          []ChartSeries
	Table           ChartTable
	// Empty is set when there is nothing to draw.
	Empty bool
}

// ChartRect is one bar; Title names it and its number.
type ChartRect struct {
	X, Y, W, H string
	Class      string
	Title      string
}

// ChartLabel is a text on an axis.
type ChartLabel struct {
	X, Y, Text, Anchor string
}

// ChartSeries names a colour of a chart.
type ChartSeries struct {
	Class, Label string
}

// ChartTable is a chart's data.
type ChartTable struct {
	Caption string
	Head    []string
	Rows    [][]string
}

// ComparePage shows two versions' statistics side by side.
type ComparePage struct {
	Layout
	Key      string
	A, B     int
	Versions []int
	Filter   InsightFilter
	Range    string
	// Error explains a filter that could not be read.
	Error   string
	Columns []string
	Process []CompareRow
	Rows    []CompareRow
}

// CompareRow is one element (or one process number) in both versions.
type CompareRow struct {
	NodeID, Name string
	Cells        []CompareCell
}

// CompareCell is one number in versions A and B and how B differs.
type CompareCell struct {
	A, B Num
	// Diff is B against A for reading ("+12 %", "−3"); "" when equal.
	Diff string
	// Trend is "worse", "better", "changed" or "" (the same).
	Trend string
}
