package sqlite

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/gobpm/gobpm/internal/store/storetest"
)

// writerSync reads the writer connection's synchronous setting (1 NORMAL, 2 FULL).
func writerSync(tb testing.TB, db *DB) int {
	tb.Helper()
	var mode int
	if err := db.write.QueryRowContext(context.Background(), "PRAGMA synchronous").Scan(&mode); err != nil {
		tb.Fatal(err)
	}
	return mode
}

// TestJobLocksLeaveTheWriterDurable checks that a job lock, committed
// without an fsync, hands the writer back at synchronous=FULL, whether it
// locked something, found nothing, or failed.
// SQLite-only (not in storetest): it checks the writer connection's synchronous pragma.
func TestJobLocksLeaveTheWriterDurable(t *testing.T) {
	t.Parallel()
	db := MustOpen(t)
	ctx := context.Background()
	if got := writerSync(t, db); got != 2 {
		t.Fatalf("writer opens at synchronous=%d, want 2 (FULL)", got)
	}
	storetest.CreateWithWaits(t, db, "i1", storetest.Job("j1", "charge", 1))
	rows, err := db.ActivateJobs(ctx, "charge", storetest.Sec(5), storetest.LockFor("w", 10, storetest.Sec(65)))
	if err != nil || len(rows) != 1 {
		t.Fatalf("activate: %v, %d rows", err, len(rows))
	}
	if got := writerSync(t, db); got != 2 {
		t.Fatalf("after a lock the writer is at synchronous=%d, want 2 (FULL)", got)
	}
	if err := db.ExtendJobLock(ctx, "j1", rows[0].LockTokenHash, storetest.Sec(6), storetest.Sec(120)); err != nil {
		t.Fatal(err)
	}
	if _, err := db.ActivateJobs(ctx, "none", storetest.Sec(7), storetest.LockFor("w", 10, storetest.Sec(70))); err != nil {
		t.Fatal(err)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := db.ActivateJobs(cancelled, "charge", storetest.Sec(8), storetest.LockFor("w", 10, storetest.Sec(70))); err == nil {
		t.Fatal("activation with a cancelled context succeeded")
	}
	if got := writerSync(t, db); got != 2 {
		t.Fatalf("after extending, finding nothing and failing, the writer is at synchronous=%d, want 2 (FULL)", got)
	}
}

// TestNormalStoresStayNormal checks that a store opened with
// synchronous=NORMAL is not switched to FULL by a job lock.
// SQLite-only (not in storetest): it checks the writer connection's synchronous pragma.
func TestNormalStoresStayNormal(t *testing.T) {
	t.Parallel()
	db := MustOpenPath(t, filepath.Join(t.TempDir(), "n.db"), Options{Synchronous: "NORMAL"})
	if _, err := db.ActivateJobs(context.Background(), "charge", time.Now(), storetest.LockFor("w", 10, time.Now().Add(time.Minute))); err != nil {
		t.Fatal(err)
	}
	if got := writerSync(t, db); got != 1 {
		t.Fatalf("writer at synchronous=%d, want 1 (NORMAL)", got)
	}
}
