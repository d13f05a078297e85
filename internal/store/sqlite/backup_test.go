package sqlite

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/gobpm/gobpm/internal/store"
	"github.com/gobpm/gobpm/internal/store/storetest"
)

// TestBackupWhileWriting copies a database while a writer keeps committing
// steps: the copy opens as a store, holds a consistent prefix of the
// steps (every instance whole: its row, parts and facts together) and the
// writer never failed meanwhile.
func TestBackupWhileWriting(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	db := MustOpenPath(t, filepath.Join(dir, "live.db"), Options{})

	var (
		wg       sync.WaitGroup
		stop     = make(chan struct{})
		fifty    = make(chan struct{})
		written  atomic.Int64
		writeErr error // the writer's; read after wg.Wait
	)
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer func() {
			if written.Load() < 50 {
				close(fifty)
			}
		}()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			if err := db.CommitSteps(ctx, []store.StepRecord{storetest.NewStep(store.InstanceID(fmt.Sprintf("i-%06d", i)), "order", 1)}); err != nil {
				writeErr = err
				return
			}
			if written.Add(1) == 50 {
				close(fifty)
			}
		}
	}()
	<-fifty
	dest := filepath.Join(dir, "copy.db")
	err := db.Backup(ctx, dest)
	close(stop)
	wg.Wait()
	if err != nil {
		t.Fatal(err)
	}
	if writeErr != nil {
		t.Fatalf("writer failed during the backup: %v", writeErr)
	}

	cp := MustOpenPath(t, dest, Options{})
	var instances, partless int
	if err := cp.read.QueryRow(`SELECT COUNT(*) FROM instances`).Scan(&instances); err != nil {
		t.Fatal(err)
	}
	if err := cp.read.QueryRow(`SELECT COUNT(*) FROM instances i WHERE NOT EXISTS (SELECT 1 FROM instance_parts p WHERE p.instance_seq = i.seq)
		OR NOT EXISTS (SELECT 1 FROM facts f WHERE f.instance_seq = i.seq)`).Scan(&partless); err != nil {
		t.Fatal(err)
	}
	if instances < 50 || int64(instances) > written.Load() {
		t.Errorf("copy holds %d instances; %d were written, at least 50 before the copy began", instances, written.Load())
	}
	if partless != 0 {
		t.Errorf("%d instances of the copy lack their parts or facts", partless)
	}
	last := store.InstanceID(fmt.Sprintf("i-%06d", instances-1))
	if _, err := cp.Instance(ctx, last); err != nil {
		t.Errorf("the copy's last instance %s: %v", last, err)
	}
	if entries, _ := filepath.Glob(filepath.Join(dir, "*.partial")); len(entries) != 0 {
		t.Errorf("temporary files left: %v", entries)
	}
}

func TestBackupRefusals(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	src := filepath.Join(dir, "src.db")
	db := MustOpenPath(t, src, Options{})
	storetest.MustCommit(t, db, storetest.NewStep("one", "order", 1))

	exists := filepath.Join(dir, "exists.db")
	if err := os.WriteFile(exists, []byte("keep me"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := db.Backup(ctx, exists); store.ErrorCode(err) != store.ECONFLICT {
		t.Errorf("backup onto an existing file = %v, want a conflict", err)
	}
	if b, _ := os.ReadFile(exists); string(b) != "keep me" {
		t.Error("an existing file was overwritten")
	}
	if err := Backup(ctx, filepath.Join(dir, "missing.db"), filepath.Join(dir, "x.db")); err == nil {
		t.Error("a backup of a missing database succeeded")
	}
	if _, err := os.Stat(filepath.Join(dir, "missing.db")); err == nil {
		t.Error("a backup of a missing database created it")
	}
	if err := db.Backup(ctx, filepath.Join(dir, "no", "such", "dir.db")); err == nil {
		t.Error("a backup into a missing directory succeeded")
	}

	// A database nobody has open (the server stopped) copies too.
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	dest := filepath.Join(dir, "offline.db")
	if err := Backup(ctx, src, dest); err != nil {
		t.Fatalf("backup of a closed database: %v", err)
	}
	cp := MustOpenPath(t, dest, Options{})
	if _, err := cp.InstanceRow(ctx, "one"); err != nil {
		t.Errorf("offline copy: %v", err)
	}
}
