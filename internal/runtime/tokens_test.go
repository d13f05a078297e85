package runtime_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/gobpm/gobpm/internal/runtime"
	"github.com/gobpm/gobpm/internal/store/sqlite"
)

// TestTokensIndexedAtStartUp: instances stored before the token index
// existed are marked pending by its migration (here: the index emptied and
// every instance not ended marked, as migration 0014 leaves an older
// database); Prepare indexes their tokens from their states, so the counts
// are exact from the first page view, and steps keep them so.
// SQLite-only (not on testdb): it rewrites the file's tables behind the
// store's back to stand for an older database.
func TestTokensIndexedAtStartUp(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "gobpm.db")
	db, err := sqlite.Open(ctx, path, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rt := runtime.New(db, runtime.Options{})
	mustDeploy(t, rt, fixture(t, "job.bpmn"))
	for range 3 {
		if _, err := rt.StartInstance(ctx, runtime.StartRequest{ProcessKey: "job"}); err != nil {
			t.Fatal(err)
		}
	}
	counts, err := rt.ElementCounts(ctx, "job", 1)
	if err != nil || len(counts) != 1 || counts[0].Tokens != 3 {
		t.Fatalf("counts written by the steps: %+v, %v", counts, err)
	}
	want := counts
	rt.Close()
	db.Close()

	raw, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`DELETE FROM instance_tokens`,
		`INSERT INTO instance_tokens_pending (instance_seq) SELECT seq FROM instances WHERE ended_at IS NULL`,
	} {
		if _, err := raw.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	raw.Close()

	db, err = sqlite.Open(ctx, path, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rt = runtime.New(db, runtime.Options{})
	t.Cleanup(func() { rt.Close(); db.Close() })
	if got, err := rt.ElementCounts(ctx, "job", 1); err != nil || len(got) != 0 {
		t.Fatalf("before Prepare the index is empty: %+v, %v", got, err)
	}
	if err := rt.Prepare(ctx); err != nil {
		t.Fatal(err)
	}
	if pending, err := db.TokensPending(ctx, 0); err != nil || len(pending) != 0 {
		t.Fatalf("pending after Prepare: %v, %v", pending, err)
	}
	got, err := rt.ElementCounts(ctx, "job", 1)
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("counts after Prepare %+v, %v; want %+v", got, err, want)
	}
}
