package runtime_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/gobpm/gobpm/internal/runtime"
	"github.com/gobpm/gobpm/internal/testdb"
)

// startJobs deploys job.bpmn and starts n instances waiting at its job.
func startJobs(t *testing.T, rt *runtime.Runtime, n int) []runtime.InstanceID {
	t.Helper()
	mustDeploy(t, rt, fixture(t, "job.bpmn"))
	ids := make([]runtime.InstanceID, n)
	for i := range ids {
		v, err := rt.StartInstance(context.Background(), runtime.StartRequest{ProcessKey: "job"})
		if err != nil {
			t.Fatal(err)
		}
		ids[i] = v.ID
	}
	return ids
}

// factCount counts the facts of kind in an instance's history.
func factCount(t *testing.T, rt *runtime.Runtime, id runtime.InstanceID, kind string) int {
	t.Helper()
	facts, err := rt.History(context.Background(), id, 0, 1000)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, f := range facts {
		if f.Kind == kind {
			n++
		}
	}
	return n
}

func TestBatchOperations(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := runtime.WithActingUser(context.Background(), "olga")
	ids := startJobs(t, b.rt, 4)
	filter := runtime.InstanceFilter{ProcessKey: "job", Status: runtime.StatusRunning}

	for _, c := range []struct {
		name string
		req  runtime.BatchRequest
	}{
		{"unknown operation", runtime.BatchRequest{Operation: "explode", Filter: filter}},
		{"no variables", runtime.BatchRequest{Operation: runtime.BatchSetVariables, Filter: filter}},
		{"no instructions", runtime.BatchRequest{Operation: runtime.BatchModify, Filter: filter}},
		{"migration without a version", runtime.BatchRequest{Operation: runtime.BatchMigrate, Filter: filter}},
	} {
		if _, err := b.rt.CountBatch(ctx, c.req); runtime.ErrorCode(err) != runtime.EINVALID {
			t.Errorf("%s: %v, want EINVALID", c.name, err)
		}
	}

	n, err := b.rt.CountBatch(ctx, runtime.BatchRequest{Operation: runtime.BatchCancel, Filter: filter})
	if err != nil || n != 4 {
		t.Fatalf("dry run: %d %v, want 4", n, err)
	}
	set, err := b.rt.CreateBatch(ctx, runtime.BatchRequest{Operation: runtime.BatchSetVariables,
		Params: runtime.BatchParams{Variables: map[string]any{"flag": true}}, Filter: filter})
	if err != nil {
		t.Fatal(err)
	}
	if set.Total != 4 || set.CreatedBy != "olga" {
		t.Errorf("created %+v", set)
	}
	if err := b.rt.AwaitBatch(ctx, set.ID); err != nil {
		t.Fatal(err)
	}
	got, err := b.rt.Batch(ctx, set.ID)
	if err != nil || got.State != runtime.BatchCompleted || got.Done != 4 || got.Failed != 0 || got.Pending != 0 {
		t.Fatalf("set-variables batch %+v %v", got, err)
	}
	for _, id := range ids {
		v, err := b.rt.Instance(ctx, id)
		if err != nil || v.Variables["flag"] != true {
			t.Errorf("%s variables %v %v", id, v.Variables, err)
		}
	}

	// Cancel the first two; a third batch then finds them ended and fails
	// them, and cancels the others.
	two := filter
	cancel, err := b.rt.CreateBatch(ctx, runtime.BatchRequest{Operation: runtime.BatchCancel, Filter: two})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.rt.AwaitBatch(ctx, cancel.ID); err != nil {
		t.Fatal(err)
	}
	if got, _ := b.rt.Batch(ctx, cancel.ID); got.Done != 4 || got.State != runtime.BatchCompleted {
		t.Errorf("cancel batch %+v", got)
	}
	for _, id := range ids {
		if v, _ := b.rt.Instance(ctx, id); v.Status != runtime.StatusTerminated {
			t.Errorf("%s is %s after the cancel batch", id, v.Status)
		}
	}
	again, err := b.rt.CreateBatch(ctx, runtime.BatchRequest{Operation: runtime.BatchCancel, Filter: runtime.InstanceFilter{ProcessKey: "job"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.rt.AwaitBatch(ctx, again.ID); err != nil {
		t.Fatal(err)
	}
	items, err := b.rt.BatchItems(ctx, again.ID, runtime.BatchItemFilter{AfterSeq: -1})
	if err != nil || len(items) != 4 {
		t.Fatalf("items %+v %v", items, err)
	}
	for _, it := range items {
		if it.Status != runtime.BatchItemFailed || it.Reason == "" {
			t.Errorf("cancel of an ended instance: %+v, want failed with a reason", it)
		}
	}

	del, err := b.rt.CreateBatch(ctx, runtime.BatchRequest{Operation: runtime.BatchDelete, Filter: runtime.InstanceFilter{ProcessKey: "job"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.rt.AwaitBatch(ctx, del.ID); err != nil {
		t.Fatal(err)
	}
	if got, _ := b.rt.Batch(ctx, del.ID); got.Done != 4 {
		t.Errorf("delete batch %+v", got)
	}
	if rows, total, err := b.rt.ListInstances(ctx, runtime.InstanceFilter{ProcessKey: "job"}); err != nil || total != 0 {
		t.Errorf("left after the delete batch: %d %v %v", total, rows, err)
	}
	list, total, err := b.rt.Batches(ctx, runtime.BatchFilter{CreatedBy: "olga"})
	if err != nil || total != 4 || list[0].ID != del.ID {
		t.Errorf("batches %d %v", total, err)
	}
	if _, err := b.rt.Batch(ctx, "nope"); runtime.ErrorCode(err) != runtime.ENOTFOUND {
		t.Errorf("unknown batch: %v", err)
	}
	if _, err := b.rt.PauseBatch(ctx, del.ID); runtime.ErrorCode(err) != runtime.ECONFLICT {
		t.Errorf("pause of a completed batch: %v", err)
	}
}

// TestBatchPauseResumeCancel pauses a batch after its first item, resumes
// it, and cancels another.
func TestBatchPauseResumeCancel(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	startJobs(t, b.rt, 3)
	first, release := make(chan string, 8), make(chan struct{})
	runtime.AfterMigrationItem(b.rt, func(batch string, _ runtime.InstanceID) {
		first <- batch
		<-release
	})
	req := runtime.BatchRequest{Operation: runtime.BatchSetVariables, Params: runtime.BatchParams{Variables: map[string]any{"x": 1}},
		Filter: runtime.InstanceFilter{ProcessKey: "job"}}
	v, err := b.rt.CreateBatch(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	<-first
	if p, err := b.rt.PauseBatch(ctx, v.ID); err != nil || p.State != runtime.BatchPaused {
		t.Fatalf("pause %+v %v", p, err)
	}
	release <- struct{}{}
	if err := b.rt.AwaitBatch(ctx, v.ID); err != nil {
		t.Fatal(err)
	}
	if p, _ := b.rt.Batch(ctx, v.ID); p.Done != 1 || p.Pending != 2 || p.State != runtime.BatchPaused {
		t.Fatalf("paused batch %+v", p)
	}
	close(release)
	if _, err := b.rt.ResumeBatch(ctx, v.ID); err != nil {
		t.Fatal(err)
	}
	if err := b.rt.AwaitBatch(ctx, v.ID); err != nil {
		t.Fatal(err)
	}
	if p, _ := b.rt.Batch(ctx, v.ID); p.Done != 3 || p.State != runtime.BatchCompleted {
		t.Errorf("resumed batch %+v", p)
	}
	if _, err := b.rt.ResumeBatch(ctx, v.ID); runtime.ErrorCode(err) != runtime.ECONFLICT {
		t.Errorf("resume of a completed batch: %v", err)
	}
	c, err := b.rt.CreateBatch(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := b.rt.CancelBatch(ctx, c.ID); err != nil || got.State != runtime.BatchCancelled || got.FinishedAt.IsZero() {
		t.Errorf("cancel %+v %v", got, err)
	}
	if err := b.rt.AwaitBatch(ctx, c.ID); err != nil {
		t.Fatal(err)
	}
	if got, _ := b.rt.Batch(ctx, c.ID); got.State != runtime.BatchCancelled || got.Done+got.Pending != 3 {
		t.Errorf("cancelled batch %+v", got)
	}
}

// TestBatchActsOnceAcrossALostRecord stops the store between an act and
// its record: the act committed, its outcome did not. After a restart the
// batch finds the act's record and counts the instance done without
// cancelling it a second time.
func TestBatchActsOnceAcrossALostRecord(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	ids := startJobs(t, b.rt, 3)
	var once sync.Once
	db := b.db
	runtime.BeforeBatchRecord(b.rt, func(string, runtime.InstanceID) {
		once.Do(func() { _ = db.Close() }) // the record of the first act fails
	})
	v, err := b.rt.CreateBatch(ctx, runtime.BatchRequest{Operation: runtime.BatchCancel, Filter: runtime.InstanceFilter{ProcessKey: "job"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.rt.AwaitBatch(ctx, v.ID); err != nil {
		t.Fatal(err)
	}
	_ = b.rt.Close()
	b.rt, b.db = nil, nil
	// On a shared store the restarted runtime is another node, and the
	// lost one's lease holds the batch until it runs out: restart after
	// that (a node restarted under its own id takes its lease back at once).
	db, err = testdb.Open(ctx, b.path)
	if err != nil {
		t.Fatal(err)
	}
	b.db = db
	b.rt = runtime.New(db, runtime.Options{Now: func() time.Time { return time.Now().Add(3 * time.Minute) }})
	if _, err := b.rt.Resume(ctx); err != nil {
		t.Fatal(err)
	}
	if err := b.rt.AwaitBatch(ctx, v.ID); err != nil {
		t.Fatal(err)
	}
	got, err := b.rt.Batch(ctx, v.ID)
	if err != nil || got.State != runtime.BatchCompleted || got.Done != 3 || got.Failed != 0 {
		t.Fatalf("after restart %+v %v", got, err)
	}
	items, err := b.rt.BatchItems(ctx, v.ID, runtime.BatchItemFilter{AfterSeq: -1})
	if err != nil || items[0].Reason != "acted on before a restart" {
		t.Errorf("first item %+v %v", items, err)
	}
	for _, id := range ids {
		if n := factCount(t, b.rt, id, "instance-terminated"); n != 1 {
			t.Errorf("%s cancelled %d times", id, n)
		}
	}
}

// TestBatchRetryAndMigrate retries the open incidents of failed instances
// (each once) and migrates instances to another version by a batch.
func TestBatchRetryAndMigrate(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := runtime.WithActingUser(context.Background(), "olga")
	ids := startJobs(t, b.rt, 2)
	jobs, err := b.rt.ActivateJobs(ctx, runtime.ActivateRequest{Type: "charge-card", Worker: "w", MaxJobs: 10, LockDuration: time.Minute})
	if err != nil || len(jobs) != 2 {
		t.Fatalf("activate %v %v", jobs, err)
	}
	zero := 0
	for _, j := range jobs {
		if err := b.rt.FailJob(ctx, j.Key, runtime.JobHolder{Token: j.LockToken}, runtime.FailRequest{Retries: &zero, ErrorMessage: "down"}); err != nil {
			t.Fatal(err)
		}
	}
	retry, err := b.rt.CreateBatch(ctx, runtime.BatchRequest{Operation: runtime.BatchRetryIncidents, Params: runtime.BatchParams{Retries: 3},
		Filter: runtime.InstanceFilter{ProcessKey: "job", IncidentMessage: "down"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.rt.AwaitBatch(ctx, retry.ID); err != nil {
		t.Fatal(err)
	}
	if got, _ := b.rt.Batch(ctx, retry.ID); got.Total != 2 || got.Done != 2 || got.Params.Retries != 3 {
		t.Errorf("retry batch %+v", got)
	}
	for _, id := range ids {
		if open, err := b.rt.Incidents(ctx, id, true); err != nil || len(open) != 0 {
			t.Errorf("%s: open incidents %v %v", id, open, err)
		}
	}

	mod, err := b.rt.CreateBatch(ctx, runtime.BatchRequest{Operation: runtime.BatchModify, Params: runtime.BatchParams{
		Instructions: []runtime.Modification{{Cancel: &runtime.CancelElement{NodeID: "charge"}}, {Activate: &runtime.ActivateElement{NodeID: "charge"}}}},
		Filter: runtime.InstanceFilter{ProcessKey: "job"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.rt.AwaitBatch(ctx, mod.ID); err != nil {
		t.Fatal(err)
	}
	if got, _ := b.rt.Batch(ctx, mod.ID); got.Done != 2 || len(got.Params.Instructions) != 2 {
		t.Errorf("modify batch %+v", got)
	}
	for _, id := range ids {
		if n := factCount(t, b.rt, id, "element-terminated"); n != 1 {
			t.Errorf("%s: %d element-terminated facts, want the one of the modification", id, n)
		}
	}

	migr := migrationSetup(t, b, 2)
	if _, err := b.rt.CreateBatch(ctx, runtime.BatchRequest{Operation: runtime.BatchMigrate,
		Params: runtime.BatchParams{TargetVersion: 2, Mapping: map[string]string{"msg": "nope"}}, Filter: runtime.InstanceFilter{ProcessKey: "migr", ProcessVersion: 1}}); runtime.ErrorCode(err) != runtime.EINVALID {
		t.Errorf("a mapping that does not fit: %v, want EINVALID", err)
	}
	mv, err := b.rt.CreateBatch(ctx, runtime.BatchRequest{Operation: runtime.BatchMigrate,
		Params: runtime.BatchParams{TargetVersion: 2, Mapping: map[string]string{"msg": "msg2"}},
		Filter: runtime.InstanceFilter{ProcessKey: "migr", ProcessVersion: 1}})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.rt.AwaitBatch(ctx, mv.ID); err != nil {
		t.Fatal(err)
	}
	if got, _ := b.rt.Batch(ctx, mv.ID); got.Done != 2 || got.Failed != 0 {
		t.Errorf("migrate batch %+v", got)
	}
	for _, id := range migr {
		if v, _ := b.rt.Instance(ctx, id); v.ProcessVersion != 2 || len(migratedFacts(t, b.rt, id)) != 1 {
			t.Errorf("%s at version %d", id, v.ProcessVersion)
		}
	}
}
