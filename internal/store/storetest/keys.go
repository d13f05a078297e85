package storetest

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/gobpm/gobpm/internal/store"
)

// keyed names one entity that has a numeric key.
type keyed struct {
	kind store.KeyKind
	id   string
}

// MustNumericKey returns the key of the entity of kind with id or fails
// the test; the key must resolve back to the entity.
func MustNumericKey(tb testing.TB, db Store, kind store.KeyKind, id string) int64 {
	tb.Helper()
	ctx := context.Background()
	key, err := db.NumericKey(ctx, kind, id)
	if err != nil {
		tb.Fatalf("NumericKey(%s, %s): %v", kind, id, err)
	}
	if key < store.FirstKey {
		tb.Errorf("key of %s %s = %d, below the first key %d", kind, id, key, store.FirstKey)
	}
	back, err := db.ByNumericKey(ctx, kind, key)
	if err != nil || back != id {
		tb.Errorf("ByNumericKey(%s, %d) = %q, %v; want %q", kind, key, back, err, id)
	}
	return key
}

// wantNoKey fails unless the entity has no key.
func wantNoKey(tb testing.TB, db Store, kind store.KeyKind, id string) {
	tb.Helper()
	if key, err := db.NumericKey(context.Background(), kind, id); store.ErrorCode(err) != store.ENOTFOUND {
		tb.Errorf("NumericKey(%s, %s) = %d, %v; want not found", kind, id, key, err)
	}
}

// wantKeyUnknown fails unless key resolves to nothing as kind.
func wantKeyUnknown(tb testing.TB, db Store, kind store.KeyKind, key int64) {
	tb.Helper()
	if id, err := db.ByNumericKey(context.Background(), kind, key); store.ErrorCode(err) != store.ENOTFOUND {
		tb.Errorf("ByNumericKey(%s, %d) = %q, %v; want not found", kind, key, id, err)
	}
}

// testNumericKeys: every keyed entity gets a key in the commit that
// creates it, the first one Zeebe's first key; keys are unique across
// kinds, found both ways, stable across later writes and a restart, and
// resolve only for their own kind; an entity that is gone takes its key
// with it, and keys are never handed out twice.
func testNumericKeys(t *testing.T, open Opener) {
	t.Parallel()
	ctx := context.Background()
	db := open(t)

	const inst = store.InstanceID("01900000-0000-7000-8000-0000000000c1")
	job, task, tm := string(inst)+"-w000001", string(inst)+"-w000002", string(inst)+"-w000003"
	textJob := "job-with-a-text-id"
	res := Resource("order.bpmn", "v1", "order", "invoice")
	if _, _, err := db.Deploy(ctx, Deployment("d1", res, decisions(Resource("rules.dmn", "r1"), "rules"))); err != nil {
		t.Fatal(err)
	}
	s := NewStep(inst, "order", 1)
	s.Waits = []store.WaitRow{Job(job, "charge", 1), Task(task, 2, "", nil, nil), timer(tm, 3), Job(textJob, "charge", 4)}
	s.Incidents = []store.IncidentRow{{ID: "inc-1", NodeID: "svc", Kind: "job_failed", CreatedAt: t0}}
	MustCommit(t, db, s)

	entities := []keyed{
		{store.KeyDeployment, "d1"},
		{store.KeyProcessVersion, store.ProcessVersionID("order", 1)},
		{store.KeyProcessVersion, store.ProcessVersionID("invoice", 1)},
		{store.KeyInstance, string(inst)},
		{store.KeyJob, job},
		{store.KeyUserTask, task},
		{store.KeyJob, textJob},
		{store.KeyIncident, "inc-1"},
	}
	keys := map[keyed]int64{}
	owner := map[int64]keyed{}
	for _, e := range entities {
		k := MustNumericKey(t, db, e.kind, e.id)
		if o, dup := owner[k]; dup {
			t.Errorf("key %d of %s %s is also the key of %s %s", k, e.kind, e.id, o.kind, o.id)
		}
		keys[e], owner[k] = k, e
	}
	if keys[entities[0]] != store.FirstKey {
		t.Errorf("first key = %d, want %d (Zeebe's first key of partition 1)", keys[entities[0]], store.FirstKey)
	}
	// What has no key: a timer, a decision, an unknown id, a job asked as
	// a user task, and ids of one kind asked as another.
	wantNoKey(t, db, store.KeyJob, tm)
	wantNoKey(t, db, store.KeyUserTask, job)
	wantNoKey(t, db, store.KeyJob, task)
	wantNoKey(t, db, store.KeyProcessVersion, store.ProcessVersionID("rules", 1))
	wantNoKey(t, db, store.KeyInstance, "01900000-0000-7000-8000-0000000000ff")
	wantNoKey(t, db, store.KeyIncident, string(inst))
	wantNoKey(t, db, store.KeyKind(0), string(inst))
	// A key resolves only as its own kind; a made-up number resolves to nothing.
	for e, k := range keys {
		for kind := store.KeyInstance; kind <= store.KeyProcessVersion; kind++ {
			if kind != e.kind {
				wantKeyUnknown(t, db, kind, k)
			}
		}
	}
	for _, k := range []int64{0, -1, 1, store.FirstKey - 1, store.FirstKey + 1000, 1<<63 - 1} {
		for kind := store.KeyInstance; kind <= store.KeyProcessVersion; kind++ {
			wantKeyUnknown(t, db, kind, k)
		}
	}
	wantKeyUnknown(t, db, store.KeyKind(99), keys[entities[0]])

	// Several at once, for a page of a list.
	got, err := db.NumericKeys(ctx, store.KeyJob, []string{job, textJob, task, "nope"})
	if err != nil || len(got) != 2 || got[job] != keys[keyed{store.KeyJob, job}] || got[textJob] != keys[keyed{store.KeyJob, textJob}] {
		t.Errorf("NumericKeys(jobs) = %v, %v", got, err)
	}
	if got, err := db.NumericKeys(ctx, store.KeyJob, nil); err != nil || len(got) != 0 {
		t.Errorf("NumericKeys(none) = %v, %v", got, err)
	}

	// Written again (a job's retry, the task reassigned, the incident
	// resolved): the same keys. The text-id job completes: its key goes.
	next := NextStep(s, store.StatusRunning)
	j := Job(job, "charge", 1)
	j.Retries = 2
	tk := Task(task, 2, "ann", nil, nil)
	next.Waits = []store.WaitRow{j, tk}
	next.RemovedWaits = []string{textJob}
	inc := s.Incidents[0]
	inc.ResolvedAt = Sec(9)
	next.Incidents = []store.IncidentRow{inc}
	MustCommit(t, db, next)
	// The same resource again mints no version and no key; a new deployment has one.
	if _, _, err := db.Deploy(ctx, Deployment("d2", res)); err != nil {
		t.Fatal(err)
	}
	d2 := MustNumericKey(t, db, store.KeyDeployment, "d2")
	wantNoKey(t, db, store.KeyProcessVersion, store.ProcessVersionID("order", 2))
	wantNoKey(t, db, store.KeyJob, textJob)
	wantKeyUnknown(t, db, store.KeyJob, keys[keyed{store.KeyJob, textJob}])
	delete(keys, keyed{store.KeyJob, textJob})
	for e, k := range keys {
		if got := MustNumericKey(t, db, e.kind, e.id); got != k {
			t.Errorf("key of %s %s changed from %d to %d", e.kind, e.id, k, got)
		}
	}

	// A restart keeps them all; the counter goes on above every key handed
	// out, the removed job's too.
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db = db.Reopen(t)
	for e, k := range keys {
		if got := MustNumericKey(t, db, e.kind, e.id); got != k {
			t.Errorf("key of %s %s after a restart = %d, want %d", e.kind, e.id, got, k)
		}
	}
	// The instance ends: its remaining job and task lose their keys, the
	// instance and its incident keep theirs.
	end := NextStep(next, store.StatusCompleted)
	end.Incidents = nil
	MustCommit(t, db, end)
	wantNoKey(t, db, store.KeyJob, job)
	wantNoKey(t, db, store.KeyUserTask, task)
	wantKeyUnknown(t, db, store.KeyUserTask, keys[keyed{store.KeyUserTask, task}])
	MustNumericKey(t, db, store.KeyInstance, string(inst))
	MustNumericKey(t, db, store.KeyIncident, "inc-1")

	s2 := NewStep("01900000-0000-7000-8000-0000000000c2", "order", 1)
	s2.Waits = []store.WaitRow{Job(textJob, "charge", 5)} // the same id again: a new job
	MustCommit(t, db, s2)
	fresh := MustNumericKey(t, db, store.KeyJob, textJob)
	newest := MustNumericKey(t, db, store.KeyInstance, string(s2.Instance.ID))
	for _, k := range []int64{fresh, newest} {
		if k <= d2 {
			t.Errorf("key %d handed out after a restart is not above the last one before it (%d)", k, d2)
		}
		if o, dup := owner[k]; dup {
			t.Errorf("key %d handed out again (it was %s %s's)", k, o.kind, o.id)
		}
	}
}

// testNumericKeysDeleted: an instance deleted by retention takes its key
// and its incidents' keys with it.
func testNumericKeysDeleted(t *testing.T, open Opener) {
	t.Parallel()
	ctx := context.Background()
	db := retentionFixture(t, open)
	inc := string(idDone) + "-i1"
	k := MustNumericKey(t, db, store.KeyInstance, string(idDone))
	ki := MustNumericKey(t, db, store.KeyIncident, inc)
	kt := MustNumericKey(t, db, store.KeyInstance, string(idText))
	if err := db.DeleteInstance(ctx, idDone); err != nil {
		t.Fatal(err)
	}
	deleted, err := db.DeleteEndedInstances(ctx, store.RetentionFilter{
		ProcessKey: "order", ProcessVersion: 1, EndedBefore: t0.Add(4 * time.Minute), Limit: 100})
	if err != nil || !slices.Contains(deleted, idText) {
		t.Fatalf("DeleteEndedInstances = %v, %v; want %s among them", deleted, err, idText)
	}
	wantNoKey(t, db, store.KeyInstance, string(idDone))
	wantNoKey(t, db, store.KeyIncident, inc)
	wantNoKey(t, db, store.KeyInstance, string(idText))
	wantKeyUnknown(t, db, store.KeyInstance, k)
	wantKeyUnknown(t, db, store.KeyIncident, ki)
	wantKeyUnknown(t, db, store.KeyInstance, kt)
	MustNumericKey(t, db, store.KeyInstance, string(idRunning))
}

// testNumericKeysConcurrent: two stores on one database (two nodes, or a
// second process) creating entities at once never hand out one key twice.
func testNumericKeysConcurrent(t *testing.T, open Opener) {
	t.Parallel()
	ctx := context.Background()
	a := open(t)
	b := a.Reopen(t)
	const perNode = 20
	var wg sync.WaitGroup
	errs := make(chan error, 2*perNode)
	for n, db := range []*Harness{a, b} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range perNode {
				id := store.InstanceID(fmt.Sprintf("01900000-0000-7000-8000-%012x", n<<8|i))
				s := NewStep(id, "order", 1)
				s.Waits = []store.WaitRow{Job(string(id)+"-w000001", "charge", i)}
				s.Incidents = []store.IncidentRow{{ID: string(id) + "-i", NodeID: "svc", Kind: "job_failed", CreatedAt: t0}}
				if err := db.CommitSteps(ctx, []store.StepRecord{s}); err != nil {
					errs <- err
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	seen := map[int64]string{}
	for n := range 2 {
		for i := range perNode {
			id := fmt.Sprintf("01900000-0000-7000-8000-%012x", n<<8|i)
			for _, e := range []keyed{{store.KeyInstance, id}, {store.KeyJob, id + "-w000001"}, {store.KeyIncident, id + "-i"}} {
				k := MustNumericKey(t, a, e.kind, e.id)
				if other, dup := seen[k]; dup {
					t.Errorf("key %d of %s %s is also %s's", k, e.kind, e.id, other)
				}
				seen[k] = e.kind.String() + " " + e.id
			}
		}
	}
}
