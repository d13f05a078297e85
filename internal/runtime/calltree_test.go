package runtime_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/gobpm/gobpm/internal/engine"
	"github.com/gobpm/gobpm/internal/runtime"
	"github.com/gobpm/gobpm/internal/testdb"
)

// treeModel is a process key whose parallel multi-instance call activity
// "spawn" calls called n times.
func treeModel(key, called string, n int) runtime.File {
	return runtime.File{Name: key + ".bpmn", Content: fmt.Appendf(nil, `<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" targetNamespace="urn:test">
  <process id="%s" isExecutable="true">
    <startEvent id="start"/><sequenceFlow id="f1" sourceRef="start" targetRef="spawn"/>
    <callActivity id="spawn" calledElement="%s"><multiInstanceLoopCharacteristics isSequential="false"><loopCardinality>%d</loopCardinality></multiInstanceLoopCharacteristics></callActivity>
    <sequenceFlow id="f2" sourceRef="spawn" targetRef="end"/><endEvent id="end"/>
  </process>
</definitions>`, key, called, n)}
}

// leafModel is a straight-through process: a child of it ends at once.
var leafModel = runtime.File{Name: "leaf.bpmn", Content: []byte(`<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" targetNamespace="urn:test">
  <process id="leaf" isExecutable="true">
    <startEvent id="start"/><sequenceFlow id="f1" sourceRef="start" targetRef="end"/><endEvent id="end"/>
  </process>
</definitions>`)}

// TestCallTreeBudget starts call trees under call-tree budgets and checks
// what one start commits: how many children it launched, how many calls
// it refused (each an incident on its call activity naming the bound), and
// the root's status. Every instance of the tree commits with a whole step.
func TestCallTreeBudget(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		limits runtime.CallTreeLimits
		files  []runtime.File
		start  string
		// launched is the number of child instances the start commits,
		// refused the call-tree-budget incidents across the tree.
		launched, refused int
		bound             string
		status            string
	}{
		{
			name:  "a tree within the default budget runs straight through",
			files: []runtime.File{leafModel, treeModel("wide", "leaf", 50)},
			start: "wide", launched: 50, status: runtime.StatusCompleted,
		},
		{
			name:   "instances: a fork launches MaxInstances children depth first",
			limits: runtime.CallTreeLimits{MaxInstances: 5},
			files:  []runtime.File{treeModel("fork", "fork", 3)},
			// Five nested children; the last one's three calls and the two
			// other calls of each of its four ancestors and of the root.
			start: "fork", launched: 5, refused: 3 + 4*2 + 2,
			bound: "this step would launch more than 5 instances (CallTreeLimits.MaxInstances)", status: runtime.StatusFailed,
		},
		{
			name:   "instances: a wide call of straight-through children",
			limits: runtime.CallTreeLimits{MaxInstances: 40},
			files:  []runtime.File{leafModel, treeModel("wide", "leaf", 50)},
			start:  "wide", launched: 40, refused: 10,
			bound: "this step would launch more than 40 instances", status: runtime.StatusFailed,
		},
		{
			name:   "instances: exactly MaxInstances fit",
			limits: runtime.CallTreeLimits{MaxInstances: 50},
			files:  []runtime.File{leafModel, treeModel("wide", "leaf", 50)},
			start:  "wide", launched: 50, status: runtime.StatusCompleted,
		},
		{
			// The root's first step makes 52 activations (its start event,
			// the body and 50 iterations) and each leaf 2 (its start and
			// end events): the fifth launch finds 52 + 4·2 = 60.
			name:   "activations: the caller's own count, then each child's",
			limits: runtime.CallTreeLimits{MaxActivations: 60},
			files:  []runtime.File{leafModel, treeModel("wide", "leaf", 50)},
			start:  "wide", launched: 4, refused: 46,
			bound: "element activations across its call tree, the most it may make is 60 (CallTreeLimits.MaxActivations)", status: runtime.StatusFailed,
		},
		{
			name:   "activations: a caller past the budget launches nothing",
			limits: runtime.CallTreeLimits{MaxActivations: 10},
			files:  []runtime.File{leafModel, treeModel("wide", "leaf", 50)},
			start:  "wide", launched: 0, refused: 50,
			bound: "this step has made 52 element activations across its call tree, the most it may make is 10", status: runtime.StatusFailed,
		},
		{
			// The first child is admitted with nothing held; its record
			// then holds more than one byte.
			name:   "bytes: the first child's record fills the budget",
			limits: runtime.CallTreeLimits{MaxBytes: 1},
			files:  []runtime.File{leafModel, treeModel("wide", "leaf", 50)},
			start:  "wide", launched: 1, refused: 49,
			bound: "bytes, the most they may hold is 1 (CallTreeLimits.MaxBytes)", status: runtime.StatusFailed,
		},
		{
			// A record counts once its child's own children are settled: a
			// chain being launched is held only by the call depth.
			name:   "bytes: the chain being launched counts when it unwinds",
			limits: runtime.CallTreeLimits{MaxBytes: 1},
			files:  []runtime.File{treeModel("fork", "fork", 2)},
			start:  "fork", launched: engine.DefaultMaxCallDepth - 1, refused: engine.DefaultMaxCallDepth - 1,
			bound: "(CallTreeLimits.MaxBytes)", status: runtime.StatusFailed,
		},
		{
			name:   "no caps",
			limits: runtime.CallTreeLimits{MaxInstances: -1, MaxActivations: -1, MaxBytes: -1},
			files:  []runtime.File{leafModel, treeModel("wide", "leaf", 50)},
			start:  "wide", launched: 50, status: runtime.StatusCompleted,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			db, err := testdb.Open(ctx, testdb.DSN(t))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = db.Close() })
			rt := runtime.New(db, runtime.Options{CallTree: tt.limits})
			t.Cleanup(func() { _ = rt.Close() })
			mustDeploy(t, rt, tt.files...)

			root, err := rt.StartInstance(ctx, runtime.StartRequest{ProcessKey: tt.start})
			if err != nil {
				t.Fatal(err)
			}
			if root.Status != tt.status {
				t.Errorf("root status %s, want %s", root.Status, tt.status)
			}
			_, all, err := rt.ListInstances(ctx, runtime.InstanceFilter{Limit: 1})
			if err != nil {
				t.Fatal(err)
			}
			if all-1 != tt.launched {
				t.Errorf("the start committed %d children, want %d", all-1, tt.launched)
			}
			incidents, err := rt.Incidents(ctx, "", true)
			if err != nil {
				t.Fatal(err)
			}
			refused := 0
			for _, in := range incidents {
				if in.Kind != engine.IncidentCallTreeBudget {
					continue
				}
				refused++
				if in.NodeID != "spawn" || !strings.Contains(in.Message, "call-tree budget: call activity spawn was not launched: ") || !strings.Contains(in.Message, tt.bound) {
					t.Errorf("incident %+v does not name the call activity and %q", in, tt.bound)
				}
			}
			if refused != tt.refused {
				t.Errorf("%d calls refused, want %d", refused, tt.refused)
			}
		})
	}
}
