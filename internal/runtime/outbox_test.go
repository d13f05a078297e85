package runtime_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gobpm/gobpm/internal/runtime"
	"github.com/gobpm/gobpm/internal/testdb"
)

// faultStore is the real store (testdb) whose writes can be made to fail: a
// test kills it (every later write fails, as if the process had died) or
// fails one chosen commit.
type faultStore struct {
	runtime.Store
	dead   atomic.Bool
	commit func(steps []runtime.StepRecord) error // before CommitSteps; an error refuses the batch
}

var errDead = errors.New("test: the process is dead")

func (f *faultStore) CommitSteps(ctx context.Context, steps []runtime.StepRecord) error {
	if f.dead.Load() {
		return errDead
	}
	if f.commit != nil {
		if err := f.commit(steps); err != nil {
			return err
		}
	}
	return f.Store.CommitSteps(ctx, steps)
}

func (f *faultStore) UpdateOutbox(ctx context.Context, id int64, payload json.RawMessage) error {
	if f.dead.Load() {
		return errDead
	}
	return f.Store.UpdateOutbox(ctx, id, payload)
}

func (f *faultStore) DeleteOutbox(ctx context.Context, ids ...int64) error {
	if f.dead.Load() {
		return errDead
	}
	return f.Store.DeleteOutbox(ctx, ids...)
}

// faulty opens a runtime over c's database file through f, with opts on
// c's clock. c's own runtime should be closed by the caller first if the
// test restarts it afterwards.
func faulty(t *testing.T, c *clocked, f *faultStore, opts runtime.Options) (*runtime.Runtime, func()) {
	t.Helper()
	db, err := testdb.Open(context.Background(), c.path)
	if err != nil {
		t.Fatal(err)
	}
	f.Store = db
	opts.Now = c.clk.Now
	rt := runtime.New(f, opts)
	var once atomic.Bool
	stop := func() {
		if once.CompareAndSwap(false, true) {
			rt.Close()
			db.Close()
		}
	}
	t.Cleanup(stop)
	return rt, stop
}

// outboxRows reads the outbox through the store.
func outboxRows(t *testing.T, db runtime.Store) []runtime.OutboxRow {
	t.Helper()
	rows, err := db.Outbox(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// showRows formats outbox rows with their payloads as text.
func showRows(rows []runtime.OutboxRow) string {
	var b strings.Builder
	for _, r := range rows {
		fmt.Fprintf(&b, "[%d %s %s %s] ", r.ID, r.InstanceID, r.Kind, r.Payload)
	}
	return b.String()
}

// assertOutboxEmpty fails if a normal run left after-commit work behind.
func assertOutboxEmpty(t *testing.T, db runtime.Store) {
	t.Helper()
	if rows := outboxRows(t, db); len(rows) != 0 {
		t.Fatalf("the outbox still holds %d rows after a normal run: %s", len(rows), showRows(rows))
	}
}

const signalPairBPMN = `<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" id="defs" targetNamespace="urn:test">
  <signal id="s" name="ping"/>
  <process id="thrower" isExecutable="true">
    <startEvent id="start"/>
    <sequenceFlow id="f1" sourceRef="start" targetRef="work"/>
    <userTask id="work"/>
    <sequenceFlow id="f2" sourceRef="work" targetRef="throwPing"/>
    <intermediateThrowEvent id="throwPing"><signalEventDefinition signalRef="s"/></intermediateThrowEvent>
    <sequenceFlow id="f3" sourceRef="throwPing" targetRef="end"/>
    <endEvent id="end"/>
  </process>
  <process id="catcher" isExecutable="true">
    <startEvent id="cStart"/>
    <sequenceFlow id="c1" sourceRef="cStart" targetRef="waitPing"/>
    <intermediateCatchEvent id="waitPing"><signalEventDefinition signalRef="s"/></intermediateCatchEvent>
    <sequenceFlow id="c2" sourceRef="waitPing" targetRef="after"/>
    <userTask id="after"/>
    <sequenceFlow id="c3" sourceRef="after" targetRef="cEnd"/>
    <endEvent id="cEnd"/>
  </process>
</definitions>`

// historyShape is an instance's history without ids: what a straight run
// and a run resumed after a crash must agree on.
func historyShape(t *testing.T, rt *runtime.Runtime, id runtime.InstanceID) []string {
	t.Helper()
	hist, err := rt.History(context.Background(), id, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, f := range hist {
		out = append(out, fmt.Sprintf("%d %s %s %s %s", f.Seq, f.At.Format(time.RFC3339Nano), f.Kind, f.NodeID, f.ScopePath))
	}
	return out
}

// signalPairRun deploys the pair, starts a catcher, then a thrower, and
// returns both.
func signalPairRun(t *testing.T, rt *runtime.Runtime) (catcher, thrower runtime.InstanceView) {
	t.Helper()
	mustDeploy(t, rt, runtime.File{Name: "pair.bpmn", Content: []byte(signalPairBPMN)})
	return start(t, rt, "catcher", nil), start(t, rt, "thrower", nil)
}

// A thrown signal is a row of the step that threw it, committed with it: a
// crash right after that commit loses nothing, and Resume delivers it where
// a straight run would have.
func TestOutboxSignalSurvivesACrash(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	// The straight run.
	straight := setupClocked(t)
	sc, st := signalPairRun(t, straight.rt)
	completeTask(t, straight.rt, st.ID, "work", nil)
	if v := instance(t, straight.rt, sc.ID); len(v.Tracks) != 1 || v.Tracks[0].NodeID != "after" {
		t.Fatalf("straight run: the catcher did not get the signal: %+v", v.Tracks)
	}
	assertOutboxEmpty(t, straight.db)
	want := historyShape(t, straight.rt, sc.ID)

	// The same run, but the process dies right after the thrower's step commits.
	c := setupClocked(t)
	cc, ct := signalPairRun(t, c.rt)
	c.close(t)
	f := &faultStore{}
	f.commit = func(steps []runtime.StepRecord) error {
		for _, s := range steps {
			for _, o := range s.Outbox {
				if o.Kind == runtime.OutboxSignal {
					// This commit goes through; nothing after it does.
					defer f.dead.Store(true)
				}
			}
		}
		return nil
	}
	rt, stop := faulty(t, c, f, runtime.Options{})
	completeTask(t, rt, ct.ID, "work", nil) // the thrower's step commits; its signal is not delivered
	rows := outboxRows(t, f.Store)
	if len(rows) != 1 {
		t.Fatalf("outbox after the crash: %s, want the one thrown signal", showRows(rows))
	}
	if r := rows[0]; r.Kind != runtime.OutboxSignal || r.InstanceID != ct.ID || !strings.Contains(string(r.Payload), `"name":"ping"`) || !strings.Contains(string(r.Payload), `"depth":0`) {
		t.Fatalf("outbox row %s", showRows(rows))
	}
	if th := instance(t, rt, ct.ID); th.Status != runtime.StatusCompleted {
		t.Fatalf("the thrower's step is not committed: %s", th.Status)
	}
	if v := instance(t, rt, cc.ID); len(v.Tracks) != 1 || v.Tracks[0].NodeID != "waitPing" {
		t.Fatalf("the catcher moved before the restart: %+v", v.Tracks)
	}
	stop()

	// Restart: the row survived the reopen and Resume delivers it.
	c.open(t)
	if rows := outboxRows(t, c.db); len(rows) != 1 {
		t.Fatalf("outbox after reopening: %s", showRows(rows))
	}
	if _, err := c.rt.Resume(ctx); err != nil {
		t.Fatal(err)
	}
	if v := instance(t, c.rt, cc.ID); len(v.Tracks) != 1 || v.Tracks[0].NodeID != "after" {
		t.Fatalf("after the restart the catcher is at %+v, want the task after the signal", v.Tracks)
	}
	assertOutboxEmpty(t, c.db)
	got := historyShape(t, c.rt, cc.ID)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("catcher history after the crash\n%s\nwant (straight run)\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// A child's outcome whose hand-over failed at runtime (the caller's commit
// failed once) is retried by the scheduler, without a restart.
func TestOutboxChildEndedRetriedByTheScheduler(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := setupClocked(t)
	mustDeploy(t, c.rt, callFixture(t, "caller.bpmn"), callFixture(t, "callee.bpmn"))
	c.close(t)
	f := &faultStore{}
	var parent atomic.Value
	parent.Store(runtime.InstanceID(""))
	var failed atomic.Int32
	f.commit = func(steps []runtime.StepRecord) error {
		if steps[0].Instance.ID == parent.Load().(runtime.InstanceID) && steps[0].Instance.Status == runtime.StatusRunning &&
			len(steps[0].Facts) > 0 && failed.Add(1) == 1 {
			return errors.New("test: disk I/O error")
		}
		return nil
	}
	rt, _ := faulty(t, c, f, runtime.Options{OutboxRetry: 20 * time.Millisecond})
	if _, err := rt.Resume(ctx); err != nil { // starts the scheduler
		t.Fatal(err)
	}
	inst, err := rt.StartInstance(ctx, runtime.StartRequest{ProcessKey: "caller",
		Variables: map[string]any{"order": map[string]any{"amount": json.Number("21")}}})
	if err != nil {
		t.Fatal(err)
	}
	child := inst.Children[0].InstanceID
	parent.Store(inst.ID)
	completeTask(t, rt, child, "work", nil) // the child ends; handing its outcome over fails once
	if failed.Load() == 0 {
		t.Fatal("the hand-over did not reach the failing commit")
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		v := instance(t, rt, inst.ID)
		if len(v.Tracks) == 1 && v.Tracks[0].NodeID == "after" {
			if v.Variables["total"] != json.Number("42") {
				t.Fatalf("output after the retry: %v", v.Variables)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the caller was not handed its child's outcome: %+v (outbox %s)", v.Tracks, showRows(outboxRows(t, f.Store)))
		}
		time.Sleep(10 * time.Millisecond)
	}
	// The row is deleted right after the retried step; wait for it.
	for len(outboxRows(t, f.Store)) != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("outbox after the retry: %s", showRows(outboxRows(t, f.Store)))
		}
		time.Sleep(10 * time.Millisecond)
	}
	hist, _ := rt.History(ctx, inst.ID, 0, 0)
	ended := 0
	for _, f := range hist {
		if f.Kind == "call-ended" {
			ended++
		}
	}
	if ended != 1 {
		t.Fatalf("the caller took its child's outcome %d times, want 1", ended)
	}
}
