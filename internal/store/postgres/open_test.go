package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gobpm/gobpm/internal/pgtest"
	"github.com/gobpm/gobpm/internal/store"
	"github.com/gobpm/gobpm/internal/store/postgres"
	"github.com/gobpm/gobpm/internal/store/postgres/migrations"
)

// TestOpenSettings applies the pool size and statement timeout from the
// options, else from the URL, else the defaults.
func TestOpenSettings(t *testing.T) {
	t.Parallel()
	url := pgtest.URL(t)
	tests := []struct {
		name        string
		url         string
		opts        postgres.Options
		wantConns   int32
		wantTimeout string
	}{
		{name: "defaults", url: url, wantConns: postgres.DefaultMaxConns, wantTimeout: "30s"},
		{name: "options", url: url, opts: postgres.Options{MaxConns: 3, StatementTimeout: 1500 * time.Millisecond},
			wantConns: 3, wantTimeout: "1500ms"},
		{name: "url", url: url + "&pool_max_conns=5&statement_timeout=2000", wantConns: 5, wantTimeout: "2s"},
		{name: "options win over the url", url: url + "&pool_max_conns=5&statement_timeout=2000",
			opts: postgres.Options{MaxConns: 7, StatementTimeout: time.Second}, wantConns: 7, wantTimeout: "1s"},
		{name: "no timeout", url: url, opts: postgres.Options{StatementTimeout: -1}, wantConns: postgres.DefaultMaxConns, wantTimeout: "0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db := mustOpen(t, tt.url, tt.opts)
			if got := db.Pool().Config().MaxConns; got != tt.wantConns {
				t.Errorf("MaxConns = %d, want %d", got, tt.wantConns)
			}
			var timeout string
			if err := db.Pool().QueryRow(context.Background(), `SHOW statement_timeout`).Scan(&timeout); err != nil || timeout != tt.wantTimeout {
				t.Errorf("statement_timeout = %q, %v; want %q", timeout, err, tt.wantTimeout)
			}
		})
	}
}

// TestStatementTimeout ends a statement that runs longer than the bound.
func TestStatementTimeout(t *testing.T) {
	t.Parallel()
	db := mustOpen(t, pgtest.URL(t), postgres.Options{StatementTimeout: 100 * time.Millisecond})
	_, err := db.Pool().Exec(context.Background(), `SELECT pg_sleep(2)`)
	if err == nil || !strings.Contains(err.Error(), "statement timeout") {
		t.Fatalf("a 2 s statement under a 100 ms bound = %v", err)
	}
}

// TestOpenRefuses rejects what is not a PostgreSQL URL or a bad option,
// and never prints the password.
func TestOpenRefuses(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, tt := range []struct {
		dsn  string
		opts postgres.Options
		want string
	}{
		{dsn: "./data/gobpm.db", want: "not a postgres:// or postgresql:// URL"},
		{dsn: "postgres://u:hunter2@127.0.0.1:1/x?connect_timeout=1", want: "xxxxx"},
		{dsn: "postgres://u@127.0.0.1:1/x", opts: postgres.Options{MaxConns: -1}, want: "negative pool size"},
	} {
		_, err := postgres.Open(ctx, tt.dsn, tt.opts)
		if err == nil || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "hunter2") {
			t.Errorf("Open(%s) = %v, want an error with %q and no password", tt.dsn, err, tt.want)
		}
	}
	for dsn, want := range map[string]bool{"postgres://h/db": true, "POSTGRESQL://h/db": true, "data/postgres.db": false, "": false} {
		if got := postgres.IsURL(dsn); got != want {
			t.Errorf("IsURL(%q) = %t", dsn, got)
		}
	}
}

// TestMigrateOnce opens several stores on one new database at once (nodes
// starting together): the advisory lock lets one migrate, the others find
// the schema done; reopening applies nothing again.
func TestMigrateOnce(t *testing.T) {
	t.Parallel()
	url := pgtest.URL(t)
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			db, err := postgres.Open(context.Background(), url, postgres.Options{})
			if err == nil {
				db.Close()
			}
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	db := mustOpen(t, url, postgres.Options{})
	files, err := fs.Glob(migrations.FS, "*.sql")
	if err != nil {
		t.Fatal(err)
	}
	var n int
	if err := db.Pool().QueryRow(context.Background(), `SELECT COUNT(*) FROM schema_migrations`).Scan(&n); err != nil || n != len(files) {
		t.Fatalf("schema_migrations has %d rows, %v; want one per migration file (%d)", n, err, len(files))
	}
	// A database a newer gobpm migrated is refused.
	if _, err := db.Pool().Exec(context.Background(), `INSERT INTO schema_migrations VALUES (9999, '9999_future.sql', 0)`); err != nil {
		t.Fatal(err)
	}
	if _, err := postgres.Open(context.Background(), url, postgres.Options{}); err == nil || !strings.Contains(err.Error(), "newer than this binary") {
		t.Fatalf("Open of a newer database = %v", err)
	}
}

// TestStepsOfTwoStoresConflict commits the same step of one instance
// through two stores on one database at once (two nodes): the revision
// check lets exactly one win, the other gets ErrConflict.
func TestStepsOfTwoStoresConflict(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	url := pgtest.URL(t)
	a, b := mustOpen(t, url, postgres.Options{}), mustOpen(t, url, postgres.Options{})
	at := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	in := store.InstanceRow{ID: "i1", ProcessKey: "p", ProcessVersion: 1, Status: store.StatusRunning,
		CreatedAt: at, UpdatedAt: at, Revision: 1}
	if err := a.CommitSteps(ctx, []store.StepRecord{{Instance: in, Header: []byte("h1")}}); err != nil {
		t.Fatal(err)
	}
	for round := range 20 {
		next := in
		next.Revision = in.Revision + 1
		next.UpdatedAt = in.UpdatedAt.Add(time.Second)
		var (
			wg   sync.WaitGroup
			errs [2]error
		)
		for i, db := range []*postgres.DB{a, b} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs[i] = db.CommitSteps(ctx, []store.StepRecord{{Instance: next, PrevRevision: in.Revision,
					Header: fmt.Appendf(nil, "from %d", i)}})
			}()
		}
		wg.Wait()
		won := 0
		for _, err := range errs {
			switch {
			case err == nil:
				won++
			case !errors.Is(err, store.ErrConflict) || !errors.Is(err, store.ErrStale):
				t.Fatalf("round %d: %v", round, err)
			}
		}
		if won != 1 {
			t.Fatalf("round %d: %d commits won (%v), want exactly 1", round, won, errs)
		}
		in = next
	}
	got, err := b.InstanceRow(ctx, "i1")
	if err != nil || got.Revision != 21 {
		t.Fatalf("revision after 20 contested steps = %d, %v; want 21", got.Revision, err)
	}
}

// TestCrossedBatchesConflict commits two batches that step the same two
// instances in opposite orders through two stores at once, arranged so
// that they deadlock: a third transaction holds i1 while batch A ([i1,
// i2]) queues for it and batch B ([i2, i1]) takes i2 and queues too; when
// i1 is released A takes it and waits for B's i2 while B waits for A's
// i1. PostgreSQL breaks the deadlock; exactly one batch commits and the
// other fails whole with ErrConflict, which the runtime retries.
func TestCrossedBatchesConflict(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	url := pgtest.URL(t)
	a, b := mustOpen(t, url, postgres.Options{}), mustOpen(t, url, postgres.Options{})
	at := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	var batches [2][]store.StepRecord
	for _, id := range []store.InstanceID{"i1", "i2"} {
		in := store.InstanceRow{ID: id, ProcessKey: "p", ProcessVersion: 1, Status: store.StatusRunning,
			CreatedAt: at, UpdatedAt: at, Revision: 1}
		if err := a.CommitSteps(ctx, []store.StepRecord{{Instance: in}}); err != nil {
			t.Fatal(err)
		}
		next := in
		next.Revision = 2
		batches[0] = append(batches[0], store.StepRecord{Instance: next, PrevRevision: 1})
	}
	batches[1] = []store.StepRecord{batches[0][1], batches[0][0]}

	hold, err := a.Pool().Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer hold.Rollback(ctx)
	if _, err := hold.Exec(ctx, `SELECT 1 FROM instances WHERE id = 'i1' FOR UPDATE`); err != nil {
		t.Fatal(err)
	}
	// waiting blocks until n transactions wait for a lock.
	waiting := func(n int) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for {
			var got int
			if err := a.Pool().QueryRow(ctx, `SELECT COUNT(*) FROM pg_stat_activity
				WHERE datname = current_database() AND wait_event_type = 'Lock'`).Scan(&got); err != nil {
				t.Fatal(err)
			}
			if got >= n {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("%d transactions wait for a lock, want %d", got, n)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	var (
		wg   sync.WaitGroup
		errs [2]error
	)
	for i, db := range []*postgres.DB{a, b} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = db.CommitSteps(ctx, batches[i])
		}()
		waiting(i + 1)
	}
	if err := hold.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	won := 0
	for _, err := range errs {
		switch {
		case err == nil:
			won++
		case !errors.Is(err, store.ErrConflict) || !errors.Is(err, store.ErrStale):
			t.Fatalf("CommitSteps = %v, want ErrConflict", err)
		}
	}
	if won != 1 {
		t.Fatalf("%d batches won (%v), want exactly 1", won, errs)
	}
}
