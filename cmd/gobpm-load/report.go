package main

import (
	"fmt"
	"io"
	"os"
	goruntime "runtime"
	"strings"
)

// Report is everything one run measured; -json prints it as is.
type Report struct {
	Time      string    `json:"time"`
	Command   string    `json:"command"`
	Machine   Machine   `json:"machine"`
	ServerRef ServerRef `json:"server"`
	Scenarios []*Result `json:"scenarios"`
}

// Machine describes where the run happened. Server and tool share it when the
// server was spawned.
type Machine struct {
	OS         string `json:"os"`
	Arch       string `json:"arch"`
	CPU        string `json:"cpu"`
	Cores      int    `json:"cores"`
	GOMAXPROCS int    `json:"gomaxprocs"`
	Go         string `json:"go"`
}

// ServerRef names the server measured.
type ServerRef struct {
	Version string `json:"version"`
	Mode    string `json:"mode"` // "spawned" or "external"
	Addr    string `json:"addr,omitempty"`
	Sync    string `json:"synchronous"`
	// Nodes is how many servers shared the load (one database).
	Nodes int `json:"nodes"`
}

// Result is what one scenario measured.
type Result struct {
	Scenario     string       `json:"scenario"`
	Title        string       `json:"title"`
	Phases       []Phase      `json:"phases,omitempty"`
	Timings      []Timing     `json:"timings,omitempty"`
	Ratios       []Ratio      `json:"ratios,omitempty"`
	Lists        []ListTiming `json:"lists,omitempty"`
	Bytes        []BytesRow   `json:"bytes,omitempty"`
	Checks       []Check      `json:"checks"`
	Notes        []string     `json:"notes,omitempty"`
	Errors       int64        `json:"errors"`
	ErrorSamples []string     `json:"errorSamples,omitempty"`
	Seconds      float64      `json:"seconds"`
	CPU          *CPUUse      `json:"cpu,omitempty"`
	Commits      *CommitUse   `json:"commits,omitempty"`
}

// Phase is one throughput phase: closed loop (as fast as it goes) or open
// loop (at a target rate).
type Phase struct {
	Name       string  `json:"name"`
	TargetRate float64 `json:"targetRate,omitempty"` // PI/s offered; 0 for a closed loop
	Clients    int     `json:"clients"`              // closed loop: clients; open loop: the most requests in flight at once
	Workers    int     `json:"workers,omitempty"`
	Seconds    float64 `json:"seconds"` // the measurement window
	Started    int64   `json:"started"`
	Completed  int64   `json:"completed"`         // over the whole phase, drain included
	InWindow   int64   `json:"completedInWindow"` // completions inside the window
	PIPerSec   float64 `json:"piPerSec"`          // InWindow / Seconds
	Latency    Timing  `json:"latency"`           // start (or its due time) → completed
	Errors     int64   `json:"errors"`
}

// Timing is a latency distribution in milliseconds.
type Timing struct {
	Name   string  `json:"name"`
	N      int     `json:"n"`
	P50Ms  float64 `json:"p50Ms"`
	P95Ms  float64 `json:"p95Ms"`
	P99Ms  float64 `json:"p99Ms"`
	MaxMs  float64 `json:"maxMs"`
	MeanMs float64 `json:"meanMs"`
	Bytes  int64   `json:"bytes,omitempty"` // answer size, where it matters
}

func timing(name string, s Summary) Timing {
	return Timing{Name: name, N: s.N, P50Ms: ms(s.P50), P95Ms: ms(s.P95), P99Ms: ms(s.P99), MaxMs: ms(s.Max), MeanMs: ms(s.Mean)}
}

// Ratio is a derived figure with the target it is compared against.
type Ratio struct {
	Name   string  `json:"name"`
	Value  float64 `json:"value"`
	Target string  `json:"target,omitempty"`
}

// ListTiming is the latency of one list query (first page unless named).
type ListTiming struct {
	Filter   string  `json:"filter"`
	Query    string  `json:"query"` // the query string sent`
	Items    int     `json:"items"`
	Total    *int64  `json:"total,omitempty"`
	N        int     `json:"n"`
	MedianMs float64 `json:"medianMs"`
	MaxMs    float64 `json:"maxMs"`
}

// BytesRow is storage per instance.
type BytesRow struct {
	What        string  `json:"what"`
	Instances   int64   `json:"instances"`
	DBBytes     int64   `json:"dbBytes"`
	WALBytes    int64   `json:"walBytes"`
	PerInstance float64 `json:"bytesPerInstance"`
	Note        string  `json:"note,omitempty"`
}

// Check is a consistency assertion: the tool's own count against the
// server's.
type Check struct {
	Name string `json:"name"`
	Want string `json:"want"`
	Got  string `json:"got"`
	OK   bool   `json:"ok"`
}

func (r *Result) check(name string, want, got any) bool {
	ok := fmt.Sprint(want) == fmt.Sprint(got)
	r.Checks = append(r.Checks, Check{Name: name, Want: fmt.Sprint(want), Got: fmt.Sprint(got), OK: ok})
	return ok
}

func (r *Result) checkAtLeast(name string, want, got int64) {
	r.Checks = append(r.Checks, Check{Name: name, Want: fmt.Sprintf("≥ %d", want), Got: fmt.Sprint(got), OK: got >= want})
}

func (r *Result) note(format string, args ...any) {
	r.Notes = append(r.Notes, fmt.Sprintf(format, args...))
}

// OK reports whether every check held and no request failed.
func (r *Result) OK() bool {
	if r.Errors > 0 {
		return false
	}
	for _, c := range r.Checks {
		if !c.OK {
			return false
		}
	}
	return true
}

// machine describes this host.
func machine() Machine {
	m := Machine{OS: goruntime.GOOS, Arch: goruntime.GOARCH, Cores: goruntime.NumCPU(), GOMAXPROCS: goruntime.GOMAXPROCS(0), Go: goruntime.Version(), CPU: "unknown"}
	if data, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(data), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				m.CPU = strings.TrimSpace(v)
				break
			}
		}
	}
	return m
}

func f1(v float64) string { return fmt.Sprintf("%.1f", v) }
func f2(v float64) string { return fmt.Sprintf("%.2f", v) }

// Markdown writes the report as markdown tables.
func (rep *Report) Markdown(w io.Writer) {
	m := rep.Machine
	fmt.Fprintf(w, "## gobpm-load %s\n\n", rep.Time)
	fmt.Fprintf(w, "- command: `%s`\n", rep.Command)
	fmt.Fprintf(w, "- machine: %s/%s, %d cores (%s), GOMAXPROCS %d (tool), %s\n", m.OS, m.Arch, m.Cores, m.CPU, m.GOMAXPROCS, m.Go)
	s := rep.ServerRef
	fmt.Fprintf(w, "- server: gobpm-web %s, %s, synchronous=%s, %d node(s)", s.Version, s.Mode, s.Sync, max(s.Nodes, 1))
	if s.Mode == "spawned" {
		fmt.Fprint(w, " (same machine: tool and server share the cores)")
	}
	fmt.Fprint(w, "\n")
	for _, r := range rep.Scenarios {
		fmt.Fprintf(w, "\n### %s — %s (%.0f s)\n", r.Scenario, r.Title, r.Seconds)
		if len(r.Phases) > 0 {
			fmt.Fprint(w, "\n| phase | offered | clients¹ | workers | window | started | completed | PI/s | p50 ms | p95 ms | p99 ms | max ms | errors |\n")
			fmt.Fprint(w, "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n")
			for _, p := range r.Phases {
				offered := "max"
				if p.TargetRate > 0 {
					offered = f1(p.TargetRate) + "/s"
				}
				workers := "–"
				if p.Workers > 0 {
					workers = fmt.Sprint(p.Workers)
				}
				fmt.Fprintf(w, "| %s | %s | %d | %s | %.1f s | %d | %d | **%s** | %s | %s | %s | %s | %d |\n",
					p.Name, offered, p.Clients, workers, p.Seconds, p.Started, p.Completed, f1(p.PIPerSec),
					f2(p.Latency.P50Ms), f2(p.Latency.P95Ms), f2(p.Latency.P99Ms), f2(p.Latency.MaxMs), p.Errors)
			}
			fmt.Fprint(w, "\n¹ closed loop: clients starting back to back (after a warm-up of up to 2 s, not measured); open loop: the most starts in flight at once.\n")
		}
		if len(r.Timings) > 0 {
			fmt.Fprint(w, "\n| operation | n | p50 ms | p95 ms | p99 ms | max ms | answer bytes |\n| --- | ---: | ---: | ---: | ---: | ---: | ---: |\n")
			for _, t := range r.Timings {
				b := "–"
				if t.Bytes > 0 {
					b = fmt.Sprint(t.Bytes)
				}
				fmt.Fprintf(w, "| %s | %d | %s | %s | %s | %s | %s |\n", t.Name, t.N, f2(t.P50Ms), f2(t.P95Ms), f2(t.P99Ms), f2(t.MaxMs), b)
			}
		}
		if len(r.Ratios) > 0 {
			fmt.Fprint(w, "\n| ratio | value | target |\n| --- | ---: | --- |\n")
			for _, x := range r.Ratios {
				fmt.Fprintf(w, "| %s | **%s** | %s |\n", x.Name, f2(x.Value), x.Target)
			}
		}
		if len(r.Lists) > 0 {
			fmt.Fprint(w, "\n| list (first page unless named) | query | items | total | calls | median ms | max ms |\n| --- | --- | ---: | ---: | ---: | ---: | ---: |\n")
			for _, l := range r.Lists {
				total := "–"
				if l.Total != nil {
					total = fmt.Sprint(*l.Total)
				}
				fmt.Fprintf(w, "| %s | `%s` | %d | %s | %d | **%s** | %s |\n", l.Filter, l.Query, l.Items, total, l.N, f2(l.MedianMs), f2(l.MaxMs))
			}
		}
		if len(r.Bytes) > 0 {
			fmt.Fprint(w, "\n| storage | instances | db bytes | wal bytes | bytes/instance | note |\n| --- | ---: | ---: | ---: | ---: | --- |\n")
			for _, b := range r.Bytes {
				fmt.Fprintf(w, "| %s | %d | %d | %d | **%.0f** | %s |\n", b.What, b.Instances, b.DBBytes, b.WALBytes, b.PerInstance, b.Note)
			}
		}
		if len(r.Checks) > 0 {
			fmt.Fprint(w, "\n| check | want | got | ok |\n| --- | --- | --- | --- |\n")
			for _, c := range r.Checks {
				ok := "yes"
				if !c.OK {
					ok = "**NO**"
				}
				fmt.Fprintf(w, "| %s | %s | %s | %s |\n", c.Name, c.Want, c.Got, ok)
			}
		}
		if len(r.Notes) > 0 || r.Errors > 0 || r.CPU != nil || r.Commits != nil {
			fmt.Fprint(w, "\n")
			for _, n := range r.Notes {
				fmt.Fprintf(w, "- %s\n", n)
			}
			if r.CPU != nil {
				fmt.Fprintf(w, "- %s\n", r.CPU)
			}
			if r.Commits != nil {
				fmt.Fprintf(w, "- %s\n", r.Commits)
			}
			if r.Errors > 0 {
				fmt.Fprintf(w, "- **%d requests failed**; first: %s\n", r.Errors, strings.Join(r.ErrorSamples, " | "))
			}
		}
	}
}
