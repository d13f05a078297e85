package bpmn

import (
	"errors"
	"testing"
)

// FuzzParse checks that Parse never panics, that every failure is a
// *ValidationError with ruled problems, and that every accepted model is
// wired consistently. Seeds live in testdata/fuzz/FuzzParse.
func FuzzParse(f *testing.F) {
	f.Add([]byte(`<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL"><process id="p"><startEvent id="s"/></process></definitions>`))
	f.Fuzz(func(t *testing.T, data []byte) {
		defs, err := Parse(data)
		if err != nil {
			var verr *ValidationError
			if !errors.As(err, &verr) {
				t.Fatalf("error %T is not a *ValidationError: %v", err, err)
			}
			if len(verr.Problems) == 0 {
				t.Fatal("ValidationError without problems")
			}
			for _, p := range verr.Problems {
				if p.Rule == "" || p.Detail == "" {
					t.Fatalf("problem without rule or detail: %+v", p)
				}
			}
			_ = verr.Error()
			return
		}
		if len(defs.Processes) == 0 {
			t.Fatal("accepted a document without processes")
		}
		for _, p := range defs.Processes {
			checkGraph(t, p, p.Graph)
		}
	})
}

// checkGraph asserts the wiring invariants of an accepted graph.
func checkGraph(t *testing.T, p *Process, g *Graph) {
	t.Helper()
	if len(g.Starts) == 0 {
		t.Fatal("accepted graph without starts")
	}
	for _, f := range g.Flows {
		if f.Source == nil || f.Target == nil || f.Source.Parent != g || f.Target.Parent != g {
			t.Fatalf("flow %q is not wired inside its graph", f.ID)
		}
	}
	for _, n := range g.Nodes {
		if n.Parent != g || p.Node(n.ID) != n {
			t.Fatalf("node %q: wrong parent or index", n.ID)
		}
		if n.Default != nil && n.Default.Source != n {
			t.Fatalf("node %q: default is not outgoing", n.ID)
		}
		if (n.Kind == KindSubProcess) != (n.Sub != nil) {
			t.Fatalf("node %q: Sub does not match kind", n.ID)
		}
		if n.Sub != nil {
			if n.Sub.Owner != n {
				t.Fatalf("node %q: sub owner", n.ID)
			}
			checkGraph(t, p, n.Sub)
		}
	}
}
