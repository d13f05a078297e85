package runtime_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/gobpm/gobpm/internal/runtime"
	"github.com/gobpm/gobpm/internal/store/postgres"
	"github.com/gobpm/gobpm/internal/testdb"
)

// TestNodesOfOneProcess: a runtime names itself in Nodes with what
// Options.Node says; on a store nobody shares (SQLite) it is the only node.
func TestNodesOfOneProcess(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testdb.MustOpen(t)
	rt := runtime.New(db, runtime.Options{Node: runtime.NodeInfo{Address: "127.0.0.1:8080", Version: "v-test"}})
	t.Cleanup(func() { rt.Close() })
	if err := rt.Prepare(ctx); err != nil {
		t.Fatal(err)
	}
	nodes, err := rt.Nodes(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(nodes) != 1 || nodes[0].ID != rt.NodeID() || nodes[0].ID == "" || nodes[0].Address != "127.0.0.1:8080" ||
		nodes[0].Version != "v-test" || nodes[0].StartedAt.IsZero() || nodes[0].HeartbeatAt.Before(nodes[0].StartedAt) {
		t.Fatalf("Nodes = %+v (self %s)", nodes, rt.NodeID())
	}
}

// twoNodes starts two runtimes on one PostgreSQL database, as two
// processes would be. The test exists for PostgreSQL only: several nodes
// need a database server they share, which a SQLite file is not.
func twoNodes(t *testing.T, opts runtime.Options) [2]*runtime.Runtime {
	t.Helper()
	if d, _ := testdb.Driver(); d != testdb.Postgres {
		t.Skip("several nodes share a PostgreSQL server: run with GOBPM_TEST_DB=postgres")
	}
	url := testdb.DSN(t)
	var rts [2]*runtime.Runtime
	for i := range rts {
		db, err := postgres.Open(context.Background(), url, postgres.Options{NodeID: fmt.Sprintf("node-%d", i+1)})
		if err != nil {
			t.Fatal(err)
		}
		opts.Node = runtime.NodeInfo{Version: "test"}
		rt := runtime.New(db, opts)
		t.Cleanup(func() {
			rt.Close()
			db.Close()
		})
		if _, err := rt.Resume(context.Background()); err != nil {
			t.Fatal(err)
		}
		rts[i] = rt
	}
	return rts
}

// TestStepOvertakenByAnotherNode: node 2 holds an instance's state in its
// cache when node 1 steps the instance; node 2's next step finds the
// revision moved on, re-runs on the new state and commits, and its reads
// show node 1's change.
func TestStepOvertakenByAnotherNode(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	rts := twoNodes(t, runtime.Options{})
	mustDeploy(t, rts[0], fixture(t, "job.bpmn"))
	inst, err := rts[1].StartInstance(ctx, runtime.StartRequest{ProcessKey: "job"}) // cached on node 2
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rts[0].SetVariables(ctx, inst.ID, "", map[string]any{"a": "from node 1"}, false); err != nil {
		t.Fatal(err)
	}
	v, err := rts[1].Instance(ctx, inst.ID)
	if err != nil || v.Variables["a"] != "from node 1" {
		t.Fatalf("node 2 reads %v, %v; want node 1's variable", v.Variables, err)
	}
	if _, err := rts[0].SetVariables(ctx, inst.ID, "", map[string]any{"b": "from node 1"}, false); err != nil {
		t.Fatal(err)
	}
	// Node 2's cached state is one revision behind: its step is re-run.
	if _, err := rts[1].SetVariables(ctx, inst.ID, "", map[string]any{"c": "from node 2"}, false); err != nil {
		t.Fatal(err)
	}
	if n := rts[1].Metrics().StaleSteps; n != 1 {
		t.Errorf("node 2 re-ran %d steps, want 1", n)
	}
	if n := rts[1].Metrics().Collisions; n != 1 {
		t.Errorf("node 2 counted %d collisions, want 1", n)
	}
	v, err = rts[0].Instance(ctx, inst.ID)
	if err != nil || v.Variables["a"] == nil || v.Variables["b"] == nil || v.Variables["c"] == nil || v.Revision != 4 {
		t.Fatalf("instance = rev %d %v, %v; want all three variables at revision 4", v.Revision, v.Variables, err)
	}
}

// TestCompletesThroughTwoNodes: 20 completes of one job, half through
// each node, at once: exactly one succeeds, the others are refused (the
// job is gone or its lock no longer theirs), and the instance completes
// once.
func TestCompletesThroughTwoNodes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	rts := twoNodes(t, runtime.Options{})
	mustDeploy(t, rts[0], fixture(t, "job.bpmn"))
	inst, err := rts[0].StartInstance(ctx, runtime.StartRequest{ProcessKey: "job"})
	if err != nil {
		t.Fatal(err)
	}
	// The job is node 1's (its instance's home) for the home grace; node
	// 2's long poll gets it once the grace is over.
	jobs, err := rts[1].ActivateJobs(ctx, runtime.ActivateRequest{Type: "charge-card", Worker: "w", MaxJobs: 1,
		LockDuration: time.Minute, RequestTimeout: 30 * time.Second})
	if err != nil || len(jobs) != 1 {
		t.Fatalf("activate = %v, %v", jobs, err)
	}
	var (
		wg   sync.WaitGroup
		errs [20]error
	)
	start := make(chan struct{})
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			errs[i] = rts[i%2].CompleteJob(ctx, jobs[0].Key, runtime.JobHolder{Token: jobs[0].LockToken}, map[string]any{"by": i})
		}()
	}
	close(start)
	wg.Wait()
	won := 0
	for _, err := range errs {
		switch code := runtime.ErrorCode(err); {
		case err == nil:
			won++
		case code == runtime.ENOTFOUND, code == runtime.ECONFLICT && !errors.Is(err, runtime.ErrStale):
		default:
			t.Errorf("complete = %v", err)
		}
	}
	if won != 1 {
		t.Fatalf("%d completes succeeded (%v), want exactly 1", won, errs)
	}
	v, err := rts[1].Instance(ctx, inst.ID)
	if err != nil || v.Status != runtime.StatusCompleted {
		t.Fatalf("instance = %s, %v; want completed", v.Status, err)
	}
	facts, err := rts[0].History(ctx, inst.ID, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	ended := 0
	for _, f := range facts {
		if f.Kind == "instance-completed" {
			ended++
		}
	}
	if ended != 1 {
		t.Fatalf("%d instance-completed facts, want 1: %+v", ended, facts)
	}
}

// TestLongPollWokenByAnotherNode: a worker long-polling node 2 gets the
// job an instance started on node 1 creates: node 1's commit wakes it
// through the database (the heartbeat, which also polls, is an hour
// here, so nothing else could).
func TestLongPollWokenByAnotherNode(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	rts := twoNodes(t, runtime.Options{Heartbeat: time.Hour, NodeTimeout: 2 * time.Hour})
	mustDeploy(t, rts[0], fixture(t, "job.bpmn"))
	got := make(chan []runtime.JobView, 1)
	go func() {
		jobs, err := rts[1].ActivateJobs(ctx, runtime.ActivateRequest{Type: "charge-card", Worker: "w", MaxJobs: 1,
			LockDuration: time.Minute, RequestTimeout: runtime.MaxRequestTimeout})
		if err != nil {
			t.Error(err)
		}
		got <- jobs
	}()
	inst, err := rts[0].StartInstance(ctx, runtime.StartRequest{ProcessKey: "job"})
	if err != nil {
		t.Fatal(err)
	}
	if jobs := <-got; len(jobs) != 1 || jobs[0].InstanceID != inst.ID {
		t.Fatalf("node 2's long poll got %+v, want the job of %s", jobs, inst.ID)
	}
}

// TestClaimsThroughTwoNodes: 20 people claim one task at once, half
// through each node: exactly one becomes its assignee, the others are
// told someone else holds it.
func TestClaimsThroughTwoNodes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	rts := twoNodes(t, runtime.Options{})
	mustDeploy(t, rts[0], fixture(t, "user_task.bpmn"))
	inst, err := rts[1].StartInstance(ctx, runtime.StartRequest{ProcessKey: "userTask"})
	if err != nil {
		t.Fatal(err)
	}
	tasks, _, err := rts[0].Tasks(ctx, runtime.TaskFilter{InstanceID: inst.ID})
	if err != nil || len(tasks) != 1 {
		t.Fatalf("tasks = %+v, %v", tasks, err)
	}
	var (
		wg   sync.WaitGroup
		errs [20]error
	)
	start := make(chan struct{})
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			_, errs[i] = rts[i%2].ClaimTask(ctx, tasks[0].ID, runtime.Actor{User: fmt.Sprintf("clerk-%d", i), Groups: []string{"sales"}})
		}()
	}
	close(start)
	wg.Wait()
	var winner string
	for i, err := range errs {
		switch {
		case err == nil:
			if winner != "" {
				t.Fatalf("clerk-%d and %s both claimed the task", i, winner)
			}
			winner = fmt.Sprintf("clerk-%d", i)
		case runtime.ErrorCode(err) != runtime.ECONFLICT || errors.Is(err, runtime.ErrStale):
			t.Errorf("claim by clerk-%d = %v, want a conflict", i, err)
		}
	}
	task, err := rts[1].Task(ctx, tasks[0].ID)
	if err != nil || winner == "" || task.Assignee != winner {
		t.Fatalf("task assignee %q, %v; want the one winner %q", task.Assignee, err, winner)
	}
}

// TestActsThroughAnyNode: whatever node a request reaches acts on
// instances another node started — a message correlation, a signal
// broadcast, an ad-hoc activation and a task completion, the cancel
// cascade of a caller into its children — and each acts once.
func TestActsThroughAnyNode(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	rts := twoNodes(t, runtime.Options{})
	a, b := rts[0], rts[1]
	mustDeploy(t, a, fixture(t, "messages.bpmn"), fixture(t, "adhoc_manual.bpmn"), callFixture(t, "levels.bpmn"))

	// Messages and signals: started on a, delivered through b.
	paid, stopped := start(t, a, "messages", map[string]any{"orderId": "p"}), start(t, a, "messages", map[string]any{"orderId": "s"})
	if n, err := b.CorrelateMessage(ctx, "order-paid", "p", map[string]any{"paid": true}); err != nil || n != 1 {
		t.Fatalf("correlate through b: %d %v", n, err)
	}
	if v := instance(t, a, paid.ID); v.Status != runtime.StatusCompleted || v.Variables["paid"] != true {
		t.Fatalf("paid after the message: %s %v", v.Status, v.Variables)
	}
	if n, err := b.BroadcastSignal(ctx, "stop-all", nil); err != nil || n != 1 {
		t.Fatalf("signal through b: %d %v", n, err)
	}
	if v := instance(t, a, stopped.ID); v.Status != runtime.StatusRunning {
		t.Fatalf("stopped after the signal: %s", v.Status)
	}
	facts, err := a.History(ctx, stopped.ID, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	caught := 0
	for _, f := range facts {
		if f.Kind == "element-activated" && f.NodeID == "stopped" {
			caught++
		}
	}
	if caught != 1 {
		t.Errorf("the signal reached its boundary %d times, want once", caught)
	}

	// Ad-hoc: a region of an instance started on a, activated and worked
	// through b.
	inst := start(t, a, "adhocManual", nil)
	regions, err := b.AdHocRegions(ctx, inst.ID)
	if err != nil || len(regions) != 1 {
		t.Fatalf("regions through b: %v %+v", err, regions)
	}
	if _, err := b.ActivateAdHoc(ctx, inst.ID, regions[0].ScopeID, "A", runtime.Actor{User: "ann"}); err != nil {
		t.Fatal(err)
	}
	if _, err := a.ActivateAdHoc(ctx, inst.ID, regions[0].ScopeID, "A", runtime.Actor{User: "ann"}); runtime.ErrorCode(err) != runtime.ECONFLICT {
		t.Fatalf("activating A again through a: %v, want a conflict", err)
	}
	completeTask(t, b, inst.ID, "A", nil)

	// Cancel cascade: a caller started on a, cancelled through b, takes
	// its children with it.
	top := start(t, a, "levelA", nil)
	if _, err := b.Cancel(ctx, top.ID); err != nil {
		t.Fatal(err)
	}
	for _, ch := range instance(t, a, top.ID).Children {
		if v := instance(t, a, ch.InstanceID); v.Status != runtime.StatusTerminated {
			t.Errorf("child %s at %s is %s after the caller was cancelled through another node", ch.InstanceID, ch.NodeID, v.Status)
		}
	}
}
