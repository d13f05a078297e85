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
	"github.com/gobpm/gobpm/internal/store"
)

// hookStore is the real SQLite store with hooks in front of some methods, so
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
	db, err := store.Open(context.Background(), c.path, store.Options{})
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
// A failure to read a decision (a busy or broken database) is not a
// business failure of the instance: the step must not commit an incident
// saying "database is locked".
// One subscriber whose step fails must not keep the signal from the others.
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
// An instance whose definition cannot be read is an internal failure, not
// "not found": the API must not answer 404 for an instance that exists.