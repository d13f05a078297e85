package runtime_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gobpm/gobpm/internal/runtime"
	"github.com/gobpm/gobpm/internal/testdb"
)

// hookStore is the real store (testdb) with hooks in front of some methods, so
// a test can slow a commit down, hold it, or make a call fail.
type hookStore struct {
	runtime.Store
	commit     func(steps []runtime.StepRecord) error // before CommitSteps; an error refuses the batch
	definition func(key string) error                 // before Definition
	decision   func(key string) error                 // before Decision
}

func (h *hookStore) CommitSteps(ctx context.Context, steps []runtime.StepRecord) error {
	if h.commit != nil {
		if err := h.commit(steps); err != nil {
			return err
		}
	}
	return h.Store.CommitSteps(ctx, steps)
}

func (h *hookStore) Definition(ctx context.Context, key string, version int) (runtime.DefinitionRecord, error) {
	if h.definition != nil {
		if err := h.definition(key); err != nil {
			return runtime.DefinitionRecord{}, err
		}
	}
	return h.Store.Definition(ctx, key, version)
}

func (h *hookStore) Decision(ctx context.Context, key string, version int) (runtime.DefinitionRecord, error) {
	if h.decision != nil {
		if err := h.decision(key); err != nil {
			return runtime.DefinitionRecord{}, err
		}
	}
	return h.Store.Decision(ctx, key, version)
}

// hooked opens a second runtime (empty caches) over c's database file with
// the hooks of h, on c's clock. c's own runtime stays open.
func hooked(t *testing.T, c *clocked, h *hookStore) *runtime.Runtime {
	t.Helper()
	db, err := testdb.Open(context.Background(), c.path)
	if err != nil {
		t.Fatal(err)
	}
	h.Store = db
	rt := runtime.New(h, runtime.Options{Now: c.clk.Now})
	t.Cleanup(func() {
		rt.Close()
		db.Close()
	})
	return rt
}

func countInstances(t *testing.T, rt *runtime.Runtime, f runtime.InstanceFilter) int {
	t.Helper()
	_, total, err := rt.ListInstances(context.Background(), f)
	if err != nil {
		t.Fatal(err)
	}
	return total
}

// Close must not wait for the scheduler to work through every due timer:
// after downtime thousands may be due, and shutdown would hang for minutes.
func TestCloseDoesNotDrainEveryDueTimer(t *testing.T) {
	t.Parallel()
	c := setupClocked(t)
	ctx := context.Background()
	mustDeploy(t, c.rt, fixture(t, "timer_only.bpmn"))
	const n = 400
	for range n {
		start(t, c.rt, "timerOnly", nil)
	}
	c.clk.Advance(time.Hour)
	firing := make(chan struct{}) // closed at the scheduler's first commit
	var first sync.Once
	rt := hooked(t, c, &hookStore{commit: func([]runtime.StepRecord) error {
		first.Do(func() { close(firing) })
		time.Sleep(50 * time.Millisecond) // a slow disk: 400 timers take over a second
		return nil
	}})
	if _, err := rt.Resume(ctx); err != nil { // starts the scheduler
		t.Fatal(err)
	}
	<-firing // the scheduler is on the backlog
	rt.Close()
	if left := countInstances(t, c.rt, runtime.InstanceFilter{ProcessKey: "timerOnly", Status: runtime.StatusRunning}); left == 0 {
		t.Fatal("every timer fired before Close returned")
	}
}

// A failure to read a decision (a busy or broken database) is not a
// business failure of the instance: the step must not commit an incident
// saying "database is locked".
func TestDecisionLookupFailureIsNotCommitted(t *testing.T) {
	t.Parallel()
	c := setupClocked(t)
	ctx := context.Background()
	mustDeploy(t, c.rt, runtime.File{Name: "stamp.dmn", Content: []byte(stampDMN)}, runtime.File{Name: "stamping.bpmn", Content: []byte(stampBPMN)})
	rt := hooked(t, c, &hookStore{decision: func(string) error { return errors.New("database is locked") }})
	_, err := rt.StartInstance(ctx, runtime.StartRequest{ProcessKey: "stamping"})
	if err == nil || runtime.ErrorCode(err) != runtime.EINTERNAL {
		t.Fatalf("start with an unreadable decision: %v (code %s), want an internal error", err, runtime.ErrorCode(err))
	}
	incidents, _ := rt.Incidents(ctx, "", true)
	if n := countInstances(t, rt, runtime.InstanceFilter{ProcessKey: "stamping"}); n != 0 || len(incidents) != 0 {
		t.Fatalf("a transient read failure was committed: %d instances, incidents %+v", n, incidents)
	}
}

// One subscriber whose step fails must not keep the signal from the others.
func TestSignalReachesEverySubscriberDespiteOneFailure(t *testing.T) {
	t.Parallel()
	c := setupClocked(t)
	ctx := context.Background()
	mustDeploy(t, c.rt, fixture(t, "messages.bpmn"))
	a := start(t, c.rt, "messages", map[string]any{"orderId": "a"})
	b := start(t, c.rt, "messages", map[string]any{"orderId": "b"})
	var failed atomic.Bool
	rt := hooked(t, c, &hookStore{commit: func([]runtime.StepRecord) error {
		if failed.CompareAndSwap(false, true) {
			return errors.New("disk I/O error")
		}
		return nil
	}})
	n, err := rt.BroadcastSignal(ctx, "stop-all", nil)
	if err == nil {
		t.Fatal("the failed delivery was not reported")
	}
	if n != 1 {
		t.Fatalf("triggered %d, want 1 (the subscriber whose step did not fail): %v", n, err)
	}
	fired := 0
	for _, id := range []runtime.InstanceID{a.ID, b.ID} {
		h, err := rt.History(ctx, id, 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range h {
			if f.NodeID == "stopped" {
				fired++
				break
			}
		}
	}
	if fired != 1 {
		t.Fatalf("the signal reached %d of the 2 subscribers, want 1 (one commit failed)", fired)
	}
}

const pingBPMN = `<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" id="defs" targetNamespace="urn:test">
  <signal id="s" name="ping"/>
  <process id="%s" isExecutable="true">
    <startEvent id="bySignal"><signalEventDefinition signalRef="s"/></startEvent>
    <sequenceFlow id="f1" sourceRef="bySignal" targetRef="throwPing"/>
    <intermediateThrowEvent id="throwPing"><signalEventDefinition signalRef="s"/></intermediateThrowEvent>
    <sequenceFlow id="f2" sourceRef="throwPing" targetRef="end"/>
    <endEvent id="end"/>
  </process>
</definitions>`

// A signal cascade is bounded in depth, but its fan-out compounds per level:
// two processes that each start on "ping" and throw "ping" would start
// 2+4+…+2^17 instances from one request. The cascade needs a total bound.
func TestSignalCascadeIsBoundedInTotal(t *testing.T) {
	t.Parallel()
	c := setupClocked(t)
	ctx := context.Background()
	mustDeploy(t, c.rt,
		runtime.File{Name: "ping1.bpmn", Content: []byte(strings.Replace(pingBPMN, "%s", "ping1", 1))},
		runtime.File{Name: "ping2.bpmn", Content: []byte(strings.Replace(pingBPMN, "%s", "ping2", 1))})
	const limit = 5000 // commits; far more than a bounded cascade needs
	var commits atomic.Int64
	rt := hooked(t, c, &hookStore{commit: func([]runtime.StepRecord) error {
		if commits.Add(1) > limit {
			return errors.New("test: commit limit reached")
		}
		return nil
	}})
	if _, err := rt.BroadcastSignal(ctx, "ping", nil); err != nil {
		t.Fatal(err)
	}
	if got := commits.Load(); got > limit {
		t.Fatalf("one signal cascade ran more than %d steps", limit)
	}
}

const scheduledV2 = `<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" id="defs" targetNamespace="urn:test">
  <process id="scheduled" isExecutable="true">
    <startEvent id="plain"/>
    <sequenceFlow id="f1" sourceRef="plain" targetRef="end"/>
    <endEvent id="end"/>
  </process>
</definitions>`

// A start timer that fires while a new version without it is deployed must
// not re-arm the old version's schedule over the new one.
func TestStartTimerFiringRacesDeploy(t *testing.T) {
	t.Parallel()
	c := setupClocked(t)
	ctx := context.Background()
	mustDeploy(t, c.rt, fixture(t, "scheduled.bpmn")) // R2/PT1H
	c.clk.Advance(time.Hour)
	entered, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	rt := hooked(t, c, &hookStore{commit: func(steps []runtime.StepRecord) error {
		for _, s := range steps {
			for _, w := range s.Waits {
				if w.Kind == runtime.WaitStartTimer {
					once.Do(func() { close(entered); <-release })
				}
			}
		}
		return nil
	}})
	fired := make(chan error, 1)
	go func() { _, err := rt.FireDueTimers(ctx); fired <- err }()
	<-entered // the firing computed its re-arm and is about to commit it
	deployed := make(chan error, 1)
	go func() {
		_, err := rt.Deploy(ctx, []runtime.File{{Name: "scheduled.bpmn", Content: []byte(scheduledV2)}})
		deployed <- err
	}()
	select {
	case err := <-deployed: // the deployment did not wait for the firing
		if err != nil {
			t.Fatal(err)
		}
		close(release)
	case <-time.After(300 * time.Millisecond): // it waits: let the firing finish
		close(release)
		if err := <-deployed; err != nil {
			t.Fatal(err)
		}
	}
	if err := <-fired; err != nil {
		t.Fatal(err)
	}
	rows, err := c.db.StartTimers(ctx, "scheduled")
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 0 {
		t.Fatalf("version 2 has no timer start, but a schedule is armed: %+v", rows)
	}
}

// An instance whose definition cannot be read is an internal failure, not
// "not found": the API must not answer 404 for an instance that exists.
func TestMissingDefinitionIsInternal(t *testing.T) {
	t.Parallel()
	c := setupClocked(t)
	ctx := context.Background()
	mustDeploy(t, c.rt, fixture(t, "user_task.bpmn"))
	inst := start(t, c.rt, "userTask", nil)
	rt := hooked(t, c, &hookStore{definition: func(string) error { return runtime.ErrNotFound }})
	_, err := rt.SetVariables(ctx, inst.ID, "", map[string]any{"x": 1}, false)
	if code := runtime.ErrorCode(err); code != runtime.EINTERNAL {
		t.Fatalf("step of an instance whose definition is unreadable: %v (code %s), want internal", err, code)
	}
}
