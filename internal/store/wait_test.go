package store

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gobpm/gobpm/internal/runtime"
)

// sec is t0 plus n seconds.
func sec(n int) time.Time { return t0.Add(time.Duration(n) * time.Second) }

// job is a job wait of type typ created at sec(created) with three retries.
func job(id, typ string, created int) runtime.WaitRow {
	return runtime.WaitRow{
		ID: id, Kind: runtime.WaitJob, NodeID: "svc", ScopeID: "s0", TrackID: "t1",
		ProcessKey: "order", ProcessVersion: 1, Name: typ, Retries: 3, CreatedAt: sec(created),
	}
}

// task is a user task created at sec(created).
func task(id string, created int, assignee string, users, groups []string) runtime.WaitRow {
	return runtime.WaitRow{
		ID: id, Kind: runtime.WaitTask, NodeID: "approve", ScopeID: "s0", Name: "Approve " + id,
		Assignee: assignee, CandidateUsers: users, CandidateGroups: groups, CreatedAt: sec(created),
	}
}

// timer is a timer wait due at sec(due).
func timer(id string, due int) runtime.WaitRow {
	return runtime.WaitRow{ID: id, Kind: runtime.WaitTimer, NodeID: "wait", DueAt: sec(due), CreatedAt: t0}
}

// sub is a message or signal subscription created at sec(created).
func sub(id, kind, name, key string, created int) runtime.WaitRow {
	return runtime.WaitRow{ID: id, Kind: kind, NodeID: "catch", Name: name, CorrelationKey: key, CreatedAt: sec(created)}
}

// withWaits returns s carrying waits, each stamped with the step's instance.
func withWaits(s runtime.StepRecord, waits ...runtime.WaitRow) runtime.StepRecord {
	s.Waits = nil
	for _, w := range waits {
		w.InstanceID = s.Instance.ID
		s.Waits = append(s.Waits, w)
	}
	return s
}

// createWithWaits commits the creating step of instance id carrying waits.
func createWithWaits(tb testing.TB, db *DB, id runtime.InstanceID, waits ...runtime.WaitRow) runtime.StepRecord {
	tb.Helper()
	s := withWaits(newStep(id, "order", 1), waits...)
	mustCommit(tb, db, s)
	return s
}

// waitIDs lists the ids of rows.
func waitIDs(rows []runtime.WaitRow) []string {
	var out []string
	for _, w := range rows {
		out = append(out, w.ID)
	}
	return out
}

// lock sets the lock of wait id directly, for fixtures: owner until
// until, with the token hash tokenOf(id) and no user.
func lock(tb testing.TB, db *DB, id, owner string, until time.Time) {
	tb.Helper()
	if _, err := db.write.Exec(`UPDATE waits SET lock_owner = ?, lock_expires_at = ?, lock_user = '', lock_token = ? WHERE id = ?`,
		owner, encodeTime(until), tokenOf(id), id); err != nil {
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

// lockFor is the lock of an activation of up to max jobs by worker (the
// user "user of <worker>") until until, with fresh token hashes.
func lockFor(worker string, max int, until time.Time) runtime.JobLock {
	l := runtime.JobLock{Worker: worker, User: "user of " + worker, Until: until}
	for range max {
		sum := sha256.Sum256(fmt.Appendf(nil, "token %d", tokenSeq.Add(1)))
		l.TokenHashes = append(l.TokenHashes, sum[:])
	}
	return l
}

// mustWait reads wait id or fails the test.
func mustWait(tb testing.TB, db *DB, id string) runtime.WaitRow {
	tb.Helper()
	w, err := db.Wait(context.Background(), id)
	if err != nil {
		tb.Fatal(err)
	}
	return w
}

func TestWaitRoundTrip(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := MustOpen(t)
	full := runtime.WaitRow{
		ID: "w-full", Kind: runtime.WaitTask, NodeID: "approve", ScopeID: "s1", TrackID: "t7",
		ProcessKey: "order", ProcessVersion: 3, Name: "Approve", CorrelationKey: "ck", DueAt: sec(60),
		Retries: 2, ErrorMessage: "boom", Assignee: "ann", CandidateUsers: []string{"ann", `b"ob`},
		CandidateGroups: []string{"sales"}, CreatedAt: sec(1),
	}
	bare := runtime.WaitRow{ID: "w-bare", Kind: runtime.WaitSignal, CreatedAt: sec(2)}
	s := createWithWaits(t, db, "i1", full, bare)
	for _, want := range s.Waits {
		t.Run(want.ID, func(t *testing.T) {
			t.Parallel()
			if got := mustWait(t, db, want.ID); !reflect.DeepEqual(got, want) {
				t.Errorf("Wait\n got %+v\nwant %+v", got, want)
			}
		})
	}
	t.Run("absent", func(t *testing.T) {
		t.Parallel()
		if _, err := db.Wait(ctx, "nope"); !errors.Is(err, runtime.ErrNotFound) {
			t.Errorf("Wait(nope) = %v, want ErrNotFound", err)
		}
	})
}

func TestCommitStepsWaits(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	t.Run("replace clears the lock", func(t *testing.T) {
		t.Parallel()
		db := MustOpen(t)
		s1 := createWithWaits(t, db, "i1", job("j1", "pay", 0))
		if got, err := db.ActivateJobs(ctx, "pay", sec(0), lockFor("w1", 1, sec(30))); err != nil || len(got) != 1 {
			t.Fatalf("ActivateJobs = %v, %v", got, err)
		}
		if w := mustWait(t, db, "j1"); w.LockOwner != "w1" || !w.LockExpiresAt.Equal(sec(30)) || w.LockUser != "user of w1" || len(w.LockTokenHash) != 32 {
			t.Fatalf("lock after activation = %q (%q, %x) until %v", w.LockOwner, w.LockUser, w.LockTokenHash, w.LockExpiresAt)
		}
		failed := job("j1", "pay", 0)
		failed.Retries, failed.ErrorMessage, failed.DueAt = 2, "timeout", sec(5)
		failed.InstanceID = "i1"
		mustCommit(t, db, withWaits(nextStep(s1, runtime.StatusRunning), failed))
		if got := mustWait(t, db, "j1"); !reflect.DeepEqual(got, failed) {
			t.Errorf("replaced job\n got %+v\nwant %+v", got, failed)
		}
	})

	t.Run("removal", func(t *testing.T) {
		t.Parallel()
		db := MustOpen(t)
		s1 := createWithWaits(t, db, "i1", job("j1", "pay", 0), timer("tm1", 10), timer("tm2", 20))
		s2 := nextStep(s1, runtime.StatusRunning)
		s2.RemovedWaits = []string{"j1", "tm1", "never-existed"}
		// tm2 fires and is re-armed under the same id in the same step.
		s2.RemovedWaits = append(s2.RemovedWaits, "tm2")
		s2 = withWaits(s2, timer("tm2", 40))
		mustCommit(t, db, s2)
		for _, id := range []string{"j1", "tm1"} {
			if _, err := db.Wait(ctx, id); !errors.Is(err, runtime.ErrNotFound) {
				t.Errorf("Wait(%s) after removal = %v, want ErrNotFound", id, err)
			}
		}
		if w := mustWait(t, db, "tm2"); !w.DueAt.Equal(sec(40)) {
			t.Errorf("re-armed timer due %v, want %v", w.DueAt, sec(40))
		}
	})

	t.Run("instance end removes remaining waits", func(t *testing.T) {
		t.Parallel()
		tests := []struct {
			status   string
			wantGone bool
		}{
			{runtime.StatusCompleted, true},
			{runtime.StatusTerminated, true},
			{runtime.StatusFailed, false},
			{runtime.StatusRunning, false},
		}
		for _, tt := range tests {
			t.Run(tt.status, func(t *testing.T) {
				t.Parallel()
				db := MustOpen(t)
				s1 := createWithWaits(t, db, "i1", job("j1", "pay", 0), task("k1", 0, "", nil, nil))
				createWithWaits(t, db, "i2", job("j2", "pay", 0))
				mustCommit(t, db, nextStep(s1, tt.status))
				for _, id := range []string{"j1", "k1"} {
					_, err := db.Wait(ctx, id)
					if gone := errors.Is(err, runtime.ErrNotFound); gone != tt.wantGone {
						t.Errorf("Wait(%s) = %v; want gone %v", id, err, tt.wantGone)
					}
				}
				mustWait(t, db, "j2") // another instance's wait stays
			})
		}
	})

	t.Run("refused waits roll back the batch", func(t *testing.T) {
		t.Parallel()
		tests := []struct {
			name     string
			bad      runtime.WaitRow
			conflict bool
		}{
			{name: "id of another instance", bad: job("other", "pay", 0), conflict: true},
			{name: "id of a start timer", bad: job("st", "pay", 0), conflict: true},
			{name: "empty id", bad: job("", "pay", 0)},
			{name: "empty kind", bad: runtime.WaitRow{ID: "x", CreatedAt: t0}},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				t.Parallel()
				db := MustOpen(t)
				createWithWaits(t, db, "i0", job("other", "pay", 0))
				if err := db.ReplaceStartTimers(ctx, "order",
					[]runtime.WaitRow{{ID: "st", Kind: runtime.WaitStartTimer, DueAt: sec(1), CreatedAt: t0}}); err != nil {
					t.Fatal(err)
				}
				good := withWaits(newStep("i1", "order", 1), job("good", "pay", 0))
				bad := withWaits(newStep("i2", "order", 1), tt.bad)
				err := db.CommitSteps(ctx, []runtime.StepRecord{good, bad})
				if err == nil || errors.Is(err, runtime.ErrConflict) != tt.conflict {
					t.Fatalf("CommitSteps = %v; want an error, conflict %v", err, tt.conflict)
				}
				if _, err := db.Wait(ctx, "good"); !errors.Is(err, runtime.ErrNotFound) {
					t.Errorf("a wait of the failed batch landed: %v", err)
				}
				if w := mustWait(t, db, "other"); w.InstanceID != "i0" {
					t.Errorf("other instance's wait was taken over: %+v", w)
				}
				if w := mustWait(t, db, "st"); w.Kind != runtime.WaitStartTimer {
					t.Errorf("start timer was taken over: %+v", w)
				}
			})
		}
	})

	t.Run("wait stamped with another instance", func(t *testing.T) {
		t.Parallel()
		db := MustOpen(t)
		s := newStep("i1", "order", 1)
		w := job("j1", "pay", 0)
		w.InstanceID = "i2"
		s.Waits = []runtime.WaitRow{w}
		if err := db.CommitSteps(ctx, []runtime.StepRecord{s}); err == nil {
			t.Fatal("CommitSteps accepted a wait of another instance")
		}
	})
}

func TestActivateJobs(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	// fixture: pay jobs a1..a3 (created 1..3), ship job s1, and three pay
	// jobs created at 0 that are not activatable at sec(0): z0 has no
	// retries, f1 is due at sec(60), l1 is locked until sec(30).
	fixture := func(t *testing.T) *DB {
		db := MustOpen(t)
		f1 := job("f1", "pay", 0)
		f1.DueAt = sec(60)
		z0 := job("z0", "pay", 0)
		z0.Retries = 0
		now := job("n0", "pay", 4)
		now.DueAt = sec(0) // due exactly now: activatable
		createWithWaits(t, db, "i1", job("a2", "pay", 2), job("a1", "pay", 1), job("s1", "ship", 0), z0, f1)
		createWithWaits(t, db, "i2", job("a3", "pay", 3), job("l1", "pay", 0), now, task("pay", 0, "", nil, nil))
		lock(t, db, "l1", "other", sec(30))
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
		// Free jobs and expired locks are two indexes: the batch takes the
		// oldest of both.
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
			until := sec(tt.now + 300)
			lk := lockFor("w1", tt.max, until)
			got, err := db.ActivateJobs(ctx, tt.typ, sec(tt.now), lk)
			if err != nil {
				t.Fatal(err)
			}
			if ids := waitIDs(got); !reflect.DeepEqual(ids, tt.want) {
				t.Fatalf("activated %v, want %v", ids, tt.want)
			}
			for i, w := range got {
				stored := mustWait(t, db, w.ID)
				if w.LockOwner != "w1" || w.LockUser != "user of w1" || !w.LockExpiresAt.Equal(until) ||
					!bytes.Equal(w.LockTokenHash, lk.TokenHashes[i]) || !reflect.DeepEqual(stored, w) {
					t.Errorf("job %s: returned %+v, stored %+v; want locked by w1 until %v with token hash %d", w.ID, w, stored, until, i)
				}
			}
		})
	}

	t.Run("locked jobs are skipped until the lock expires", func(t *testing.T) {
		t.Parallel()
		db := MustOpen(t)
		createWithWaits(t, db, "i1", job("a1", "pay", 1), job("a2", "pay", 2))
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
			got, err := db.ActivateJobs(ctx, "pay", sec(st.now), lockFor(st.worker, max, sec(st.until)))
			if err != nil {
				t.Fatal(err)
			}
			if ids := waitIDs(got); !reflect.DeepEqual(ids, st.want) {
				t.Fatalf("call %d: activated %v, want %v", i, ids, st.want)
			}
		}
	})
}

// TestActivateJobsTokens checks that each activated job holds its own
// token hash and the activating user, that activating again replaces
// both, and that malformed hashes are refused before anything is locked.
func TestActivateJobsTokens(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := MustOpen(t)
	createWithWaits(t, db, "i1", job("a3", "pay", 3), job("a1", "pay", 1), job("a2", "pay", 2))

	for name, lk := range map[string]runtime.JobLock{
		"short hash":    {Worker: "w", Until: sec(10), TokenHashes: [][]byte{make([]byte, 31)}},
		"repeated hash": {Worker: "w", Until: sec(10), TokenHashes: [][]byte{tokenOf("x"), tokenOf("y"), tokenOf("x")}},
	} {
		if got, err := db.ActivateJobs(ctx, "pay", sec(0), lk); err == nil {
			t.Errorf("%s: activated %v", name, waitIDs(got))
		}
	}
	if w := mustWait(t, db, "a1"); w.LockOwner != "" || w.LockTokenHash != nil {
		t.Fatalf("a refused activation locked a1: %+v", w)
	}

	first := lockFor("w1", 3, sec(10))
	got, err := db.ActivateJobs(ctx, "pay", sec(0), first)
	if err != nil || !reflect.DeepEqual(waitIDs(got), []string{"a1", "a2", "a3"}) {
		t.Fatalf("ActivateJobs = %v, %v", waitIDs(got), err)
	}
	for i, w := range got {
		if !bytes.Equal(mustWait(t, db, w.ID).LockTokenHash, first.TokenHashes[i]) {
			t.Errorf("job %s does not hold token hash %d", w.ID, i)
		}
	}
	// Expired: another worker and user take a1 and a2 under new tokens; a3
	// keeps its expired lock.
	second := lockFor("w2", 2, sec(40))
	if got, err := db.ActivateJobs(ctx, "pay", sec(10), second); err != nil || len(got) != 2 {
		t.Fatalf("second activation = %v, %v", waitIDs(got), err)
	}
	for i, id := range []string{"a1", "a2"} {
		w := mustWait(t, db, id)
		if w.LockOwner != "w2" || w.LockUser != "user of w2" || !w.LockExpiresAt.Equal(sec(40)) || !bytes.Equal(w.LockTokenHash, second.TokenHashes[i]) {
			t.Errorf("%s after the second activation: %+v", id, w)
		}
	}
	if w := mustWait(t, db, "a3"); w.LockOwner != "w1" || !bytes.Equal(w.LockTokenHash, first.TokenHashes[2]) {
		t.Errorf("a3, expired but not taken again, lost its lock: %+v", w)
	}
}

// TestLockGuard checks a step's LockGuard: the step commits while the job
// holds the token, and fails with ErrLockLost, writing nothing, once the
// job is locked with another token, was never locked, or is gone.
func TestLockGuard(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := MustOpen(t)
	s1 := createWithWaits(t, db, "i1", job("j1", "pay", 0), job("j2", "pay", 1))
	lock(t, db, "j1", "w1", sec(30))
	tests := []struct {
		name  string
		guard runtime.LockGuard
	}{
		{"another token", runtime.LockGuard{WaitID: "j1", TokenHash: tokenOf("j2")}},
		{"never locked", runtime.LockGuard{WaitID: "j2", TokenHash: tokenOf("j2")}},
		{"no such job", runtime.LockGuard{WaitID: "j9", TokenHash: tokenOf("j9")}},
	}
	for _, tt := range tests {
		s2 := nextStep(s1, runtime.StatusRunning)
		s2.RemovedWaits = []string{"j1"}
		s2.LockGuard = &tt.guard
		if err := db.CommitSteps(ctx, []runtime.StepRecord{s2}); !errors.Is(err, runtime.ErrLockLost) || runtime.ErrorCode(err) != runtime.ECONFLICT {
			t.Errorf("%s: CommitSteps = %v, want ErrLockLost", tt.name, err)
		}
		if row, err := db.InstanceRow(ctx, "i1"); err != nil || row.Revision != s1.Instance.Revision {
			t.Fatalf("%s: the refused step was written: %+v, %v", tt.name, row, err)
		}
		mustWait(t, db, "j1")
	}
	s2 := nextStep(s1, runtime.StatusRunning)
	s2.RemovedWaits = []string{"j1"}
	s2.LockGuard = &runtime.LockGuard{WaitID: "j1", TokenHash: tokenOf("j1")}
	mustCommit(t, db, s2)
	if _, err := db.Wait(ctx, "j1"); !errors.Is(err, runtime.ErrNotFound) {
		t.Fatalf("j1 after the guarded step: %v, want gone", err)
	}
}

// TestMigration0007ReleasesLocks: a lock taken before lock tokens existed
// cannot be acted on, so the migration releases it.
func TestMigration0007ReleasesLocks(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "v5.db")
	raw, err := sql.Open(driverName, dsn(path, "FULL", false))
	if err != nil {
		t.Fatal(err)
	}
	raw.SetMaxOpenConns(1)
	if err := migrateFS(ctx, raw, migrationsUpTo(t, 5)); err != nil {
		t.Fatal(err)
	}
	if _, err := raw.Exec(`INSERT INTO waits (id, instance_id, kind, name, retries, created_at, lock_owner, lock_expires_at)
		VALUES ('locked', 'i1', 'job', 'pay', 3, 1, 'w1', 4000000000000000000), ('free', 'i1', 'job', 'pay', 3, 2, NULL, NULL)`); err != nil {
		t.Fatal(err)
	}
	raw.Close()
	db := MustOpenPath(t, path, Options{})
	for _, id := range []string{"locked", "free"} {
		if w := mustWait(t, db, id); w.LockOwner != "" || !w.LockExpiresAt.IsZero() || w.LockUser != "" || w.LockTokenHash != nil {
			t.Errorf("%s after 0007: %+v, want unlocked", id, w)
		}
	}
	if got, err := db.ActivateJobs(ctx, "pay", sec(0), lockFor("w2", 5, sec(60))); err != nil || len(got) != 2 {
		t.Fatalf("activation after 0007 = %v, %v; want both jobs", waitIDs(got), err)
	}
}

// TestActivateJobsConcurrent has 8 workers drain 200 jobs concurrently; every
// job must be handed out exactly once.
func TestActivateJobsConcurrent(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := MustOpen(t)
	const (
		instances   = 20
		perInstance = 10
		workers     = 8
	)
	var steps []runtime.StepRecord
	for i := range instances {
		var waits []runtime.WaitRow
		for j := range perInstance {
			waits = append(waits, job(fmt.Sprintf("j%02d-%02d", i, j), "pay", i*perInstance+j))
		}
		steps = append(steps, withWaits(newStep(runtime.InstanceID(fmt.Sprintf("i%02d", i)), "order", 1), waits...))
	}
	mustCommit(t, db, steps...)

	var (
		mu   sync.Mutex
		got  = map[string][]string{} // job → workers that received it
		wg   sync.WaitGroup
		errs = make(chan error, workers)
	)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			worker := fmt.Sprintf("w%d", w)
			for {
				jobs, err := db.ActivateJobs(ctx, "pay", sec(0), lockFor(worker, 7, sec(600)))
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

func TestNextJobAvailable(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := MustOpen(t)
	// pay: lk locked until 5; du due at 10; bo due at 20 and locked until 25;
	// nr due at 1 without retries; av available now. ship: sh due at 1.
	lk, du, bo, nr, av, sh := job("lk", "pay", 0), job("du", "pay", 0), job("bo", "pay", 0),
		job("nr", "pay", 0), job("av", "pay", 0), job("sh", "ship", 0)
	du.DueAt, bo.DueAt, nr.DueAt, sh.DueAt = sec(10), sec(20), sec(1), sec(1)
	nr.Retries = 0
	createWithWaits(t, db, "i1", lk, du, bo, nr, av, sh)
	lock(t, db, "lk", "w", sec(5))
	lock(t, db, "bo", "w", sec(25))
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
			got, ok, err := db.NextJobAvailable(ctx, tt.typ, sec(tt.now))
			if err != nil {
				t.Fatal(err)
			}
			if ok != tt.wantOK || (ok && !got.Equal(sec(tt.want))) {
				t.Errorf("NextJobAvailable = %v, %v; want %v, %v", got, ok, sec(tt.want), tt.wantOK)
			}
		})
	}
}

func TestExtendJobLock(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := MustOpen(t)
	createWithWaits(t, db, "i1", job("locked", "pay", 0), job("free", "pay", 0), job("expired", "pay", 0),
		task("task", 0, "", nil, nil))
	lock(t, db, "locked", "w1", sec(30))
	lock(t, db, "expired", "w1", sec(10))
	tests := []struct {
		name    string
		key     string
		token   []byte // tokenOf(key) when nil
		now     int
		wantErr error
	}{
		{name: "another token", key: "locked", token: tokenOf("expired"), now: 20, wantErr: runtime.ErrConflict},
		{name: "live lock", key: "locked", now: 20},
		{name: "unknown key", key: "nope", now: 20, wantErr: runtime.ErrNotFound},
		{name: "not a job", key: "task", now: 20, wantErr: runtime.ErrNotFound},
		{name: "not locked", key: "free", now: 20, wantErr: runtime.ErrConflict},
		{name: "lock expired", key: "expired", now: 20, wantErr: runtime.ErrConflict},
		{name: "lock expires exactly now", key: "expired", now: 10, wantErr: runtime.ErrConflict},
	}
	for _, tt := range tests {
		// Sequential: the cases share one database and "live lock" moves a lock.
		t.Run(tt.name, func(t *testing.T) {
			token := tt.token
			if token == nil {
				token = tokenOf(tt.key)
			}
			err := db.ExtendJobLock(ctx, tt.key, token, sec(tt.now), sec(90))
			if tt.wantErr == nil {
				if err != nil {
					t.Fatal(err)
				}
				if w := mustWait(t, db, tt.key); w.LockOwner != "w1" || !w.LockExpiresAt.Equal(sec(90)) {
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

func TestTasks(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := MustOpen(t)
	createWithWaits(t, db, "i1",
		task("t1", 1, "ann", []string{"ann", "bob"}, []string{"sales"}),
		task("t2", 2, "", []string{"bob"}, []string{"sales", "ops"}),
		// t4 shares t3's creation time; id breaks the tie. Its candidates
		// contain the others as substrings only.
		task("t4", 3, "", []string{"bobby", `"bob"`}, []string{"sales-eu"}),
		// A job is no task even with a matching name.
		job("t0", "ann", 0),
	)
	createWithWaits(t, db, "i2", task("t3", 3, "bob", nil, []string{"ops"}))
	tests := []struct {
		name      string
		filter    runtime.TaskFilter
		want      []string
		wantTotal int
	}{
		{name: "all oldest first", want: []string{"t1", "t2", "t3", "t4"}, wantTotal: 4},
		{name: "assignee", filter: runtime.TaskFilter{Assignee: "ann"}, want: []string{"t1"}, wantTotal: 1},
		{name: "candidate user", filter: runtime.TaskFilter{CandidateUser: "bob"}, want: []string{"t1", "t2"}, wantTotal: 2},
		{name: "candidate group", filter: runtime.TaskFilter{CandidateGroup: "sales"}, want: []string{"t1", "t2"}, wantTotal: 2},
		{name: "user and group", filter: runtime.TaskFilter{CandidateUser: "bob", CandidateGroup: "ops"}, want: []string{"t2"}, wantTotal: 1},
		{name: "instance", filter: runtime.TaskFilter{InstanceID: "i2"}, want: []string{"t3"}, wantTotal: 1},
		{name: "page", filter: runtime.TaskFilter{Limit: 2, Offset: 1}, want: []string{"t2", "t3"}, wantTotal: 4},
		{name: "past the end", filter: runtime.TaskFilter{Offset: 10}, wantTotal: 4},
		{name: "no match", filter: runtime.TaskFilter{Assignee: "ann", InstanceID: "i2"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rows, total, err := db.Tasks(ctx, tt.filter)
			if err != nil {
				t.Fatal(err)
			}
			if ids := waitIDs(rows); !reflect.DeepEqual(ids, tt.want) || total != tt.wantTotal {
				t.Errorf("Tasks = %v (total %d), want %v (total %d)", ids, total, tt.want, tt.wantTotal)
			}
		})
	}

	t.Run("limit default and cap", func(t *testing.T) {
		t.Parallel()
		db := MustOpen(t)
		var waits []runtime.WaitRow
		for i := range MaxListLimit + 10 {
			waits = append(waits, task(fmt.Sprintf("t%04d", i), i, "", nil, nil))
		}
		createWithWaits(t, db, "i1", waits...)
		for _, tc := range []struct{ limit, want int }{{0, DefaultListLimit}, {10 * MaxListLimit, MaxListLimit}, {7, 7}} {
			rows, total, err := db.Tasks(ctx, runtime.TaskFilter{Limit: tc.limit})
			if err != nil {
				t.Fatal(err)
			}
			if len(rows) != tc.want || total != MaxListLimit+10 {
				t.Errorf("Limit %d: %d rows (total %d), want %d (total %d)", tc.limit, len(rows), total, tc.want, MaxListLimit+10)
			}
		}
	})
}

func TestTimers(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	t.Run("none", func(t *testing.T) {
		t.Parallel()
		db := MustOpen(t)
		createWithWaits(t, db, "i1", job("j1", "pay", 0)) // a job's DueAt is no timer
		backoff := job("j2", "pay", 0)
		backoff.DueAt = sec(1)
		createWithWaits(t, db, "i2", backoff)
		if next, ok, err := db.NextTimer(ctx); err != nil || ok {
			t.Errorf("NextTimer = %v, %v, %v; want none", next, ok, err)
		}
		if due, err := db.DueTimers(ctx, sec(100), 0); err != nil || len(due) != 0 {
			t.Errorf("DueTimers = %v, %v; want none", waitIDs(due), err)
		}
	})

	db := MustOpen(t)
	backoff := job("j1", "pay", 0)
	backoff.DueAt = sec(0)
	createWithWaits(t, db, "i1", timer("tm1", 1), timer("tm3", 3), backoff)
	createWithWaits(t, db, "i2", timer("tm3b", 3))
	if err := db.ReplaceStartTimers(ctx, "order", []runtime.WaitRow{
		{ID: "st2", Kind: runtime.WaitStartTimer, ProcessKey: "order", ProcessVersion: 1, DueAt: sec(2), CreatedAt: t0},
	}); err != nil {
		t.Fatal(err)
	}
	next, ok, err := db.NextTimer(ctx)
	if err != nil || !ok || !next.Equal(sec(1)) {
		t.Errorf("NextTimer = %v, %v, %v; want %v", next, ok, err, sec(1))
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
			got, err := db.DueTimers(ctx, sec(tt.now), tt.limit)
			if err != nil {
				t.Fatal(err)
			}
			if ids := waitIDs(got); !reflect.DeepEqual(ids, tt.want) {
				t.Errorf("DueTimers(%d, %d) = %v, want %v", tt.now, tt.limit, ids, tt.want)
			}
		})
	}
}

func TestMessageSubscriptions(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := MustOpen(t)
	createWithWaits(t, db, "i1",
		sub("m1", runtime.WaitMessage, "paid", "o-1", 2),
		sub("m3", runtime.WaitMessage, "paid", "", 0),
		sub("sg", runtime.WaitSignal, "paid", "o-1", 0), // a signal is no message subscription
	)
	createWithWaits(t, db, "i2",
		sub("m2", runtime.WaitMessage, "paid", "o-1", 1),
		sub("m4", runtime.WaitMessage, "paid", "o-2", 0),
		sub("m5", runtime.WaitMessage, "shipped", "o-1", 0),
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
			if ids := waitIDs(got); !reflect.DeepEqual(ids, tt.want) {
				t.Errorf("MessageSubscriptions = %v, want %v", ids, tt.want)
			}
		})
	}
}

func TestSignalSubscriptions(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := MustOpen(t)
	createWithWaits(t, db, "i2", sub("s2", runtime.WaitSignal, "alarm", "", 3))
	createWithWaits(t, db, "i1",
		sub("s1a", runtime.WaitSignal, "alarm", "", 5),
		sub("s1b", runtime.WaitSignal, "alarm", "", 1),
	)
	createWithWaits(t, db, "i3", sub("s3", runtime.WaitSignal, "other", "", 0))
	createWithWaits(t, db, "i4", sub("m4", runtime.WaitMessage, "alarm", "", 0))
	tests := []struct {
		signal string
		want   []runtime.InstanceID
	}{
		{signal: "alarm", want: []runtime.InstanceID{"i1", "i2"}},
		{signal: "other", want: []runtime.InstanceID{"i3"}},
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

func TestStartTimers(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := func(id, key string, due int) runtime.WaitRow {
		return runtime.WaitRow{ID: id, Kind: runtime.WaitStartTimer, NodeID: "start", ProcessKey: key,
			ProcessVersion: 2, DueAt: sec(due), CreatedAt: t0}
	}
	// fixture: order has a (due 2) and b (due 1); ship has s; instance i1 has
	// the timer "taken".
	fixture := func(t *testing.T) *DB {
		db := MustOpen(t)
		createWithWaits(t, db, "i1", timer("taken", 5))
		if err := db.ReplaceStartTimers(ctx, "order", []runtime.WaitRow{st("a", "order", 2), st("b", "order", 1)}); err != nil {
			t.Fatal(err)
		}
		if err := db.ReplaceStartTimers(ctx, "ship", []runtime.WaitRow{st("s", "ship", 1)}); err != nil {
			t.Fatal(err)
		}
		return db
	}
	filled := runtime.WaitRow{ID: "c", NodeID: "start", DueAt: sec(3), CreatedAt: t0}
	tests := []struct {
		name     string
		rows     []runtime.WaitRow
		want     []string // start timers of order afterwards
		wantErr  bool
		conflict bool
	}{
		{name: "unchanged", rows: []runtime.WaitRow{st("a", "order", 2), st("b", "order", 1)}, want: []string{"b", "a"}},
		{name: "replace", rows: []runtime.WaitRow{st("c", "order", 3)}, want: []string{"c"}},
		{name: "kind and key filled in", rows: []runtime.WaitRow{filled}, want: []string{"c"}},
		{name: "clear", rows: nil},
		{name: "row of an instance", rows: []runtime.WaitRow{func() runtime.WaitRow {
			w := st("c", "order", 3)
			w.InstanceID = "i1"
			return w
		}()}, want: []string{"b", "a"}, wantErr: true},
		{name: "row of another key", rows: []runtime.WaitRow{st("c", "ship", 3)}, want: []string{"b", "a"}, wantErr: true},
		{name: "row of another kind", rows: []runtime.WaitRow{timer("c", 3)}, want: []string{"b", "a"}, wantErr: true},
		{name: "id of an instance wait", rows: []runtime.WaitRow{st("taken", "order", 3)}, want: []string{"b", "a"}, wantErr: true, conflict: true},
		{name: "id of another key's timer", rows: []runtime.WaitRow{st("s", "order", 3)}, want: []string{"b", "a"}, wantErr: true, conflict: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			db := fixture(t)
			err := db.ReplaceStartTimers(ctx, "order", tt.rows)
			if (err != nil) != tt.wantErr || errors.Is(err, runtime.ErrConflict) != tt.conflict {
				t.Fatalf("ReplaceStartTimers = %v; want error %v, conflict %v", err, tt.wantErr, tt.conflict)
			}
			got, err := db.StartTimers(ctx, "order")
			if err != nil {
				t.Fatal(err)
			}
			if ids := waitIDs(got); !reflect.DeepEqual(ids, tt.want) {
				t.Errorf("StartTimers(order) = %v, want %v", ids, tt.want)
			}
			for _, w := range got {
				if w.Kind != runtime.WaitStartTimer || w.ProcessKey != "order" || w.InstanceID != "" {
					t.Errorf("start timer %+v", w)
				}
			}
			if ship, err := db.StartTimers(ctx, "ship"); err != nil || !reflect.DeepEqual(waitIDs(ship), []string{"s"}) {
				t.Errorf("StartTimers(ship) = %v, %v; want [s]", waitIDs(ship), err)
			}
			if w := mustWait(t, db, "taken"); w.InstanceID != "i1" || w.Kind != runtime.WaitTimer {
				t.Errorf("instance timer changed: %+v", w)
			}
		})
	}
}

// TestWaitQueryPlans checks that every wait query is served by an index:
// no full scan of waits, and no sort where the index should give the order.
func TestWaitQueryPlans(t *testing.T) {
	t.Parallel()
	db := MustOpen(t)
	task := func(f runtime.TaskFilter) string {
		cond, _ := tasksQuery(f)
		return `SELECT ` + waitColumns + ` FROM waits` + cond + ` ORDER BY created_at, id LIMIT 1 OFFSET 0`
	}
	tests := []struct {
		name      string
		query     string
		index     string // the index the plan must use; "a|b" accepts either
		allowSort bool
	}{
		// Activation reads the free jobs in index order and the expired
		// locks by expiry; only those and the merge (at most twice the
		// batch) are sorted.
		{name: "activate (free jobs)", query: activateJobsSQL, index: "waits_jobs_free (name=?)", allowSort: true},
		{name: "activate (expired locks)", query: activateJobsSQL, index: "waits_jobs_locked (name=? AND lock_expires_at>? AND lock_expires_at<?)", allowSort: true},
		{name: "next job (backoffs)", query: nextJobSQL, index: "waits_jobs_free (name=?)"},
		{name: "next job (locks)", query: nextJobSQL, index: "waits_jobs_locked (name=? AND lock_expires_at>?)"},
		{name: "extend lock", query: extendLockSQL, index: "PRIMARY KEY (id=?)"},
		{name: "lock guard", query: lockGuardSQL, index: "PRIMARY KEY (id=?)"},
		{name: "due timers", query: dueTimersSQL, index: "waits_timers_due (due_at<?)"},
		{name: "next timer", query: nextTimerSQL, index: "waits_timers_due"},
		{name: "messages", query: messageSubscriptionsSQL, index: "waits_messages (name=? AND correlation_key=?)"},
		{name: "signals", query: signalSubscriptionsSQL, index: "waits_signals (name=?)", allowSort: true},
		{name: "start timers", query: startTimersSQL, index: "waits_instance (instance_id=? AND kind=?)", allowSort: true},
		{name: "tasks", query: task(runtime.TaskFilter{}), index: "USING INDEX waits_tasks"},
		{name: "tasks of assignee", query: task(runtime.TaskFilter{Assignee: "a"}), index: "waits_task_assignee (assignee=?)"},
		{name: "tasks of candidate", query: task(runtime.TaskFilter{CandidateUser: "a", CandidateGroup: "g"}), index: "USING INDEX waits_tasks"},
		// An instance's own waits are a primary-key range, the others in
		// waits_instance; the two are merged and sorted (an instance's
		// tasks, not all tasks).
		{name: "tasks of instance", query: task(runtime.TaskFilter{InstanceID: "i"}), index: "waits_instance (instance_id=? AND kind=?)", allowSort: true},
		{name: "tasks of instance (own ids)", query: task(runtime.TaskFilter{InstanceID: "i"}), index: "PRIMARY KEY (id>? AND id<?)", allowSort: true},
		{name: "wait", query: waitSQL, index: "PRIMARY KEY (id=?)"},
		{name: "instance waits", query: instanceWaitsSQL, index: "waits_instance (instance_id=?)", allowSort: true},
		{name: "instance waits (own ids)", query: instanceWaitsSQL, index: "PRIMARY KEY (id>? AND id<?)", allowSort: true},
		// A page of an instance's waits: both branches are key ranges; only
		// the page (at most limit rows of each) is sorted.
		{name: "instance waits page", query: instanceWaitsPageSQL, index: "waits_instance (instance_id=?", allowSort: true},
		{name: "instance waits page (own ids)", query: instanceWaitsPageSQL, index: "PRIMARY KEY (id>? AND id<?)", allowSort: true},
		{name: "instance end", query: deleteInstanceWaitsSQL, index: "waits_instance (instance_id=?)"},
		{name: "instance end (own ids)", query: deleteInstanceWaitsSQL, index: "PRIMARY KEY (id>? AND id<?)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			args := make([]any, strings.Count(tt.query, "?"))
			for i := range args {
				args[i] = "x"
			}
			rows, err := db.read.Query(`EXPLAIN QUERY PLAN `+tt.query, args...)
			if err != nil {
				t.Fatal(err)
			}
			defer rows.Close()
			var plan []string
			for rows.Next() {
				var id, parent, notused int
				var detail string
				if err := rows.Scan(&id, &parent, &notused, &detail); err != nil {
					t.Fatal(err)
				}
				plan = append(plan, detail)
			}
			if err := rows.Err(); err != nil {
				t.Fatal(err)
			}
			all := strings.Join(plan, "\n")
			for _, line := range plan {
				if strings.HasPrefix(line, "SCAN waits") && !strings.Contains(line, "INDEX") {
					t.Errorf("full scan of waits:\n%s", all)
				}
			}
			if !slices.ContainsFunc(strings.Split(tt.index, "|"), func(ix string) bool { return strings.Contains(all, ix) }) {
				t.Errorf("plan does not use %s:\n%s", tt.index, all)
			}
			if !tt.allowSort && strings.Contains(all, "TEMP B-TREE") {
				t.Errorf("plan sorts:\n%s", all)
			}
		})
	}
}

// BenchmarkActivateJobs measures one activation of up to 32 jobs of one type
// among 10 000 jobs of 10 types. Every call moves now past the previous
// locks, so the jobs never run out.
func BenchmarkActivateJobs(b *testing.B) {
	ctx := context.Background()
	db := MustOpenPath(b, b.TempDir()+"/bench.db", Options{})
	const (
		instances   = 100
		perInstance = 100
		types       = 10
	)
	var steps []runtime.StepRecord
	for i := range instances {
		var waits []runtime.WaitRow
		for j := range perInstance {
			n := i*perInstance + j
			waits = append(waits, job(fmt.Sprintf("j%05d", n), fmt.Sprintf("type%d", n%types), n))
		}
		steps = append(steps, withWaits(newStep(runtime.InstanceID(fmt.Sprintf("i%03d", i)), "order", 1), waits...))
	}
	mustCommit(b, db, steps...)
	now := sec(instances * perInstance)
	b.ResetTimer()
	for b.Loop() {
		jobs, err := db.ActivateJobs(ctx, "type3", now, lockFor("w", 32, now.Add(time.Second)))
		if err != nil {
			b.Fatal(err)
		}
		if len(jobs) != 32 {
			b.Fatalf("activated %d jobs, want 32", len(jobs))
		}
		now = now.Add(time.Second)
	}
}

func TestInstanceWaits(t *testing.T) {
	t.Parallel()
	db := MustOpen(t)
	ctx := context.Background()
	createWithWaits(t, db, "a", timer("a-w2", 60), job("a-w1", "t", 1))
	createWithWaits(t, db, "b", job("b-w1", "t", 0))
	got, err := db.InstanceWaits(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].ID != "a-w2" || got[1].ID != "a-w1" {
		t.Fatalf("waits %+v", got)
	}
	if _, err := db.InstanceWaits(ctx, "nope"); !errors.Is(err, runtime.ErrNotFound) {
		t.Fatalf("unknown instance: %v", err)
	}
	createWithWaits(t, db, "c")
	if got, err := db.InstanceWaits(ctx, "c"); err != nil || len(got) != 0 {
		t.Fatalf("instance without waits: %v %v", got, err)
	}
}

func TestWaitCounts(t *testing.T) {
	t.Parallel()
	db := MustOpen(t)
	createWithWaits(t, db, "a", timer("a-w1", 60), job("a-w2", "t", 1), job("a-w3", "u", 2))
	got, err := db.WaitCounts(context.Background())
	if err != nil || got[runtime.WaitJob] != 2 || got[runtime.WaitTimer] != 1 || len(got) != 2 {
		t.Fatalf("counts %v %v", got, err)
	}
}
