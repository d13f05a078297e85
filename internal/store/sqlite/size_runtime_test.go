package sqlite_test

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"

	"github.com/gobpm/gobpm/internal/runtime"
	"github.com/gobpm/gobpm/internal/store/sqlite"
)

// startJobEndBPMN is start → service task → end: every instance waits at
// the job.
const startJobEndBPMN = `<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:gobpm="urn:gobpm:1" id="defs" targetNamespace="urn:test">
  <process id="job" isExecutable="true">
    <startEvent id="start"/>
    <sequenceFlow id="f1" sourceRef="start" targetRef="charge"/>
    <serviceTask id="charge" gobpm:type="charge-card"/>
    <sequenceFlow id="f2" sourceRef="charge" targetRef="end"/>
    <endEvent id="end"/>
  </process>
</definitions>`

// TestRuntimeBytesPerInstance reports the bytes on disk per waiting
// start → job instance written by the real runtime (runtime.New over the
// store, StartInstance from 8 goroutines), after VACUUM, with the bytes of
// each table and index. It runs only with GOBPM_SIZE_N set (5 000 to
// 10 000 for the report), outside the default run's time budget.
// SQLite-only (not in storetest): it measures the SQLite file's bytes.
func TestRuntimeBytesPerInstance(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("GOBPM_SIZE_N"))
	if n <= 0 {
		t.Skip("set GOBPM_SIZE_N to measure")
	}
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "size.db")
	db, err := sqlite.Open(ctx, path, sqlite.Options{Synchronous: "NORMAL"})
	if err != nil {
		t.Fatal(err)
	}
	rt := runtime.New(db, runtime.Options{})
	if _, err := rt.Deploy(ctx, []runtime.File{{Name: "job.bpmn", Content: []byte(startJobEndBPMN)}}); err != nil {
		t.Fatal(err)
	}
	var (
		wg   sync.WaitGroup
		next = make(chan struct{}, n)
	)
	for range n {
		next <- struct{}{}
	}
	close(next)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range next {
				if _, err := rt.StartInstance(ctx, runtime.StartRequest{ProcessKey: "job"}); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	rt.Close()
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if t.Failed() {
		return
	}
	total := vacuumedBytes(t, path)
	t.Logf("%d instances: %.0f bytes per instance (whole file, definitions included)", n, float64(total)/float64(n))
	logTableBytes(t, path, n)
}

// vacuumedBytes vacuums the database at path and returns page_count *
// page_size.
func vacuumedBytes(tb testing.TB, path string) int64 {
	tb.Helper()
	raw, err := sql.Open("sqlite", path)
	if err != nil {
		tb.Fatal(err)
	}
	defer raw.Close()
	if _, err := raw.Exec(`VACUUM`); err != nil {
		tb.Fatal(err)
	}
	var pages, size int64
	if err := raw.QueryRow(`PRAGMA page_count`).Scan(&pages); err != nil {
		tb.Fatal(err)
	}
	if err := raw.QueryRow(`PRAGMA page_size`).Scan(&size); err != nil {
		tb.Fatal(err)
	}
	return pages * size
}

// logTableBytes logs the bytes per instance of each table and index of
// the database at path.
func logTableBytes(tb testing.TB, path string, n int) {
	tb.Helper()
	raw, err := sql.Open("sqlite", path)
	if err != nil {
		tb.Fatal(err)
	}
	defer raw.Close()
	rows, err := raw.Query(`SELECT name, SUM(pgsize) FROM dbstat GROUP BY name ORDER BY 2 DESC LIMIT 20`)
	if err != nil {
		tb.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var (
			name string
			size int64
		)
		if err := rows.Scan(&name, &size); err != nil {
			tb.Fatal(err)
		}
		tb.Logf("  %-28s %6.0f", name, float64(size)/float64(n))
	}
	if err := rows.Err(); err != nil {
		tb.Fatal(err)
	}
}
