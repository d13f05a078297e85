// Package proptest holds property tests of the engine over the real
// runtime and SQLite store: random process models (sub-processes, parallel
// forks, boundary events, event sub-processes, errors, escalations,
// terminate ends, link events, compensation handlers and compensation
// throws, multiple and parallel multiple catch events) driven by random event orders, with and without a runtime
// restart. It has test files only.
package proptest

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/gobpm/gobpm/internal/runtime"
)

// Bounds of one random run: after drainAfter actions only actions that move
// the instance towards its end are offered; an instance still running after
// maxActions fails the property.
const (
	drainAfter = 120
	maxActions = 400
	cancelOdds = 150 // one action in cancelOdds (when drawn) cancels the instance
)

// TestScopeProperty is the scope model's property test: for random nestings of
// sub-processes, parallel forks, boundary events and event sub-processes,
// driven by random event orders, every instance ends (completed or
// terminated) with no track, only the root scope, no armed handler, no open
// incident and no wait row left; and restarting the runtime after any step
// gives the same final state as not restarting.
//
// The default check count (rapid's 100) keeps this under a minute. Run
// thousands of random cases with
//
//	go test ./internal/proptest -run TestScopeProperty -rapid.checks=5000
//
// (-v logs what the runs exercised).
//
// A failure prints the generated BPMN, the action sequence and the instance
// view; rapid shrinks it and stores the failing seed under testdata/rapid
// so -rapid.failfile=… replays it.
func TestScopeProperty(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	st := &stats{kinds: map[string]int{}, status: map[string]int{}}
	defer func() { t.Log(st) }()
	rapid.Check(t, func(rt *rapid.T) {
		// One key for every check: each deployment of a different model is
		// a new version, and the instance starts at the latest. Failure
		// messages must not depend on the check number, or rapid cannot
		// tell that a smaller case fails the same way and stops shrinking.
		const key = "p"
		m := genModel(rt)
		xml, spawners := m.toXML(key)
		if _, err := h.rt.Deploy(ctx, []runtime.File{{Name: key + ".bpmn", Content: []byte(xml)}}); err != nil {
			rt.Fatalf("the generated model was refused: %v\n%s", err, xml)
		}

		// Run A: straight through, drawing every action.
		a := &run{h: h, spawners: spawners}
		// A failed check leaves its instance running: cancel it, or its
		// subscriptions would take the messages of the next attempts (and
		// make the shrinking rapid does afterwards flaky).
		defer a.cleanup(ctx)
		if err := a.start(ctx, key); err != nil {
			rt.Fatalf("start: %v\n%s", err, xml)
		}
		var actions []action
		fail := func(format string, args ...any) {
			rt.Helper()
			rt.Fatalf("%s", a.anon(fmt.Sprintf("%s\n\nmodel:\n%s\nactions:\n%s\ninstance:\n%s", fmt.Sprintf(format, args...), xml, listActions(actions), a.dump(ctx))))
		}
		for {
			v, err := h.rt.Instance(ctx, a.id)
			if err != nil {
				fail("instance: %v", err)
			}
			if v.Status == runtime.StatusCompleted || v.Status == runtime.StatusTerminated {
				break
			}
			if len(actions) >= maxActions {
				fail("the instance did not end within %d actions", maxActions)
			}
			drain := len(actions) >= drainAfter
			open, err := a.enabled(ctx, drain)
			if err != nil {
				fail("enabled: %v", err)
			}
			if len(open) == 0 {
				fail("stuck: the instance is %s and nothing can move it", v.Status)
			}
			next := open[rapid.IntRange(0, len(open)-1).Draw(rt, "action")]
			if next.Kind == actJobError {
				// E3 is caught by catch-all events only.
				next.Name = rapid.SampledFrom(append(append([]string{}, errorCodes...), "E3")).Draw(rt, "errorCode")
			}
			if !drain && rapid.IntRange(0, cancelOdds-1).Draw(rt, "cancel") == cancelOdds/2 {
				next = action{Kind: actCancel}
			}
			out, err := a.do(ctx, next, len(actions))
			if err != nil {
				fail("%v", err)
			}
			next.Outcome = out
			actions = append(actions, next)
			if out != "" {
				fail("%s was refused: %s", next, out)
			}
		}
		checkEnded(ctx, h, a, func(format string, args ...any) { fail(format, args...) })
		st.add(xml, actions, a, ctx)
		want, err := a.summarize(ctx)
		if err != nil {
			fail("summary: %v", err)
		}

		// Run B: the same actions on a new instance, restarting the runtime
		// after step restartAt (0 = before the first action).
		restartAt := rapid.IntRange(0, len(actions)).Draw(rt, "restartAt")
		b := &run{h: h, spawners: spawners}
		defer b.cleanup(ctx)
		if err := b.start(ctx, key); err != nil {
			fail("start of the replay: %v", err)
		}
		failB := func(format string, args ...any) {
			rt.Helper()
			msg := fmt.Sprintf("replay with a restart after step %d: %s\n\nmodel:\n%s\nactions:\n%s\nstraight run:\n%s\nreplay:\n%s",
				restartAt, fmt.Sprintf(format, args...), xml, listActions(actions), a.dump(ctx), b.dump(ctx))
			rt.Fatalf("%s", b.anon(a.anon(msg)))
		}
		for i, act := range actions {
			if i == restartAt {
				if err := h.restart(); err != nil {
					failB("restart: %v", err)
				}
			}
			out, err := b.do(ctx, act, i)
			if err != nil {
				failB("step %d: %v", i, err)
			}
			if out != act.Outcome {
				failB("step %d (%s) answered %q, the straight run %q", i, act, out, act.Outcome)
			}
		}
		if restartAt == len(actions) {
			if err := h.restart(); err != nil {
				failB("restart: %v", err)
			}
		}
		checkEnded(ctx, h, b, failB)
		got, err := b.summarize(ctx)
		if err != nil {
			failB("summary: %v", err)
		}
		if gs, ws := jsonString(got), jsonString(want); gs != ws {
			failB("final state differs from the straight run:\nstraight: %s\nreplay:   %s", ws, gs)
		}
	})
}

// checkEnded asserts the end-state property of one instance.
func checkEnded(ctx context.Context, h *harness, r *run, fail func(string, ...any)) {
	v, err := h.rt.Instance(ctx, r.id)
	if err != nil {
		fail("instance: %v", err)
	}
	if v.Status != runtime.StatusCompleted && v.Status != runtime.StatusTerminated {
		fail("status %s, want completed or terminated", v.Status)
	}
	if len(v.Tracks) != 0 {
		fail("%d tracks left", len(v.Tracks))
	}
	if len(v.Scopes) != 1 || v.Scopes[0].ID != "root" {
		fail("scopes left: %+v", v.Scopes)
	}
	for _, s := range v.Scopes {
		if len(s.Handlers) != 0 {
			fail("handlers still armed on scope %s: %+v", s.ID, s.Handlers)
		}
	}
	for _, in := range v.Incidents {
		if in.ResolvedAt.IsZero() {
			fail("incident %s (%s) still open", in.ID, in.Kind)
		}
	}
	ws, err := h.waits(ctx, r.id)
	if err != nil {
		fail("waits: %v", err)
	}
	if len(ws) != 0 {
		fail("%d wait rows left: %+v", len(ws), ws)
	}
	if n, err := h.scopeRows(ctx, r.id); err != nil {
		fail("scope rows: %v", err)
	} else if n > 1 {
		fail("%d scope rows left", n)
	}
}

func listActions(as []action) string {
	var sb strings.Builder
	for i, a := range as {
		fmt.Fprintf(&sb, "  %d. %s\n", i, a)
	}
	return sb.String()
}

// stats summarises what the random runs exercised (logged with -v).
type stats struct {
	runs, actions   int
	kinds, status   map[string]int
	elements, facts map[string]int
}

func (s *stats) add(xml string, actions []action, r *run, ctx context.Context) {
	s.runs++
	s.actions += len(actions)
	for _, a := range actions {
		s.kinds[a.Kind]++
	}
	if v, err := r.h.rt.Instance(ctx, r.id); err == nil {
		s.status[v.Status]++
	}
	if s.elements == nil {
		s.elements, s.facts = map[string]int{}, map[string]int{}
	}
	if facts, err := r.h.rt.History(ctx, r.id, 0, 0); err == nil {
		for _, f := range facts {
			s.facts[f.Kind]++
		}
	}
	for _, el := range []string{"<subProcess id=\"sub", `triggeredByEvent`, "<boundaryEvent", "terminateEventDefinition", "<parallelGateway", "errorEventDefinition errorRef", "intermediateThrowEvent", "compensateEventDefinition", "linkEventDefinition", "<receiveTask", `parallelMultiple="true"`, `parallelMultiple="false"`, "multiInstanceLoopCharacteristics", `gobpm:compensation="concurrent"`} {
		s.elements[el] += strings.Count(xml, el)
	}
}

func (s *stats) String() string {
	return fmt.Sprintf("%d runs, %d actions; actions %v; end status %v; elements %v; facts %v", s.runs, s.actions, s.kinds, s.status, s.elements, s.facts)
}
