package storetest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gobpm/gobpm/internal/store"
	"github.com/gobpm/gobpm/internal/store/sqlcodec"
	"github.com/gobpm/gobpm/internal/store/sqlquery"
)

// Sec is t0 plus n seconds.
func Sec(n int) time.Time { return t0.Add(time.Duration(n) * time.Second) }

// Job is a job wait of type typ created at Sec(created) with three retries.
func Job(id, typ string, created int) store.WaitRow {
	return store.WaitRow{
		ID: id, Kind: store.WaitJob, NodeID: "svc", ScopeID: "s0", TrackID: "t1",
		ProcessKey: "order", ProcessVersion: 1, Name: typ, Retries: 3, CreatedAt: Sec(created),
	}
}

// Task is a user task created at Sec(created).
func Task(id string, created int, assignee string, users, groups []string) store.WaitRow {
	return store.WaitRow{
		ID: id, Kind: store.WaitTask, NodeID: "approve", ScopeID: "s0", Name: "Approve " + id,
		Assignee: assignee, CandidateUsers: users, CandidateGroups: groups, CreatedAt: Sec(created),
	}
}

// timer is a timer wait due at Sec(due).
func timer(id string, due int) store.WaitRow {
	return store.WaitRow{ID: id, Kind: store.WaitTimer, NodeID: "wait", DueAt: Sec(due), CreatedAt: t0}
}

// Sub is a message or signal subscription created at Sec(created).
func Sub(id, kind, name, key string, created int) store.WaitRow {
	return store.WaitRow{ID: id, Kind: kind, NodeID: "catch", Name: name, CorrelationKey: key, CreatedAt: Sec(created)}
}

// WithWaits returns s carrying waits, each stamped with the step's instance.
func WithWaits(s store.StepRecord, waits ...store.WaitRow) store.StepRecord {
	s.Waits = nil
	for _, w := range waits {
		w.InstanceID = s.Instance.ID
		s.Waits = append(s.Waits, w)
	}
	return s
}

// CreateWithWaits commits the creating step of instance id carrying waits.
func CreateWithWaits(tb testing.TB, db Store, id store.InstanceID, waits ...store.WaitRow) store.StepRecord {
	tb.Helper()
	s := WithWaits(NewStep(id, "order", 1), waits...)
	MustCommit(tb, db, s)
	return s
}

// WaitIDs lists the ids of rows.
func WaitIDs(rows []store.WaitRow) []string {
	var out []string
	for _, w := range rows {
		out = append(out, w.ID)
	}
	return out
}

// lock sets the lock of wait id directly, for fixtures: owner until
// until, with the token hash tokenOf(id) and no user.
func lock(tb testing.TB, db *Harness, id, owner string, until time.Time) {
	tb.Helper()
	if err := db.Exec(`UPDATE waits SET lock_owner = ?, lock_expires_at = ?, lock_user = '', lock_token = ? WHERE id = ?`,
		owner, sqlcodec.EncodeTime(until), tokenOf(id), id); err != nil {
		tb.Fatal(err)
	}
}

// tokenOf is the token hash lock gives wait id.
func tokenOf(id string) []byte {
	sum := sha256.Sum256([]byte("token of " + id))
	return sum[:]
}

// tokenSeq numbers the token hashes of lockFor, so no two are equal.
var tokenSeq atomic.Int64

// LockFor is the lock of an activation of up to max jobs by worker (the
// user "user of <worker>") until until, with fresh token hashes.
func LockFor(worker string, max int, until time.Time) store.JobLock {
	l := store.JobLock{Worker: worker, User: "user of " + worker, Until: until}
	for range max {
		sum := sha256.Sum256(fmt.Appendf(nil, "token %d", tokenSeq.Add(1)))
		l.TokenHashes = append(l.TokenHashes, sum[:])
	}
	return l
}

// MustWait reads wait id or fails the test.
func MustWait(tb testing.TB, db Store, id string) store.WaitRow {
	tb.Helper()
	w, err := db.Wait(context.Background(), id)
	if err != nil {
		tb.Fatal(err)
	}
	return w
}

func testWaitRoundTrip(t *testing.T, open Opener) {
	t.Parallel()
	ctx := context.Background()
	db := open(t)
	full := store.WaitRow{
		ID: "w-full", Kind: store.WaitTask, NodeID: "approve", ScopeID: "s1", TrackID: "t7",
		ProcessKey: "order", ProcessVersion: 3, Name: "Approve", CorrelationKey: "ck", DueAt: Sec(60),
		Retries: 2, ErrorMessage: "boom", Assignee: "ann", CandidateUsers: []string{"ann", `b"ob`},
		CandidateGroups: []string{"sales"}, CreatedAt: Sec(1),
	}
	bare := store.WaitRow{ID: "w-bare", Kind: store.WaitSignal, CreatedAt: Sec(2)}
	s := CreateWithWaits(t, db, "i1", full, bare)
	for _, want := range s.Waits {
		t.Run(want.ID, func(t *testing.T) {
			t.Parallel()
			if got := MustWait(t, db, want.ID); !reflect.DeepEqual(got, want) {
				t.Errorf("Wait\n got %+v\nwant %+v", got, want)
			}
		})
	}
	t.Run("absent", func(t *testing.T) {
		t.Parallel()
		if _, err := db.Wait(ctx, "nope"); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("Wait(nope) = %v, want ErrNotFound", err)
		}
	})
}

func testCommitStepsWaits(t *testing.T, open Opener) {
	t.Parallel()
	ctx := context.Background()

	t.Run("replace clears the lock", func(t *testing.T) {
		t.Parallel()
		db := open(t)
		s1 := CreateWithWaits(t, db, "i1", Job("j1", "pay", 0))
		if got, err := db.ActivateJobs(ctx, "pay", Sec(0), LockFor("w1", 1, Sec(30))); err != nil || len(got) != 1 {
			t.Fatalf("ActivateJobs = %v, %v", got, err)
		}
		if w := MustWait(t, db, "j1"); w.LockOwner != "w1" || !w.LockExpiresAt.Equal(Sec(30)) || w.LockUser != "user of w1" || len(w.LockTokenHash) != 32 {
			t.Fatalf("lock after activation = %q (%q, %x) until %v", w.LockOwner, w.LockUser, w.LockTokenHash, w.LockExpiresAt)
		}
		failed := Job("j1", "pay", 0)
		failed.Retries, failed.ErrorMessage, failed.DueAt = 2, "timeout", Sec(5)
		failed.InstanceID = "i1"
		MustCommit(t, db, WithWaits(NextStep(s1, store.StatusRunning), failed))
		if got := MustWait(t, db, "j1"); !reflect.DeepEqual(got, failed) {
			t.Errorf("replaced job\n got %+v\nwant %+v", got, failed)
		}
	})

	t.Run("removal", func(t *testing.T) {
		t.Parallel()
		db := open(t)
		s1 := CreateWithWaits(t, db, "i1", Job("j1", "pay", 0), timer("tm1", 10), timer("tm2", 20))
		s2 := NextStep(s1, store.StatusRunning)
		s2.RemovedWaits = []string{"j1", "tm1", "never-existed"}
		// tm2 fires and is re-armed under the same id in the same step.
		s2.RemovedWaits = append(s2.RemovedWaits, "tm2")
		s2 = WithWaits(s2, timer("tm2", 40))
		MustCommit(t, db, s2)
		for _, id := range []string{"j1", "tm1"} {
			if _, err := db.Wait(ctx, id); !errors.Is(err, store.ErrNotFound) {
				t.Errorf("Wait(%s) after removal = %v, want ErrNotFound", id, err)
			}
		}
		if w := MustWait(t, db, "tm2"); !w.DueAt.Equal(Sec(40)) {
			t.Errorf("re-armed timer due %v, want %v", w.DueAt, Sec(40))
		}
	})

	t.Run("many removals", func(t *testing.T) {
		t.Parallel()
		db := open(t)
		// Ids as the engine mints them (the instance's UUID, "-w", a
		// counter) and a text one, beside another instance's jobs.
		const id, other = "3f2504e0-4f89-41d3-9a0c-0305e82c3301", "3f2504e0-4f89-41d3-9a0c-0305e82c3302"
		var jobs []store.WaitRow
		for i := range 600 {
			jobs = append(jobs, Job(fmt.Sprintf("%s-w%06d", id, i+1), "pay", i))
		}
		jobs = append(jobs, Job("text-job", "pay", 600))
		s1 := CreateWithWaits(t, db, id, jobs...)
		CreateWithWaits(t, db, other, Job(other+"-w000001", "pay", 0), Job(other+"-w000002", "pay", 0))
		// A step of the running instance removes 500 of them (and an
		// id never stored): the rest stay, keys and all.
		s2 := NextStep(s1, store.StatusRunning)
		for _, w := range jobs[:500] {
			s2.RemovedWaits = append(s2.RemovedWaits, w.ID)
		}
		s2.RemovedWaits = append(s2.RemovedWaits, id+"-w999999", "text-job")
		MustCommit(t, db, s2)
		for i, w := range jobs {
			_, err := db.Wait(ctx, w.ID)
			if gone := errors.Is(err, store.ErrNotFound); gone != (i < 500 || w.ID == "text-job") {
				t.Fatalf("Wait(%s) after removing 500 = %v", w.ID, err)
			}
		}
		keys, err := db.NumericKeys(ctx, store.KeyJob, []string{jobs[0].ID, jobs[499].ID, jobs[500].ID, "text-job", other + "-w000001"})
		if err != nil || len(keys) != 2 || keys[jobs[500].ID] == 0 || keys[other+"-w000001"] == 0 {
			t.Errorf("NumericKeys after removing 500 = %v, %v; want only %s and %s", keys, err, jobs[500].ID, other+"-w000001")
		}
		// The instance ends in a step that also removes the rest by id.
		s3 := NextStep(s2, store.StatusTerminated)
		for _, w := range jobs[500:600] {
			s3.RemovedWaits = append(s3.RemovedWaits, w.ID)
		}
		MustCommit(t, db, s3)
		if got, err := db.InstanceWaits(ctx, id); err != nil || len(got) != 0 {
			t.Errorf("InstanceWaits after the end = %d waits, %v", len(got), err)
		}
		if keys, err := db.NumericKeys(ctx, store.KeyJob, []string{jobs[599].ID, other + "-w000002"}); err != nil || len(keys) != 1 {
			t.Errorf("NumericKeys after the end = %v, %v; want only the other instance's", keys, err)
		}
		MustWait(t, db, other+"-w000001")
		MustWait(t, db, other+"-w000002")
	})

	t.Run("instance end removes remaining waits", func(t *testing.T) {
		t.Parallel()
		tests := []struct {
			status   string
			wantGone bool
		}{
			{store.StatusCompleted, true},
			{store.StatusTerminated, true},
			{store.StatusFailed, false},
			{store.StatusRunning, false},
		}
		for _, tt := range tests {
			t.Run(tt.status, func(t *testing.T) {
				t.Parallel()
				db := open(t)
				s1 := CreateWithWaits(t, db, "i1", Job("j1", "pay", 0), Task("k1", 0, "", nil, nil))
				CreateWithWaits(t, db, "i2", Job("j2", "pay", 0))
				MustCommit(t, db, NextStep(s1, tt.status))
				for _, id := range []string{"j1", "k1"} {
					_, err := db.Wait(ctx, id)
					if gone := errors.Is(err, store.ErrNotFound); gone != tt.wantGone {
						t.Errorf("Wait(%s) = %v; want gone %v", id, err, tt.wantGone)
					}
				}
				MustWait(t, db, "j2") // another instance's wait stays
			})
		}
	})

	t.Run("refused waits roll back the batch", func(t *testing.T) {
		t.Parallel()
		tests := []struct {
			name     string
			bad      store.WaitRow
			conflict bool
		}{
			{name: "id of another instance", bad: Job("other", "pay", 0), conflict: true},
			{name: "id of a start timer", bad: Job("st", "pay", 0), conflict: true},
			{name: "empty id", bad: Job("", "pay", 0)},
			{name: "empty kind", bad: store.WaitRow{ID: "x", CreatedAt: t0}},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				t.Parallel()
				db := open(t)
				CreateWithWaits(t, db, "i0", Job("other", "pay", 0))
				if err := db.ReplaceStartTimers(ctx, "order",
					[]store.WaitRow{{ID: "st", Kind: store.WaitStartTimer, DueAt: Sec(1), CreatedAt: t0}}); err != nil {
					t.Fatal(err)
				}
				good := WithWaits(NewStep("i1", "order", 1), Job("good", "pay", 0))
				bad := WithWaits(NewStep("i2", "order", 1), tt.bad)
				err := db.CommitSteps(ctx, []store.StepRecord{good, bad})
				if err == nil || errors.Is(err, store.ErrConflict) != tt.conflict {
					t.Fatalf("CommitSteps = %v; want an error, conflict %v", err, tt.conflict)
				}
				if _, err := db.Wait(ctx, "good"); !errors.Is(err, store.ErrNotFound) {
					t.Errorf("a wait of the failed batch landed: %v", err)
				}
				if w := MustWait(t, db, "other"); w.InstanceID != "i0" {
					t.Errorf("other instance's wait was taken over: %+v", w)
				}
				if w := MustWait(t, db, "st"); w.Kind != store.WaitStartTimer {
					t.Errorf("start timer was taken over: %+v", w)
				}
			})
		}
	})

	t.Run("wait stamped with another instance", func(t *testing.T) {
		t.Parallel()
		db := open(t)
		s := NewStep("i1", "order", 1)
		w := Job("j1", "pay", 0)
		w.InstanceID = "i2"
		s.Waits = []store.WaitRow{w}
		if err := db.CommitSteps(ctx, []store.StepRecord{s}); err == nil {
			t.Fatal("CommitSteps accepted a wait of another instance")
		}
	})
}

func testActivateJobs(t *testing.T, open Opener) {
	t.Parallel()
	ctx := context.Background()
	// fixture: pay jobs a1..a3 (created 1..3), ship job s1, and three pay
	// jobs created at 0 that are not activatable at Sec(0): z0 has no
	// retries, f1 is due at Sec(60), l1 is locked until Sec(30).
	fixture := func(t *testing.T) *Harness {
		db := open(t)
		f1 := Job("f1", "pay", 0)
		f1.DueAt = Sec(60)
		z0 := Job("z0", "pay", 0)
		z0.Retries = 0
		now := Job("n0", "pay", 4)
		now.DueAt = Sec(0) // due exactly now: activatable
		CreateWithWaits(t, db, "i1", Job("a2", "pay", 2), Job("a1", "pay", 1), Job("s1", "ship", 0), z0, f1)
		CreateWithWaits(t, db, "i2", Job("a3", "pay", 3), Job("l1", "pay", 0), now, Task("pay", 0, "", nil, nil))
		lock(t, db, "l1", "other", Sec(30))
		return db
	}
	tests := []struct {
		name string
		typ  string
		max  int
		now  int
		want []string
	}{
		{name: "type filter, oldest first", typ: "pay", max: 10, now: 0, want: []string{"a1", "a2", "a3", "n0"}},
		{name: "max", typ: "pay", max: 2, now: 0, want: []string{"a1", "a2"}},
		{name: "other type", typ: "ship", max: 10, now: 0, want: []string{"s1"}},
		{name: "lock expired at now", typ: "pay", max: 10, now: 30, want: []string{"l1", "a1", "a2", "a3", "n0"}},
		// SQLite keeps free jobs and expired locks in two indexes: the
		// batch takes the oldest of both.
		{name: "expired lock older than every free job", typ: "pay", max: 1, now: 30, want: []string{"l1"}},
		{name: "batch spans both", typ: "pay", max: 2, now: 30, want: []string{"l1", "a1"}},
		{name: "due reached", typ: "pay", max: 10, now: 60, want: []string{"f1", "l1", "a1", "a2", "a3", "n0"}},
		{name: "zero max", typ: "pay", max: 0, now: 0},
		{name: "unknown type", typ: "nope", max: 10, now: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			db := fixture(t)
			until := Sec(tt.now + 300)
			lk := LockFor("w1", tt.max, until)
			got, err := db.ActivateJobs(ctx, tt.typ, Sec(tt.now), lk)
			if err != nil {
				t.Fatal(err)
			}
			if ids := WaitIDs(got); !reflect.DeepEqual(ids, tt.want) {
				t.Fatalf("activated %v, want %v", ids, tt.want)
			}
			for i, w := range got {
				stored := MustWait(t, db, w.ID)
				if w.LockOwner != "w1" || w.LockUser != "user of w1" || !w.LockExpiresAt.Equal(until) ||
					!bytes.Equal(w.LockTokenHash, lk.TokenHashes[i]) || !reflect.DeepEqual(stored, w) {
					t.Errorf("job %s: returned %+v, stored %+v; want locked by w1 until %v with token hash %d", w.ID, w, stored, until, i)
				}
			}
		})
	}

	t.Run("locked jobs are skipped until the lock expires", func(t *testing.T) {
		t.Parallel()
		db := open(t)
		CreateWithWaits(t, db, "i1", Job("a1", "pay", 1), Job("a2", "pay", 2))
		steps := []struct {
			now, until int
			worker     string
			want       []string
		}{
			{now: 0, until: 10, worker: "w1", want: []string{"a1"}},
			{now: 0, until: 10, worker: "w2", want: []string{"a2"}},
			{now: 5, until: 20, worker: "w3"},
			{now: 10, until: 20, worker: "w3", want: []string{"a1", "a2"}},
		}
		for i, st := range steps {
			max := 1
			if st.now > 0 {
				max = 10
			}
			got, err := db.ActivateJobs(ctx, "pay", Sec(st.now), LockFor(st.worker, max, Sec(st.until)))
			if err != nil {
				t.Fatal(err)
			}
			if ids := WaitIDs(got); !reflect.DeepEqual(ids, st.want) {
				t.Fatalf("call %d: activated %v, want %v", i, ids, st.want)
			}
		}
	})
}

// testActivateJobsTokens checks that each activated job holds its own
// token hash and the activating user, that activating again replaces
// both, and that malformed hashes are refused before anything is locked.
func testActivateJobsTokens(t *testing.T, open Opener) {
	t.Parallel()
	ctx := context.Background()
	db := open(t)
	CreateWithWaits(t, db, "i1", Job("a3", "pay", 3), Job("a1", "pay", 1), Job("a2", "pay", 2))

	for name, lk := range map[string]store.JobLock{
		"short hash":    {Worker: "w", Until: Sec(10), TokenHashes: [][]byte{make([]byte, 31)}},
		"repeated hash": {Worker: "w", Until: Sec(10), TokenHashes: [][]byte{tokenOf("x"), tokenOf("y"), tokenOf("x")}},
	} {
		if got, err := db.ActivateJobs(ctx, "pay", Sec(0), lk); err == nil {
			t.Errorf("%s: activated %v", name, WaitIDs(got))
		}
	}
	if w := MustWait(t, db, "a1"); w.LockOwner != "" || w.LockTokenHash != nil {
		t.Fatalf("a refused activation locked a1: %+v", w)
	}

	first := LockFor("w1", 3, Sec(10))
	got, err := db.ActivateJobs(ctx, "pay", Sec(0), first)
	if err != nil || !reflect.DeepEqual(WaitIDs(got), []string{"a1", "a2", "a3"}) {
		t.Fatalf("ActivateJobs = %v, %v", WaitIDs(got), err)
	}
	for i, w := range got {
		if !bytes.Equal(MustWait(t, db, w.ID).LockTokenHash, first.TokenHashes[i]) {
			t.Errorf("job %s does not hold token hash %d", w.ID, i)
		}
	}
	// Expired: another worker and user take a1 and a2 under new tokens; a3
	// keeps its expired lock.
	second := LockFor("w2", 2, Sec(40))
	if got, err := db.ActivateJobs(ctx, "pay", Sec(10), second); err != nil || len(got) != 2 {
		t.Fatalf("second activation = %v, %v", WaitIDs(got), err)
	}
	for i, id := range []string{"a1", "a2"} {
		w := MustWait(t, db, id)
		if w.LockOwner != "w2" || w.LockUser != "user of w2" || !w.LockExpiresAt.Equal(Sec(40)) || !bytes.Equal(w.LockTokenHash, second.TokenHashes[i]) {
			t.Errorf("%s after the second activation: %+v", id, w)
		}
	}
	if w := MustWait(t, db, "a3"); w.LockOwner != "w1" || !bytes.Equal(w.LockTokenHash, first.TokenHashes[2]) {
		t.Errorf("a3, expired but not taken again, lost its lock: %+v", w)
	}
}

// testLockGuard checks a step's LockGuard: the step commits while the job
// holds the token, and fails with ErrLockLost, writing nothing, once the
// Job is locked with another token, was never locked, or is gone.
func testLockGuard(t *testing.T, open Opener) {
	t.Parallel()
	ctx := context.Background()
	db := open(t)
	s1 := CreateWithWaits(t, db, "i1", Job("j1", "pay", 0), Job("j2", "pay", 1))
	lock(t, db, "j1", "w1", Sec(30))
	tests := []struct {
		name  string
		guard store.LockGuard
	}{
		{"another token", store.LockGuard{WaitID: "j1", TokenHash: tokenOf("j2")}},
		{"never locked", store.LockGuard{WaitID: "j2", TokenHash: tokenOf("j2")}},
		{"no such job", store.LockGuard{WaitID: "j9", TokenHash: tokenOf("j9")}},
		// j1 was locked without a user (''): a guard naming a user fails.
		{"another user", store.LockGuard{WaitID: "j1", TokenHash: tokenOf("j1"), CheckUser: true, User: "bob"}},
	}
	for _, tt := range tests {
		s2 := NextStep(s1, store.StatusRunning)
		s2.RemovedWaits = []string{"j1"}
		s2.LockGuard = &tt.guard
		if err := db.CommitSteps(ctx, []store.StepRecord{s2}); !errors.Is(err, store.ErrLockLost) || store.ErrorCode(err) != store.ECONFLICT {
			t.Errorf("%s: CommitSteps = %v, want ErrLockLost", tt.name, err)
		}
		if row, err := db.InstanceRow(ctx, "i1"); err != nil || row.Revision != s1.Instance.Revision {
			t.Fatalf("%s: the refused step was written: %+v, %v", tt.name, row, err)
		}
		MustWait(t, db, "j1")
	}
	s2 := NextStep(s1, store.StatusRunning)
	s2.RemovedWaits = []string{"j1"}
	s2.LockGuard = &store.LockGuard{WaitID: "j1", TokenHash: tokenOf("j1"), CheckUser: true, User: ""}
	MustCommit(t, db, s2)
	if _, err := db.Wait(ctx, "j1"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("j1 after the guarded step: %v, want gone", err)
	}
}

// testActivateJobsConcurrent has 8 workers drain 200 jobs concurrently; every
// Job must be handed out exactly once.
func testActivateJobsConcurrent(t *testing.T, open Opener) {
	t.Parallel()
	ctx := context.Background()
	db := open(t)
	const (
		instances   = 20
		perInstance = 10
		workers     = 8
	)
	var steps []store.StepRecord
	for i := range instances {
		var waits []store.WaitRow
		for j := range perInstance {
			waits = append(waits, Job(fmt.Sprintf("j%02d-%02d", i, j), "pay", i*perInstance+j))
		}
		steps = append(steps, WithWaits(NewStep(store.InstanceID(fmt.Sprintf("i%02d", i)), "order", 1), waits...))
	}
	MustCommit(t, db, steps...)

	var (
		mu   sync.Mutex
		got  = map[string][]string{} // Job → workers that received it
		wg   sync.WaitGroup
		errs = make(chan error, workers)
	)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			worker := fmt.Sprintf("w%d", w)
			for {
				jobs, err := db.ActivateJobs(ctx, "pay", Sec(0), LockFor(worker, 7, Sec(600)))
				if err != nil {
					errs <- err
					return
				}
				if len(jobs) == 0 {
					return
				}
				mu.Lock()
				for _, j := range jobs {
					if j.LockOwner != worker {
						errs <- fmt.Errorf("job %s returned to %s with owner %s", j.ID, worker, j.LockOwner)
					}
					got[j.ID] = append(got[j.ID], worker)
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if len(got) != instances*perInstance {
		t.Errorf("%d distinct jobs activated, want %d", len(got), instances*perInstance)
	}
	for id, ws := range got {
		if len(ws) != 1 {
			t.Errorf("job %s handed to %v", id, ws)
		}
	}
}

func testNextJobAvailable(t *testing.T, open Opener) {
	t.Parallel()
	ctx := context.Background()
	db := open(t)
	// pay: lk locked until 5; du due at 10; bo due at 20 and locked until 25;
	// nr due at 1 without retries; av available now. ship: sh due at 1.
	lk, du, bo, nr, av, sh := Job("lk", "pay", 0), Job("du", "pay", 0), Job("bo", "pay", 0),
		Job("nr", "pay", 0), Job("av", "pay", 0), Job("sh", "ship", 0)
	du.DueAt, bo.DueAt, nr.DueAt, sh.DueAt = Sec(10), Sec(20), Sec(1), Sec(1)
	nr.Retries = 0
	CreateWithWaits(t, db, "i1", lk, du, bo, nr, av, sh)
	lock(t, db, "lk", "w", Sec(5))
	lock(t, db, "bo", "w", Sec(25))
	tests := []struct {
		name   string
		typ    string
		now    int
		want   int
		wantOK bool
	}{
		{name: "lock expiry first", typ: "pay", now: 0, want: 5, wantOK: true},
		{name: "expired lock is not after now", typ: "pay", now: 5, want: 10, wantOK: true},
		{name: "later of due and lock", typ: "pay", now: 10, want: 25, wantOK: true},
		{name: "nothing after now", typ: "pay", now: 25},
		{name: "other type", typ: "ship", now: 0, want: 1, wantOK: true},
		{name: "unknown type", typ: "nope", now: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, ok, err := db.NextJobAvailable(ctx, tt.typ, Sec(tt.now))
			if err != nil {
				t.Fatal(err)
			}
			if ok != tt.wantOK || (ok && !got.Equal(Sec(tt.want))) {
				t.Errorf("NextJobAvailable = %v, %v; want %v, %v", got, ok, Sec(tt.want), tt.wantOK)
			}
		})
	}
}

func testExtendJobLock(t *testing.T, open Opener) {
	t.Parallel()
	ctx := context.Background()
	db := open(t)
	CreateWithWaits(t, db, "i1", Job("locked", "pay", 0), Job("free", "pay", 0), Job("expired", "pay", 0),
		Task("task", 0, "", nil, nil))
	lock(t, db, "locked", "w1", Sec(30))
	lock(t, db, "expired", "w1", Sec(10))
	tests := []struct {
		name    string
		key     string
		token   []byte // tokenOf(key) when nil
		now     int
		wantErr error
	}{
		{name: "another token", key: "locked", token: tokenOf("expired"), now: 20, wantErr: store.ErrConflict},
		{name: "live lock", key: "locked", now: 20},
		{name: "unknown key", key: "nope", now: 20, wantErr: store.ErrNotFound},
		{name: "not a job", key: "task", now: 20, wantErr: store.ErrNotFound},
		{name: "not locked", key: "free", now: 20, wantErr: store.ErrConflict},
		{name: "lock expired", key: "expired", now: 20, wantErr: store.ErrConflict},
		{name: "lock expires exactly now", key: "expired", now: 10, wantErr: store.ErrConflict},
	}
	for _, tt := range tests {
		// Sequential: the cases share one database and "live lock" moves a lock.
		t.Run(tt.name, func(t *testing.T) {
			token := tt.token
			if token == nil {
				token = tokenOf(tt.key)
			}
			err := db.ExtendJobLock(ctx, tt.key, token, Sec(tt.now), Sec(90))
			if tt.wantErr == nil {
				if err != nil {
					t.Fatal(err)
				}
				if w := MustWait(t, db, tt.key); w.LockOwner != "w1" || !w.LockExpiresAt.Equal(Sec(90)) {
					t.Errorf("lock after extend = %q until %v", w.LockOwner, w.LockExpiresAt)
				}
				return
			}
			if !errors.Is(err, tt.wantErr) {
				t.Errorf("ExtendJobLock = %v, want %v", err, tt.wantErr)
			}
		})
	}
}

func testTasks(t *testing.T, open Opener) {
	t.Parallel()
	ctx := context.Background()
	db := open(t)
	CreateWithWaits(t, db, "i1",
		Task("t1", 1, "ann", []string{"ann", "bob"}, []string{"sales"}),
		Task("t2", 2, "", []string{"bob"}, []string{"sales", "ops"}),
		// t4 shares t3's creation time; id breaks the tie. Its candidates
		// contain the others as substrings only.
		Task("t4", 3, "", []string{"bobby", `"bob"`}, []string{"sales-eu"}),
		// A job is no task even with a matching name.
		Job("t0", "ann", 0),
	)
	CreateWithWaits(t, db, "i2", Task("t3", 3, "bob", nil, []string{"ops"}))
	tests := []struct {
		name      string
		filter    store.TaskFilter
		want      []string
		wantTotal int
	}{
		{name: "all oldest first", want: []string{"t1", "t2", "t3", "t4"}, wantTotal: 4},
		{name: "assignee", filter: store.TaskFilter{Assignee: "ann"}, want: []string{"t1"}, wantTotal: 1},
		{name: "candidate user", filter: store.TaskFilter{CandidateUser: "bob"}, want: []string{"t1", "t2"}, wantTotal: 2},
		{name: "candidate group", filter: store.TaskFilter{CandidateGroup: "sales"}, want: []string{"t1", "t2"}, wantTotal: 2},
		{name: "user and group", filter: store.TaskFilter{CandidateUser: "bob", CandidateGroup: "ops"}, want: []string{"t2"}, wantTotal: 1},
		{name: "instance", filter: store.TaskFilter{InstanceID: "i2"}, want: []string{"t3"}, wantTotal: 1},
		{name: "page", filter: store.TaskFilter{Limit: 2, Offset: 1}, want: []string{"t2", "t3"}, wantTotal: 4},
		{name: "past the end", filter: store.TaskFilter{Offset: 10}, wantTotal: 4},
		{name: "no match", filter: store.TaskFilter{Assignee: "ann", InstanceID: "i2"}},
		{name: "unassigned", filter: store.TaskFilter{Unassigned: true}, want: []string{"t2", "t4"}, wantTotal: 2},
		{name: "any of the groups", filter: store.TaskFilter{CandidateGroupsAny: []string{"ops", "sales-eu"}}, want: []string{"t2", "t3", "t4"}, wantTotal: 3},
		{name: "offered and unassigned", filter: store.TaskFilter{OfferedTo: &store.Actor{User: "bob"}, Unassigned: true}, want: []string{"t2"}, wantTotal: 1},
		{name: "newest first", filter: store.TaskFilter{Order: store.TaskOrderNewest}, want: []string{"t4", "t3", "t2", "t1"}, wantTotal: 4},
		{name: "newest first, paged", filter: store.TaskFilter{Order: store.TaskOrderNewest, Limit: 2, Offset: 1}, want: []string{"t3", "t2"}, wantTotal: 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rows, total, err := db.Tasks(ctx, tt.filter)
			if err != nil {
				t.Fatal(err)
			}
			if ids := WaitIDs(rows); !reflect.DeepEqual(ids, tt.want) || total != tt.wantTotal {
				t.Errorf("Tasks = %v (total %d), want %v (total %d)", ids, total, tt.want, tt.wantTotal)
			}
		})
	}

	t.Run("process and due date", func(t *testing.T) {
		t.Parallel()
		db := open(t)
		// The runtime gives every wait its instance's process key.
		task := func(id string, created, dueAt int, key string) store.WaitRow {
			w := Task(id, created, "", nil, nil)
			w.ProcessKey, w.ProcessVersion = key, 1
			if dueAt > 0 {
				w.DueAt = Sec(dueAt)
			}
			return w
		}
		CreateWithWaits(t, db, "i1", task("a1", 1, 30, "order"), task("a2", 2, 0, "order"), task("a3", 3, 10, "order"))
		MustCommit(t, db, WithWaits(NewStep("i2", "invoice", 1), task("b1", 4, 5, "invoice")))
		for _, tc := range []struct {
			name   string
			filter store.TaskFilter
			want   []string
		}{
			{"process order", store.TaskFilter{ProcessKey: "order"}, []string{"a1", "a2", "a3"}},
			{"process invoice", store.TaskFilter{ProcessKey: "invoice"}, []string{"b1"}},
			{"due before 20", store.TaskFilter{DueBefore: Sec(20)}, []string{"a3", "b1"}},
			{"by due date, none last", store.TaskFilter{Order: store.TaskOrderDue}, []string{"b1", "a3", "a1", "a2"}},
			{"order by due date, paged", store.TaskFilter{ProcessKey: "order", Order: store.TaskOrderDue, Limit: 2}, []string{"a3", "a1"}},
		} {
			rows, total, err := db.Tasks(ctx, tc.filter)
			if err != nil {
				t.Fatal(err)
			}
			wantTotal := len(tc.want)
			if tc.filter.Limit > 0 {
				wantTotal = 3
			}
			if ids := WaitIDs(rows); !reflect.DeepEqual(ids, tc.want) || total != wantTotal {
				t.Errorf("%s: Tasks = %v (total %d), want %v (total %d)", tc.name, ids, total, tc.want, wantTotal)
			}
		}
	})

	t.Run("limit default and cap", func(t *testing.T) {
		t.Parallel()
		db := open(t)
		var waits []store.WaitRow
		for i := range sqlquery.MaxListLimit + 10 {
			waits = append(waits, Task(fmt.Sprintf("t%04d", i), i, "", nil, nil))
		}
		CreateWithWaits(t, db, "i1", waits...)
		for _, tc := range []struct{ limit, want int }{{0, sqlquery.DefaultListLimit}, {10 * sqlquery.MaxListLimit, sqlquery.MaxListLimit}, {7, 7}} {
			rows, total, err := db.Tasks(ctx, store.TaskFilter{Limit: tc.limit})
			if err != nil {
				t.Fatal(err)
			}
			if len(rows) != tc.want || total != sqlquery.MaxListLimit+10 {
				t.Errorf("Limit %d: %d rows (total %d), want %d (total %d)", tc.limit, len(rows), total, tc.want, sqlquery.MaxListLimit+10)
			}
		}
	})
}

func testTimers(t *testing.T, open Opener) {
	t.Parallel()
	ctx := context.Background()

	t.Run("none", func(t *testing.T) {
		t.Parallel()
		db := open(t)
		CreateWithWaits(t, db, "i1", Job("j1", "pay", 0)) // a job's DueAt is no timer
		backoff := Job("j2", "pay", 0)
		backoff.DueAt = Sec(1)
		CreateWithWaits(t, db, "i2", backoff)
		if next, ok, err := db.NextTimer(ctx); err != nil || ok {
			t.Errorf("NextTimer = %v, %v, %v; want none", next, ok, err)
		}
		if due, err := db.DueTimers(ctx, Sec(100), 0); err != nil || len(due) != 0 {
			t.Errorf("DueTimers = %v, %v; want none", WaitIDs(due), err)
		}
	})

	db := open(t)
	backoff := Job("j1", "pay", 0)
	backoff.DueAt = Sec(0)
	CreateWithWaits(t, db, "i1", timer("tm1", 1), timer("tm3", 3), backoff)
	CreateWithWaits(t, db, "i2", timer("tm3b", 3))
	if err := db.ReplaceStartTimers(ctx, "order", []store.WaitRow{
		{ID: "st2", Kind: store.WaitStartTimer, ProcessKey: "order", ProcessVersion: 1, DueAt: Sec(2), CreatedAt: t0},
	}); err != nil {
		t.Fatal(err)
	}
	next, ok, err := db.NextTimer(ctx)
	if err != nil || !ok || !next.Equal(Sec(1)) {
		t.Errorf("NextTimer = %v, %v, %v; want %v", next, ok, err, Sec(1))
	}
	tests := []struct {
		name  string
		now   int
		limit int
		want  []string
	}{
		{name: "nothing due yet", now: 0},
		{name: "due exactly now", now: 1, want: []string{"tm1"}},
		{name: "timers and start timers earliest first", now: 2, want: []string{"tm1", "st2"}},
		{name: "ties by id", now: 10, want: []string{"tm1", "st2", "tm3", "tm3b"}},
		{name: "limit", now: 10, limit: 2, want: []string{"tm1", "st2"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := db.DueTimers(ctx, Sec(tt.now), tt.limit)
			if err != nil {
				t.Fatal(err)
			}
			if ids := WaitIDs(got); !reflect.DeepEqual(ids, tt.want) {
				t.Errorf("DueTimers(%d, %d) = %v, want %v", tt.now, tt.limit, ids, tt.want)
			}
		})
	}
}

func testMessageSubscriptions(t *testing.T, open Opener) {
	t.Parallel()
	ctx := context.Background()
	db := open(t)
	CreateWithWaits(t, db, "i1",
		Sub("m1", store.WaitMessage, "paid", "o-1", 2),
		Sub("m3", store.WaitMessage, "paid", "", 0),
		Sub("sg", store.WaitSignal, "paid", "o-1", 0), // a signal is no message subscription
	)
	CreateWithWaits(t, db, "i2",
		Sub("m2", store.WaitMessage, "paid", "o-1", 1),
		Sub("m4", store.WaitMessage, "paid", "o-2", 0),
		Sub("m5", store.WaitMessage, "shipped", "o-1", 0),
	)
	tests := []struct {
		name, msg, key string
		limit          int
		want           []string
	}{
		{name: "oldest first", msg: "paid", key: "o-1", want: []string{"m2", "m1"}},
		{name: "limit", msg: "paid", key: "o-1", limit: 1, want: []string{"m2"}},
		{name: "empty key matches only empty key", msg: "paid", key: "", want: []string{"m3"}},
		{name: "other key", msg: "paid", key: "o-2", want: []string{"m4"}},
		{name: "unknown key", msg: "paid", key: "o-3"},
		{name: "other name", msg: "shipped", key: "o-1", want: []string{"m5"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := db.MessageSubscriptions(ctx, tt.msg, tt.key, tt.limit)
			if err != nil {
				t.Fatal(err)
			}
			if ids := WaitIDs(got); !reflect.DeepEqual(ids, tt.want) {
				t.Errorf("MessageSubscriptions = %v, want %v", ids, tt.want)
			}
		})
	}
}

func testSignalSubscriptions(t *testing.T, open Opener) {
	t.Parallel()
	ctx := context.Background()
	db := open(t)
	CreateWithWaits(t, db, "i2", Sub("s2", store.WaitSignal, "alarm", "", 3))
	CreateWithWaits(t, db, "i1",
		Sub("s1a", store.WaitSignal, "alarm", "", 5),
		Sub("s1b", store.WaitSignal, "alarm", "", 1),
	)
	CreateWithWaits(t, db, "i3", Sub("s3", store.WaitSignal, "other", "", 0))
	CreateWithWaits(t, db, "i4", Sub("m4", store.WaitMessage, "alarm", "", 0))
	tests := []struct {
		signal string
		want   []store.InstanceID
	}{
		{signal: "alarm", want: []store.InstanceID{"i1", "i2"}},
		{signal: "other", want: []store.InstanceID{"i3"}},
		{signal: "none"},
	}
	for _, tt := range tests {
		t.Run(tt.signal, func(t *testing.T) {
			t.Parallel()
			got, err := db.SignalSubscriptions(ctx, tt.signal)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("SignalSubscriptions(%s) = %v, want %v", tt.signal, got, tt.want)
			}
		})
	}
}

func testStartTimers(t *testing.T, open Opener) {
	t.Parallel()
	ctx := context.Background()
	st := func(id, key string, due int) store.WaitRow {
		return store.WaitRow{ID: id, Kind: store.WaitStartTimer, NodeID: "start", ProcessKey: key,
			ProcessVersion: 2, DueAt: Sec(due), CreatedAt: t0}
	}
	// fixture: order has a (due 2) and b (due 1); ship has s; instance i1 has
	// the timer "taken".
	fixture := func(t *testing.T) *Harness {
		db := open(t)
		CreateWithWaits(t, db, "i1", timer("taken", 5))
		if err := db.ReplaceStartTimers(ctx, "order", []store.WaitRow{st("a", "order", 2), st("b", "order", 1)}); err != nil {
			t.Fatal(err)
		}
		if err := db.ReplaceStartTimers(ctx, "ship", []store.WaitRow{st("s", "ship", 1)}); err != nil {
			t.Fatal(err)
		}
		return db
	}
	filled := store.WaitRow{ID: "c", NodeID: "start", DueAt: Sec(3), CreatedAt: t0}
	tests := []struct {
		name     string
		rows     []store.WaitRow
		want     []string // start timers of order afterwards
		wantErr  bool
		conflict bool
	}{
		{name: "unchanged", rows: []store.WaitRow{st("a", "order", 2), st("b", "order", 1)}, want: []string{"b", "a"}},
		{name: "replace", rows: []store.WaitRow{st("c", "order", 3)}, want: []string{"c"}},
		{name: "kind and key filled in", rows: []store.WaitRow{filled}, want: []string{"c"}},
		{name: "clear", rows: nil},
		{name: "row of an instance", rows: []store.WaitRow{func() store.WaitRow {
			w := st("c", "order", 3)
			w.InstanceID = "i1"
			return w
		}()}, want: []string{"b", "a"}, wantErr: true},
		{name: "row of another key", rows: []store.WaitRow{st("c", "ship", 3)}, want: []string{"b", "a"}, wantErr: true},
		{name: "row of another kind", rows: []store.WaitRow{timer("c", 3)}, want: []string{"b", "a"}, wantErr: true},
		{name: "id of an instance wait", rows: []store.WaitRow{st("taken", "order", 3)}, want: []string{"b", "a"}, wantErr: true, conflict: true},
		{name: "id of another key's timer", rows: []store.WaitRow{st("s", "order", 3)}, want: []string{"b", "a"}, wantErr: true, conflict: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			db := fixture(t)
			err := db.ReplaceStartTimers(ctx, "order", tt.rows)
			if (err != nil) != tt.wantErr || errors.Is(err, store.ErrConflict) != tt.conflict {
				t.Fatalf("ReplaceStartTimers = %v; want error %v, conflict %v", err, tt.wantErr, tt.conflict)
			}
			got, err := db.StartTimers(ctx, "order")
			if err != nil {
				t.Fatal(err)
			}
			if ids := WaitIDs(got); !reflect.DeepEqual(ids, tt.want) {
				t.Errorf("StartTimers(order) = %v, want %v", ids, tt.want)
			}
			for _, w := range got {
				if w.Kind != store.WaitStartTimer || w.ProcessKey != "order" || w.InstanceID != "" {
					t.Errorf("start timer %+v", w)
				}
			}
			if ship, err := db.StartTimers(ctx, "ship"); err != nil || !reflect.DeepEqual(WaitIDs(ship), []string{"s"}) {
				t.Errorf("StartTimers(ship) = %v, %v; want [s]", WaitIDs(ship), err)
			}
			if w := MustWait(t, db, "taken"); w.InstanceID != "i1" || w.Kind != store.WaitTimer {
				t.Errorf("instance timer changed: %+v", w)
			}
		})
	}
	// A step that fires a schedule which is gone (fired or replaced
	// meanwhile) commits nothing: the instance it would start is not
	// created. (Firing an existing schedule needs, on a store several
	// nodes share, the node's claim of it: the PostgreSQL store's cluster tests.)
	t.Run("fires a schedule that is gone", func(t *testing.T) {
		t.Parallel()
		db := fixture(t)
		s := WithWaits(NewStep("started", "order", 1), store.WaitRow{ID: "a", Kind: store.WaitStartTimer, NodeID: "start",
			ProcessKey: "order", ProcessVersion: 2, DueAt: Sec(9), Retries: 1, CreatedAt: t0})
		s.FiresStartTimer = "gone"
		if err := db.CommitSteps(ctx, []store.StepRecord{s}); !errors.Is(err, store.ErrConflict) {
			t.Fatalf("CommitSteps = %v, want ErrConflict", err)
		}
		if _, err := db.InstanceRow(ctx, "started"); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("the instance was created: %v", err)
		}
		if w := MustWait(t, db, "a"); !w.DueAt.Equal(Sec(2)) {
			t.Errorf("the schedule was re-armed: %+v", w)
		}
	})
}

func testInstanceWaits(t *testing.T, open Opener) {
	t.Parallel()
	db := open(t)
	ctx := context.Background()
	CreateWithWaits(t, db, "a", timer("a-w2", 60), Job("a-w1", "t", 1))
	CreateWithWaits(t, db, "b", Job("b-w1", "t", 0))
	got, err := db.InstanceWaits(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].ID != "a-w2" || got[1].ID != "a-w1" {
		t.Fatalf("waits %+v", got)
	}
	if _, err := db.InstanceWaits(ctx, "nope"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("unknown instance: %v", err)
	}
	CreateWithWaits(t, db, "c")
	if got, err := db.InstanceWaits(ctx, "c"); err != nil || len(got) != 0 {
		t.Fatalf("instance without waits: %v %v", got, err)
	}
}

func testWaitCounts(t *testing.T, open Opener) {
	t.Parallel()
	db := open(t)
	CreateWithWaits(t, db, "a", timer("a-w1", 60), Job("a-w2", "t", 1), Job("a-w3", "u", 2))
	got, err := db.WaitCounts(context.Background())
	if err != nil || got[store.WaitJob] != 2 || got[store.WaitTimer] != 1 || len(got) != 2 {
		t.Fatalf("counts %v %v", got, err)
	}
}
