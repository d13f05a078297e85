package sqlite_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/gobpm/gobpm/internal/store/sqlite"
)

// A new database holds every variable and the hashes of passwords and
// tokens: its folder and files (the write-ahead log and its index too) are
// made readable by the server's user only, whatever the umask lets through.
// An existing file keeps the mode its operator gave it.
func TestNewDatabaseIsPrivate(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data", "nested")
	path := filepath.Join(dir, "gobpm.db")
	db, err := sqlite.Open(context.Background(), path, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, p := range []string{filepath.Dir(dir), dir} {
		if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != 0o700 {
			t.Errorf("folder %s: %v, %v; want 0700", p, fi.Mode().Perm(), err)
		}
	}
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		fi, err := os.Stat(p)
		if os.IsNotExist(err) && p != path {
			continue
		}
		if err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf("file %s: %v, %v; want 0600", p, fi.Mode().Perm(), err)
		}
	}

	shared := filepath.Join(t.TempDir(), "shared.db")
	if err := os.WriteFile(shared, nil, 0o640); err != nil {
		t.Fatal(err)
	}
	db2, err := sqlite.Open(context.Background(), shared, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db2.Close()
	if fi, err := os.Stat(shared); err != nil || fi.Mode().Perm() != 0o640 {
		t.Errorf("an existing file's mode: %v, %v; want 0640 kept", fi.Mode().Perm(), err)
	}
}
