package runtime_test

import (
	"context"
	"testing"

	"github.com/gobpm/gobpm/internal/runtime"
)

// next receives the next change; the subscription's buffer already holds
// it when the command that committed it has returned.
func next(t *testing.T, s *runtime.ChangeSubscription) runtime.Change {
	t.Helper()
	select {
	case c := <-s.C():
		return c
	default:
		t.Fatal("no change delivered by the time the command returned")
		return runtime.Change{}
	}
}

// Every committed step is told to the subscribers: which instance, whether
// tasks or incidents changed; a closed subscription hears nothing more.
func TestChangeSubscriptions(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	mustDeploy(t, b.rt, fixture(t, "user_task.bpmn"), fixture(t, "xor_nomatch.bpmn"))
	sub := b.rt.SubscribeChanges()
	defer sub.Close()
	other := b.rt.SubscribeChanges()

	inst := start(t, b.rt, "userTask", nil)
	c := next(t, sub)
	if c.InstanceID != inst.ID || c.ProcessKey != "userTask" || c.Status != runtime.StatusRunning || !c.Tasks || c.Incidents {
		t.Errorf("start: %+v", c)
	}
	if got := next(t, other); got != c {
		t.Errorf("every subscriber hears it: %+v", got)
	}
	other.Close()

	failed := start(t, b.rt, "xorNoMatch", nil)
	if c := next(t, sub); c.InstanceID != failed.ID || !c.Incidents || c.Tasks {
		t.Errorf("an incident: %+v", c)
	}
	tasks, _, err := b.rt.Tasks(ctx, runtime.TaskFilter{InstanceID: inst.ID})
	if err != nil || len(tasks) != 1 {
		t.Fatalf("tasks %v %v", tasks, err)
	}
	if _, err := b.rt.ClaimTask(ctx, tasks[0].ID, runtime.Actor{User: "ann"}); err != nil {
		t.Fatal(err)
	}
	if c := next(t, sub); c.InstanceID != inst.ID || !c.Tasks {
		t.Errorf("a claim: %+v", c)
	}
	select {
	case c, ok := <-other.C():
		if ok {
			t.Errorf("a closed subscription heard %+v", c)
		}
	default:
	}
	if sub.Lost() {
		t.Error("nothing was lost")
	}
}
