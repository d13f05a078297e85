package runtime_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/gobpm/gobpm/internal/runtime"
)

// migrationSetup deploys versions 1 and 2 of "migr" and starts n
// instances of version 1 (orderId o-1 … o-n).
func migrationSetup(t *testing.T, b *bundle, n int) []runtime.InstanceID {
	t.Helper()
	ctx := context.Background()
	mustDeploy(t, b.rt, fixture(t, "migrate_v1.bpmn"))
	var ids []runtime.InstanceID
	for i := 1; i <= n; i++ {
		inst, err := b.rt.StartInstance(ctx, runtime.StartRequest{ProcessKey: "migr", Variables: map[string]any{"orderId": fmt.Sprintf("o-%d", i)}})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, inst.ID)
	}
	v2 := fixture(t, "migrate_v2.bpmn")
	v2.Name = "migrate_v1.bpmn" // the same resource, changed: version 2
	if res := mustDeploy(t, b.rt, v2); res.Processes[0].Version != 2 {
		t.Fatalf("deployed %+v", res.Processes)
	}
	return ids
}

// migratedFacts counts the instance-migrated facts of an instance.
func migratedFacts(t *testing.T, rt *runtime.Runtime, id runtime.InstanceID) []map[string]any {
	t.Helper()
	facts, err := rt.History(context.Background(), id, 0, 1000)
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	for _, f := range facts {
		if f.Kind == "instance-migrated" {
			var d map[string]any
			if err := json.Unmarshal(f.Detail, &d); err != nil {
				t.Fatal(err)
			}
			out = append(out, d)
		}
	}
	return out
}

func TestMigrationBatch(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := runtime.WithActingUser(context.Background(), "olga")
	ids := migrationSetup(t, b, 3)
	if _, err := b.rt.Cancel(ctx, ids[2]); err != nil {
		t.Fatal(err)
	}
	plan := runtime.MigrationPlan{ProcessKey: "migr", SourceVersion: 1, TargetVersion: 2}

	t.Run("refused with the problems per instance", func(t *testing.T) {
		_, check, err := b.rt.StartMigration(ctx, plan)
		if runtime.ErrorCode(err) != runtime.ECONFLICT {
			t.Fatalf("start: %v", err)
		}
		if len(check.Instances) != 2 || check.Instances[0].InstanceID != ids[0] || check.Instances[1].InstanceID != ids[1] {
			t.Fatalf("checked %+v", check.Instances)
		}
		for _, in := range check.Instances {
			if len(in.Problems) != 1 || in.Problems[0].Element != "msg" {
				t.Errorf("%s: %+v", in.InstanceID, in.Problems)
			}
		}
		explicit := plan
		explicit.Mapping = map[string]string{"msg": "msg2"}
		explicit.InstanceIDs = []runtime.InstanceID{ids[0], ids[2], "no-such-instance"}
		check, err = b.rt.CheckMigration(ctx, explicit)
		if err != nil || check.OK() || len(check.Instances[0].Problems) != 0 ||
			check.Instances[1].Problems[0].Message != fmt.Sprintf("instance %s is terminated", ids[2]) ||
			check.Instances[2].Problems[0].Message != "instance no-such-instance is not an instance of process migr" {
			t.Errorf("check %+v %v", check, err)
		}
		bad := plan
		bad.Mapping = map[string]string{"msg": "nope"}
		if _, check, err := b.rt.StartMigration(ctx, bad); runtime.ErrorCode(err) != runtime.EINVALID || len(check.Plan) != 1 {
			t.Errorf("bad mapping: %v %+v", err, check.Plan)
		}
		wrong := plan
		wrong.TargetVersion = 7
		if _, _, err := b.rt.StartMigration(ctx, wrong); runtime.ErrorCode(err) != runtime.ENOTFOUND {
			t.Errorf("unknown version: %v", err)
		}
		for _, id := range ids[:2] {
			if row, err := b.rt.Instance(ctx, id); err != nil || row.ProcessVersion != 1 {
				t.Errorf("%s moved: %v %d", id, err, row.ProcessVersion)
			}
		}
	})

	plan.Mapping = map[string]string{"msg": "msg2"}
	view, _, err := b.rt.StartMigration(ctx, plan)
	if err != nil {
		t.Fatal(err)
	}
	if view.Total != 2 || view.CreatedBy != "olga" {
		t.Fatalf("started %+v", view)
	}
	if err := b.rt.AwaitMigration(ctx, view.ID); err != nil {
		t.Fatal(err)
	}
	done, err := b.rt.Migration(ctx, view.ID)
	if err != nil || done.Status != runtime.MigrationCompleted || done.Migrated != 2 || done.Failed != 0 || done.Pending != 0 {
		t.Fatalf("done %+v %v", done, err)
	}
	for _, id := range ids[:2] {
		inst, err := b.rt.Instance(ctx, id)
		if err != nil || inst.ProcessVersion != 2 {
			t.Fatalf("%s: %v version %d", id, err, inst.ProcessVersion)
		}
		facts := migratedFacts(t, b.rt, id)
		if len(facts) != 1 || facts[0]["by"] != "olga" || facts[0]["fromVersion"] != 1.0 || facts[0]["toVersion"] != 2.0 {
			t.Errorf("%s facts %v", id, facts)
		}
		waits, _, err := b.rt.Waits(ctx, id, "", 100)
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range waits {
			if w.ProcessVersion != 2 {
				t.Errorf("wait %s at %s still version %d", w.ID, w.NodeID, w.ProcessVersion)
			}
		}
	}
	if _, err := b.rt.Migration(ctx, "nope"); runtime.ErrorCode(err) != runtime.ENOTFOUND {
		t.Errorf("unknown migration: %v", err)
	}

	t.Run("waits follow their elements", func(t *testing.T) {
		jobs, err := b.rt.ActivateJobs(ctx, runtime.ActivateRequest{Type: "pay2", Worker: "w", MaxJobs: 10, LockDuration: time.Minute})
		if err != nil || len(jobs) != 2 {
			t.Fatalf("pay2 jobs: %d %v", len(jobs), err)
		}
		if old, err := b.rt.ActivateJobs(ctx, runtime.ActivateRequest{Type: "pay", Worker: "w", MaxJobs: 10, LockDuration: time.Minute}); err != nil || len(old) != 0 {
			t.Errorf("pay jobs: %d %v", len(old), err)
		}
		if n, err := b.rt.CorrelateMessage(ctx, "ping", "o-1", nil); n != 0 && err == nil {
			t.Errorf("the old message still correlates: %d", n)
		}
		if n, err := b.rt.CorrelateMessage(ctx, "ping2", "o-1", nil); err != nil || n != 1 {
			t.Fatalf("ping2: %d %v", n, err)
		}
		inst, err := b.rt.Instance(ctx, ids[0])
		if err != nil {
			t.Fatal(err)
		}
		nodes := []string{}
		for _, tr := range inst.Tracks {
			nodes = append(nodes, tr.NodeID)
		}
		slices.Sort(nodes)
		if !slices.Equal(nodes, []string{"a", "review", "wait"}) {
			t.Errorf("tracks at %v", nodes)
		}
	})
}

// TestMigrationResumesAfterRestart closes the runtime after the first
// instance of a batch and reopens it on the same database: the batch goes
// on from where it stopped and migrates every instance exactly once.
func TestMigrationResumesAfterRestart(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	ids := migrationSetup(t, b, 3)
	first, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	runtime.AfterMigrationItem(b.rt, func(string, runtime.InstanceID) {
		once.Do(func() { close(first) })
		<-release
	})
	view, _, err := b.rt.StartMigration(ctx, runtime.MigrationPlan{ProcessKey: "migr", SourceVersion: 1, TargetVersion: 2,
		Mapping: map[string]string{"msg": "msg2"}})
	if err != nil {
		t.Fatal(err)
	}
	<-first
	rt := b.rt
	closed := make(chan error, 1)
	go func() { closed <- rt.Close() }()
	<-runtime.Stopping(rt) // Close began: the batch stops after the instance in hand
	close(release)
	if err := <-closed; err != nil {
		t.Fatal(err)
	}
	stopped, err := rt.Migration(ctx, view.ID)
	if err != nil || stopped.Status != runtime.MigrationRunning || stopped.Migrated != 1 || stopped.Pending != 2 {
		t.Fatalf("after close %+v %v", stopped, err)
	}
	b.close(t)
	b.open(t)
	if _, err := b.rt.Resume(ctx); err != nil {
		t.Fatal(err)
	}
	if err := b.rt.AwaitMigration(ctx, view.ID); err != nil {
		t.Fatal(err)
	}
	done, err := b.rt.Migration(ctx, view.ID)
	if err != nil || done.Status != runtime.MigrationCompleted || done.Migrated != 3 {
		t.Fatalf("after resume %+v %v", done, err)
	}
	for _, id := range ids {
		if facts := migratedFacts(t, b.rt, id); len(facts) != 1 {
			t.Errorf("%s migrated %d times", id, len(facts))
		}
	}
	if err := b.rt.AwaitMigration(ctx, "unknown"); err != nil {
		t.Errorf("await unknown: %v", err)
	}
}

// TestMigrationKeepsACall migrates a caller waiting for its child to a
// version where the call activity is renamed: the child's end still
// reaches the caller, which continues in the target version.
func TestMigrationKeepsACall(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	mustDeploy(t, b.rt, fixture(t, "calls/caller.bpmn"), fixture(t, "calls/callee.bpmn"))
	caller, err := b.rt.StartInstance(ctx, runtime.StartRequest{ProcessKey: "caller", Variables: map[string]any{"order": map[string]any{"amount": json.Number("5")}}})
	if err != nil {
		t.Fatal(err)
	}
	v2 := fixture(t, "migrate_caller_v2.bpmn")
	v2.Name = "calls/caller.bpmn"
	mustDeploy(t, b.rt, v2)
	plan := runtime.MigrationPlan{ProcessKey: "caller", SourceVersion: 1, TargetVersion: 2, Mapping: map[string]string{"callIt": "callChild"}}
	view, _, err := b.rt.StartMigration(ctx, plan)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.rt.AwaitMigration(ctx, view.ID); err != nil {
		t.Fatal(err)
	}
	if done, err := b.rt.Migration(ctx, view.ID); err != nil || done.Migrated != 1 {
		t.Fatalf("migration %+v %v", done, err)
	}
	waits, _, err := b.rt.Waits(ctx, caller.ID, "", 10)
	if err != nil || len(waits) != 1 || waits[0].Kind != "call" || waits[0].NodeID != "callChild" || waits[0].ProcessVersion != 2 {
		t.Fatalf("caller waits %+v %v", waits, err)
	}
	child := runtime.InstanceID(waits[0].ID)
	tasks, _, err := b.rt.Waits(ctx, child, "", 10)
	if err != nil || len(tasks) != 1 {
		t.Fatalf("child waits %+v %v", tasks, err)
	}
	if err := b.rt.CompleteTask(ctx, tasks[0].ID, runtime.Actor{User: "u"}, nil); err != nil {
		t.Fatal(err)
	}
	inst, err := b.rt.Instance(ctx, caller.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(inst.Tracks) != 1 || inst.Tracks[0].NodeID != "after" || inst.Variables["total"] != json.Number("10") {
		t.Errorf("caller after the child: tracks %+v variables %v", inst.Tracks, inst.Variables)
	}
}
