package engine

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gobpm/gobpm/internal/bpmn"
)

// adhocBenchXML is an automatic, parallel ad-hoc region of n user tasks
// without inner flows. routerAttrs declares its router.
func adhocBenchXML(n int, routerAttrs string) string {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:gobpm="urn:gobpm:1" id="defs" targetNamespace="urn:test">
  <process id="adhocBench" isExecutable="true">
    <startEvent id="start"/>
    <sequenceFlow id="f1" sourceRef="start" targetRef="region"/>
    <adHocSubProcess id="region" ` + routerAttrs + `>
`)
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "      <userTask id=\"a%02d\"/>\n", i)
	}
	b.WriteString(`    </adHocSubProcess>
    <sequenceFlow id="f2" sourceRef="region" targetRef="end"/>
    <endEvent id="end"/>
  </process>
</definitions>`)
	return b.String()
}

// adhocBenchRouters are the routers compared. The expression computes what
// the standard router does — every activity neither completed nor running —
// so both give the same answers and the difference is the cost of
// evaluating FEEL over the snapshot.
var adhocBenchRouters = []struct{ name, attrs string }{
	{"standard", `gobpm:router="standard"`},
	{"expression", `gobpm:router="expression" gobpm:routerExpression="=activities[not(list contains(running, item)) and get value(completed, item) = null]"`},
}

func adhocBenchProcess(b *testing.B, n int, attrs string) *bpmn.Process {
	b.Helper()
	defs, err := bpmn.Parse([]byte(adhocBenchXML(n, attrs)))
	if err != nil {
		b.Fatal(err)
	}
	return defs.Processes[0]
}

// BenchmarkAdHocRouter measures router evaluation per inner completion in
// a region of 50 activities, for the standard and the expression router.
//
//   - next: Router.Next alone on a snapshot of the region halfway through
//     (25 activities completed, 24 running, the 25th just completed) — the
//     router's own cost, including building its FEEL inputs;
//   - step: one whole engine Step completing an inner user task of a region
//     where all 50 run (the router is asked once, on a snapshot the engine
//     builds, and answers nothing) — the cost of an inner completion as the
//     runtime pays it, before storage.
func BenchmarkAdHocRouter(b *testing.B) {
	const n = 50
	for _, r := range adhocBenchRouters {
		p := adhocBenchProcess(b, n, r.attrs)
		region := p.Node("region")
		b.Run(r.name+"/next", func(b *testing.B) {
			router, err := RouterFor(region)
			if err != nil {
				b.Fatal(err)
			}
			s := Snapshot{Region: region.ID, Completed: map[string]int{}, Trigger: "a25",
				Lookup: func(string) (any, bool) { return nil, false }, Now: t0}
			for i := 1; i <= n; i++ {
				id := fmt.Sprintf("a%02d", i)
				s.Activities = append(s.Activities, id)
				switch {
				case i <= 25:
					s.Completed[id] = 1
				case i < n:
					s.Running = append(s.Running, id)
				}
			}
			got, err := router.Next(s)
			if err != nil || len(got) != 1 || got[0] != "a50" {
				b.Fatalf("answer %v %v, want [a50]", got, err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := router.Next(s); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(r.name+"/step", func(b *testing.B) {
			st, _, err := Step(p, NewState("i1", p.ID, 1), Start{}, t0, Options{})
			if err != nil {
				b.Fatal(err)
			}
			if got := len(tasks(st)); got != n {
				b.Fatalf("%d tasks open, want %d (incidents %+v)", got, n, st.Incidents)
			}
			ev := TaskCompleted{TaskID: waitAt(b, st, WaitTask, "a25").ID, User: "u"}
			next, _, err := Step(p, st, ev, t0, Options{})
			if err != nil || len(tasks(next)) != n-1 || len(next.Incidents) != 0 || next.Regions[0].Completed["a25"] != 1 {
				b.Fatalf("completion: %v, %d tasks, incidents %+v", err, len(tasks(next)), next.Incidents)
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, _, err := Apply(p, st.Clone(), ev, t0, Options{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
