package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/gobpm/gobpm/internal/store"
	"github.com/gobpm/gobpm/internal/store/storetest"
)

// SQLite-only (not in storetest): the write-ahead log and its checkpoints
// are SQLite's.
//
// TestBackgroundCheckpoint: commits are copied into the database file by
// the background checkpointer while the store stays open, far below the
// writer's own automatic threshold, and a fresh reader of the file alone
// (the WAL removed) sees them.
func TestBackgroundCheckpoint(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "ckpt.db")
	db := MustOpenPath(t, path, Options{CheckpointInterval: 5 * time.Millisecond})

	var pragma int
	if err := db.write.QueryRow(`PRAGMA wal_autocheckpoint`).Scan(&pragma); err != nil {
		t.Fatal(err)
	}
	if pragma != writerAutoCheckpoint {
		t.Fatalf("writer wal_autocheckpoint = %d, want %d", pragma, writerAutoCheckpoint)
	}

	runs := db.ckpt.runs.Load()
	before := fileSize(t, path)
	const n = 200
	for i := range n {
		s := storetest.NewStep(store.InstanceID(fmt.Sprintf("c%05d", i)), "order", 1)
		if err := db.CommitSteps(ctx, []store.StepRecord{s}); err != nil {
			t.Fatal(err)
		}
	}
	deadline := time.Now().Add(20 * time.Second)
	for db.ckpt.runs.Load() == runs || fileSize(t, path) <= before {
		if time.Now().After(deadline) {
			t.Fatalf("no background checkpoint: %d runs, database file %d bytes (was %d)", db.ckpt.runs.Load()-runs, fileSize(t, path), before)
		}
		time.Sleep(10 * time.Millisecond)
	}

	// What the checkpointer copied is in the database file itself: a copy
	// of the file without its WAL holds the instances.
	copyPath := filepath.Join(t.TempDir(), "copy.db")
	deadline = time.Now().Add(20 * time.Second)
	for {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(copyPath, data, 0o600); err != nil {
			t.Fatal(err)
		}
		got, err := countInstances(copyPath)
		if err == nil && got == n {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the database file alone holds %d of %d instances (%v)", got, n, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestCheckpointerStopsWithClose: Close ends the checkpointer's loop and
// connection; a second Close of it is harmless.
func TestCheckpointerStopsWithClose(t *testing.T) {
	t.Parallel()
	db, err := Open(context.Background(), filepath.Join(t.TempDir(), "x.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	c := db.ckpt
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-c.done:
	default:
		t.Fatal("checkpointer still running after Close")
	}
	if err := c.conn.Ping(); err == nil {
		t.Fatal("checkpointer connection still open after Close")
	}
	c.committed() // after close: must not block or panic
}

func fileSize(t *testing.T, path string) int64 {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}

// countInstances counts the instances of the database file at path opened
// on its own (a copy taken while a checkpoint wrote may not open).
func countInstances(path string) (int, error) {
	raw, err := sql.Open(driverName, "file:"+path+"?mode=ro")
	if err != nil {
		return 0, err
	}
	defer raw.Close()
	var n int
	err = raw.QueryRow(`SELECT count(*) FROM instances`).Scan(&n)
	return n, err
}
