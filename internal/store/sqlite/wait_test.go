package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gobpm/gobpm/internal/store"
	"github.com/gobpm/gobpm/internal/store/storetest"
)

// TestMigration0007ReleasesLocks: a lock taken before lock tokens existed
// cannot be acted on, so the migration releases it.
// SQLite-only (not in storetest): it upgrades a SQLite file from migration 0006.
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
		if w := storetest.MustWait(t, db, id); w.LockOwner != "" || !w.LockExpiresAt.IsZero() || w.LockUser != "" || w.LockTokenHash != nil {
			t.Errorf("%s after 0007: %+v, want unlocked", id, w)
		}
	}
	if got, err := db.ActivateJobs(ctx, "pay", storetest.Sec(0), storetest.LockFor("w2", 5, storetest.Sec(60))); err != nil || len(got) != 2 {
		t.Fatalf("activation after 0007 = %v, %v; want both jobs", storetest.WaitIDs(got), err)
	}
}

// TestWaitQueryPlans checks that every wait query is served by an index:
// no full scan of waits, and no sort where the index should give the order.
// SQLite-only (not in storetest): it reads SQLite's EXPLAIN QUERY PLAN.
func TestWaitQueryPlans(t *testing.T) {
	t.Parallel()
	db := MustOpen(t)
	task := func(f store.TaskFilter) string {
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
		{name: "activatable (free jobs)", query: activatableJobSQL, index: "waits_jobs_free (name=?)"},
		{name: "activatable (expired locks)", query: activatableJobSQL, index: "waits_jobs_locked (name=? AND lock_expires_at>? AND lock_expires_at<?)"},
		{name: "next job (backoffs)", query: nextJobSQL, index: "waits_jobs_free (name=?)"},
		{name: "next job (locks)", query: nextJobSQL, index: "waits_jobs_locked (name=? AND lock_expires_at>?)"},
		{name: "extend lock", query: extendLockSQL, index: "PRIMARY KEY (id=?)"},
		{name: "lock guard", query: lockGuardSQL, index: "PRIMARY KEY (id=?)"},
		{name: "due timers", query: dueTimersSQL, index: "waits_timers_due (due_at<?)"},
		{name: "next timer", query: nextTimerSQL, index: "waits_timers_due"},
		{name: "messages", query: messageSubscriptionsSQL, index: "waits_messages (name=? AND correlation_key=?)"},
		{name: "signals", query: signalSubscriptionsSQL, index: "waits_signals (name=?)", allowSort: true},
		{name: "start timers", query: startTimersSQL, index: "waits_instance (instance_id=? AND kind=?)", allowSort: true},
		{name: "tasks", query: task(store.TaskFilter{}), index: "USING INDEX waits_tasks"},
		{name: "tasks of assignee", query: task(store.TaskFilter{Assignee: "a"}), index: "waits_task_assignee (assignee=?)"},
		{name: "tasks of candidate", query: task(store.TaskFilter{CandidateUser: "a", CandidateGroup: "g"}), index: "USING INDEX waits_tasks"},
		// An instance's own waits are a primary-key range, the others in
		// waits_instance; the two are merged and sorted (an instance's
		// tasks, not all tasks).
		{name: "tasks of instance", query: task(store.TaskFilter{InstanceID: "i"}), index: "waits_instance (instance_id=? AND kind=?)", allowSort: true},
		{name: "tasks of instance (own ids)", query: task(store.TaskFilter{InstanceID: "i"}), index: "PRIMARY KEY (id>? AND id<?)", allowSort: true},
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
	var steps []store.StepRecord
	for i := range instances {
		var waits []store.WaitRow
		for j := range perInstance {
			n := i*perInstance + j
			waits = append(waits, storetest.Job(fmt.Sprintf("j%05d", n), fmt.Sprintf("type%d", n%types), n))
		}
		steps = append(steps, storetest.WithWaits(storetest.NewStep(store.InstanceID(fmt.Sprintf("i%03d", i)), "order", 1), waits...))
	}
	storetest.MustCommit(b, db, steps...)
	now := storetest.Sec(instances * perInstance)
	b.ResetTimer()
	for b.Loop() {
		jobs, err := db.ActivateJobs(ctx, "type3", now, storetest.LockFor("w", 32, now.Add(time.Second)))
		if err != nil {
			b.Fatal(err)
		}
		if len(jobs) != 32 {
			b.Fatalf("activated %d jobs, want 32", len(jobs))
		}
		now = now.Add(time.Second)
	}
}

// TestActivateNothingSkipsTheWriter: an activation that finds nothing to
// lock answers from the read pool while another transaction holds the
// single writer; one that finds a job waits for the writer and locks it.
// SQLite-only (not in storetest): the single writer is SQLite's.
func TestActivateNothingSkipsTheWriter(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := MustOpen(t)
	storetest.CreateWithWaits(t, db, "A", storetest.Job("A-w000001", "pay", 1))
	now := storetest.Sec(100)
	lock := func() store.JobLock {
		return store.JobLock{Worker: "w", Until: now.Add(time.Minute), TokenHashes: [][]byte{make([]byte, 32)}}
	}

	tx, err := db.write.BeginTx(ctx, nil) // holds the writer (BEGIN IMMEDIATE)
	if err != nil {
		t.Fatal(err)
	}
	short, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	got, err := db.ActivateJobs(short, "ship", now, lock())
	if err != nil || len(got) != 0 {
		t.Fatalf("activate a type without jobs while the writer is held: %v, %v", got, err)
	}

	done := make(chan []store.WaitRow, 1)
	go func() {
		got, err := db.ActivateJobs(ctx, "pay", now, lock())
		if err != nil {
			t.Error(err)
		}
		done <- got
	}()
	select {
	case got := <-done:
		t.Fatalf("activated %v while another transaction held the writer", got)
	case <-time.After(50 * time.Millisecond):
	}
	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}
	if got := <-done; len(got) != 1 || got[0].ID != "A-w000001" {
		t.Fatalf("activation after the writer was free: %v", got)
	}
}
