package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/gobpm/gobpm/internal/clock"
	"github.com/gobpm/gobpm/internal/runtime"
	"github.com/gobpm/gobpm/internal/store/sqlite"
)

// The multi-instance runtime benchmark ("a parallel multi-instance over 1,000
// items started and completed") through the real runtime over SQLite. It
// lives here because this package already drives the runtime over a real
// store; the engine-only counterpart is BenchmarkMultiInstance1000 in
// internal/engine.

// miBenchXML is a parallel multi-instance body over items: a script task
// that completes at once (immediate) or a user task.
func miBenchXML(key, task string) string {
	inner := `<userTask id="work">
      <multiInstanceLoopCharacteristics isSequential="false" gobpm:collection="=items" gobpm:elementVariable="item" gobpm:outputCollection="outs" gobpm:outputElement="out"/>
    </userTask>`
	if task == "script" {
		inner = `<scriptTask id="work" gobpm:resultVariable="out">
      <multiInstanceLoopCharacteristics isSequential="false" gobpm:collection="=items" gobpm:elementVariable="item" gobpm:outputCollection="outs" gobpm:outputElement="out"/>
      <script>item * 2</script>
    </scriptTask>`
	}
	return fmt.Sprintf(`<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:gobpm="urn:gobpm:1" id="defs" targetNamespace="urn:bench">
  <process id="%s" isExecutable="true">
    <startEvent id="start"/>
    <sequenceFlow id="f1" sourceRef="start" targetRef="work"/>
    %s
    <sequenceFlow id="f2" sourceRef="work" targetRef="end"/>
    <endEvent id="end"/>
  </process>
</definitions>`, key, inner)
}

// BenchmarkMultiInstance1000Runtime runs one instance per op through
// runtime.Runtime over a SQLite file (synchronous=FULL, the default):
//
//   - immediate: StartInstance of a body over 1,000 script-task iterations,
//     which all complete in the start step (one commit);
//   - userTasks: StartInstance of a body over 1,000 user-task iterations,
//     then CompleteTask on each, one by one (1,001 commits, each writing
//     the whole checkpoint); ns/completion is reported too.
//
// Each op checks that the instance completed with 1,000 outputs.
func BenchmarkMultiInstance1000Runtime(b *testing.B) {
	const n = 1000
	items := make([]any, n)
	for i := range items {
		items[i] = json.Number(fmt.Sprint(i + 1))
	}
	ctx := context.Background()
	open := func(b *testing.B) *runtime.Runtime {
		db, err := sqlite.Open(ctx, filepath.Join(b.TempDir(), "bench.db"), sqlite.Options{})
		if err != nil {
			b.Fatal(err)
		}
		clk := clock.NewManual(epoch)
		rt := runtime.New(db, runtime.Options{Now: clk.Now})
		b.Cleanup(func() { rt.Close(); db.Close() })
		if _, err := rt.Deploy(ctx, []runtime.File{
			{Name: "immediate.bpmn", Content: []byte(miBenchXML("miImmediate", "script"))},
			{Name: "tasks.bpmn", Content: []byte(miBenchXML("miTasks", "user"))},
		}); err != nil {
			b.Fatal(err)
		}
		return rt
	}
	check := func(b *testing.B, rt *runtime.Runtime, id runtime.InstanceID) {
		b.Helper()
		v, err := rt.Instance(ctx, id)
		if err != nil || v.Status != runtime.StatusCompleted {
			b.Fatalf("instance %s: %v %s", id, err, v.Status)
		}
	}
	b.Run("immediate", func(b *testing.B) {
		rt := open(b)
		b.ReportAllocs()
		for b.Loop() {
			v, err := rt.StartInstance(ctx, runtime.StartRequest{ProcessKey: "miImmediate", Variables: map[string]any{"items": items}})
			if err != nil {
				b.Fatal(err)
			}
			check(b, rt, v.ID)
		}
	})
	b.Run("userTasks", func(b *testing.B) {
		rt := open(b)
		var completing time.Duration
		b.ReportAllocs()
		for b.Loop() {
			v, err := rt.StartInstance(ctx, runtime.StartRequest{ProcessKey: "miTasks", Variables: map[string]any{"items": items}})
			if err != nil {
				b.Fatal(err)
			}
			var ids []string
			for len(ids) < n {
				page, _, err := rt.Tasks(ctx, runtime.TaskFilter{InstanceID: v.ID, Limit: 500, Offset: len(ids)})
				if err != nil || len(page) == 0 {
					b.Fatalf("tasks: %v, %d of %d listed", err, len(ids), n)
				}
				for _, tk := range page {
					ids = append(ids, tk.ID)
				}
			}
			begin := time.Now()
			for i, id := range ids {
				if err := rt.CompleteTask(ctx, id, actor, map[string]any{"out": json.Number(fmt.Sprint(i))}); err != nil {
					b.Fatal(err)
				}
			}
			completing += time.Since(begin)
			check(b, rt, v.ID)
		}
		b.ReportMetric(float64(completing.Nanoseconds())/float64(b.N*n), "ns/completion")
	})
}
