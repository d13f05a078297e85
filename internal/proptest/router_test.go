package proptest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/gobpm/gobpm/internal/runtime"
)

// routerModel is an ad-hoc region steered by a router job (type rjtype):
// a service task (a job of type rjwork), a user task and a plain task that
// completes at once, the user task followed by the plain one by a flow.
// ordering is Parallel or Sequential; retries is the router's budget.
func routerModel(key, ordering string) string {
	return fmt.Sprintf(`<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:gobpm="urn:gobpm:1" id="d" targetNamespace="urn:p">
  <process id="%s" isExecutable="true">
    <startEvent id="s"/>
    <sequenceFlow id="f1" sourceRef="s" targetRef="region"/>
    <adHocSubProcess id="region" gobpm:router="job" gobpm:routerType="rjtype" gobpm:retries="2" ordering="%s">
      <serviceTask id="work" gobpm:type="rjwork"/>
      <userTask id="review"/>
      <task id="note"/>
      <sequenceFlow id="rn" sourceRef="review" targetRef="note"/>
    </adHocSubProcess>
    <sequenceFlow id="f2" sourceRef="region" targetRef="e"/>
    <endEvent id="e"/>
  </process>
</definitions>`, key, ordering)
}

// Router actions of the property below.
const (
	actAnswer      = "answer-router" // Name: the activity ids, comma-separated ("" = none)
	actAnswerAgain = "answer-router-again"
	actRouterFail  = "fail-router"
)

// TestRouterJobRestartProperty: an ad-hoc region steered by a router job,
// driven by random answers (valid ones, unknown ids and, in a sequential
// region, too many activities), failures, retries, task and job
// completions and repeated answers, ends the same whether the runtime
// restarts after every action or not — with a router job outstanding at
// most steps — and never activates an activity more often than the
// answers named it (a repeated answer finds no job).
func TestRouterJobRestartProperty(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	models := map[string]bool{"rjpar": false, "rjseq": true}
	for key, seq := range models {
		ordering := "Parallel"
		if seq {
			ordering = "Sequential"
		}
		if _, err := h.rt.Deploy(ctx, []runtime.File{{Name: key + ".bpmn", Content: []byte(routerModel(key, ordering))}}); err != nil {
			t.Fatal(err)
		}
	}
	rapid.Check(t, func(rt *rapid.T) {
		key := rapid.SampledFrom([]string{"rjpar", "rjseq"}).Draw(rt, "model")
		a := &run{h: h}
		defer a.cleanup(ctx)
		if err := a.start(ctx, key); err != nil {
			rt.Fatalf("start: %v", err)
		}
		var actions []action
		fail := func(r *run, format string, args ...any) {
			rt.Helper()
			rt.Fatalf("%s", r.anon(fmt.Sprintf("%s\nmodel %s\nactions:\n%s\ninstance:\n%s", fmt.Sprintf(format, args...), key, listActions(actions), r.dump(ctx))))
		}
		for {
			v, err := h.rt.Instance(ctx, a.id)
			if err != nil {
				fail(a, "instance: %v", err)
			}
			if v.Status == runtime.StatusCompleted {
				break
			}
			if len(actions) >= 200 {
				fail(a, "the instance did not end within 200 actions")
			}
			open, err := routerEnabled(ctx, a, len(actions) >= 40)
			if err != nil {
				fail(a, "enabled: %v", err)
			}
			if len(open) == 0 {
				fail(a, "stuck: the instance is %s and nothing can move it", v.Status)
			}
			next := open[rapid.IntRange(0, len(open)-1).Draw(rt, "action")]
			if next.Kind == actAnswer && len(actions) < 40 {
				var ids []string
				for _, id := range []string{"work", "review", "note", "ghost"} {
					if rapid.IntRange(0, 3).Draw(rt, "pick-"+id) == 0 {
						ids = append(ids, id)
					}
				}
				next.Name = strings.Join(ids, ",")
			}
			out, err := doRouter(ctx, a, next, len(actions))
			if err != nil {
				fail(a, "%v", err)
			}
			next.Outcome = out
			actions = append(actions, next)
			if out != "" && next.Kind != actAnswerAgain {
				fail(a, "%s was refused: %s", next, out)
			}
		}
		checkEnded(ctx, h, a, func(format string, args ...any) { fail(a, format, args...) })
		checkActivations(ctx, a, actions, func(format string, args ...any) { fail(a, format, args...) })
		want, err := a.summarize(ctx)
		if err != nil {
			fail(a, "summary: %v", err)
		}

		// The same actions on a new instance, restarting after every one.
		b := &run{h: h}
		defer b.cleanup(ctx)
		if err := b.start(ctx, key); err != nil {
			fail(a, "start of the replay: %v", err)
		}
		for i, act := range actions {
			if err := h.restart(); err != nil {
				fail(b, "restart: %v", err)
			}
			out, err := doRouter(ctx, b, act, i)
			if err != nil {
				fail(b, "replay step %d: %v", i, err)
			}
			if out != act.Outcome {
				fail(b, "replay step %d (%s) answered %q, the straight run %q", i, act, out, act.Outcome)
			}
		}
		if err := h.restart(); err != nil {
			fail(b, "restart: %v", err)
		}
		checkEnded(ctx, h, b, func(format string, args ...any) { fail(b, format, args...) })
		got, err := b.summarize(ctx)
		if err != nil {
			fail(b, "summary: %v", err)
		}
		if gs, ws := jsonString(got), jsonString(want); gs != ws {
			fail(b, "final state differs from the straight run:\nstraight: %s\nreplay:   %s", ws, gs)
		}
	})
}

// routerEnabled lists what the driver may do: answer (or fail, or answer
// twice) the router job, complete the work job and the review task, retry
// incidents. In drain mode the router answers nothing and does not fail.
func routerEnabled(ctx context.Context, r *run, drain bool) ([]action, error) {
	ws, err := r.h.waits(ctx, r.id)
	if err != nil {
		return nil, err
	}
	v, err := r.h.rt.Instance(ctx, r.id)
	if err != nil {
		return nil, err
	}
	var out []action
	for _, w := range ws {
		switch {
		case w.Kind == runtime.WaitJob && w.Retries == 0:
			// in an incident: retried below
		case w.Kind == runtime.WaitJob && w.Name == "rjtype":
			out = append(out, action{Kind: actAnswer, Target: r.local(w.ID)})
			if !drain {
				out = append(out, action{Kind: actAnswerAgain, Target: r.local(w.ID), Name: "work"}, action{Kind: actRouterFail, Target: r.local(w.ID)})
			}
		case w.Kind == runtime.WaitJob:
			out = append(out, action{Kind: actJobDone, Target: r.local(w.ID)})
		case w.Kind == runtime.WaitTask:
			out = append(out, action{Kind: actTask, Target: r.local(w.ID)})
		}
	}
	for _, in := range v.Incidents {
		if in.ResolvedAt.IsZero() {
			out = append(out, action{Kind: actRetry, Target: r.local(in.ID)})
		}
	}
	return out, nil
}

// doRouter performs a router action, or another through run.do.
func doRouter(ctx context.Context, r *run, a action, seq int) (string, error) {
	switch a.Kind {
	case actAnswer, actAnswerAgain, actRouterFail:
	default:
		return r.do(ctx, a, seq)
	}
	wait := r.global(a.Target)
	if err := r.activate(ctx, wait); err != nil {
		return "", err
	}
	job, ok := r.h.held[wait]
	if !ok {
		return "", fmt.Errorf("%s: router job %s was never activated", a, wait)
	}
	holder := runtime.JobHolder{Token: job.LockToken}
	var err error
	switch a.Kind {
	case actRouterFail:
		err = r.h.rt.FailJob(ctx, job.Key, holder, runtime.FailRequest{RetryBackoff: time.Second, ErrorMessage: "decider down"})
	default:
		answer := runtime.RouterAnswer{Variables: map[string]any{"answered": seq}}
		for _, id := range strings.Split(a.Name, ",") {
			if id != "" {
				answer.Activate = append(answer.Activate, runtime.Activation{ActivityID: id, Variables: map[string]any{"arg": seq}})
			}
		}
		if err = r.h.rt.CompleteRouterJob(ctx, job.Key, holder, answer); err == nil && a.Kind == actAnswerAgain {
			// A second completion of the same job (a worker that did not
			// see its first answer acknowledged) finds no job.
			err = r.h.rt.CompleteRouterJob(ctx, job.Key, holder, answer)
		}
	}
	if err == nil {
		return "", nil
	}
	var re *runtime.Error
	if !errors.As(err, &re) {
		return "", fmt.Errorf("%s: %w", a, err)
	}
	return r.anon(re.Code + ": " + re.Message), nil
}

// checkActivations asserts that no activity was activated more often than
// the router's accepted answers named it.
func checkActivations(ctx context.Context, r *run, actions []action, fail func(string, ...any)) {
	facts, err := r.h.rt.History(ctx, r.id, 0, 0)
	if err != nil {
		fail("history: %v", err)
	}
	named := map[string]int{}
	for _, a := range actions {
		if a.Kind == actAnswer || a.Kind == actAnswerAgain {
			for _, id := range strings.Split(a.Name, ",") {
				named[id]++
			}
		}
	}
	got := map[string]int{}
	for _, f := range facts {
		if f.Kind == "adhoc-activity-activated" {
			got[f.NodeID]++
		}
	}
	for id, n := range got {
		if n > named[id] {
			fail("%s was activated %d times, named by %d answers", id, n, named[id])
		}
	}
}
