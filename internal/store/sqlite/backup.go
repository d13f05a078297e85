package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"

	"github.com/gobpm/gobpm/internal/store"
)

// Backup writes a consistent copy of the database into the file dest,
// which must not exist, while the store keeps serving (see the package
// function Backup).
func (db *DB) Backup(ctx context.Context, dest string) error {
	return Backup(ctx, db.path, dest)
}

// Backup copies the SQLite database src into the new file dest with
// VACUUM INTO, on a read-only connection of its own: the copy is one
// snapshot of the database (a read transaction, which in WAL mode never
// blocks the writer, so steps keep committing while it is taken), compact
// (free pages are left out) and a plain database file in rollback-journal
// mode that opens on its own. It works whether or not a server has src
// open. The copy is written under a temporary name beside dest, checked
// (PRAGMA quick_check), synced to disk and only then renamed to dest, so
// dest never names a partial or unchecked copy. An existing dest is an
// ECONFLICT *store.Error; nothing is overwritten.
func Backup(ctx context.Context, src, dest string) (err error) {
	if _, err := os.Stat(src); err != nil {
		return fmt.Errorf("store: backup %s: %w", src, err)
	}
	if _, err := os.Lstat(dest); err == nil {
		return &store.Error{Code: store.ECONFLICT, Field: "to", Message: fmt.Sprintf("backup file %s exists: choose a new name, a backup never overwrites", dest)}
	} else if !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("store: backup to %s: %w", dest, err)
	}
	dir := filepath.Dir(dest)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(dest)+".*.partial")
	if err != nil {
		return fmt.Errorf("store: backup to %s: %w", dest, err)
	}
	tmpName := tmp.Name()
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("store: backup to %s: %w", dest, err)
	}
	defer func() {
		if err != nil {
			_ = os.Remove(tmpName)
		}
	}()
	// VACUUM INTO accepts an existing empty file: the temporary one.
	if err := vacuumInto(ctx, src, tmpName); err != nil {
		return fmt.Errorf("store: backup %s: %w", src, err)
	}
	if err := quickCheck(ctx, tmpName); err != nil {
		return fmt.Errorf("store: backup %s: the copy does not check: %w", src, err)
	}
	if err := syncFile(tmpName); err != nil {
		return fmt.Errorf("store: backup to %s: %w", dest, err)
	}
	if _, err := os.Lstat(dest); err == nil {
		return &store.Error{Code: store.ECONFLICT, Field: "to", Message: fmt.Sprintf("backup file %s appeared while the copy was written: choose a new name", dest)}
	}
	if err := os.Rename(tmpName, dest); err != nil {
		return fmt.Errorf("store: backup to %s: %w", dest, err)
	}
	if err := syncFile(dir); err != nil { // the rename itself survives a power cut
		return fmt.Errorf("store: backup to %s: %w", dest, err)
	}
	return nil
}

// roDSN opens path read-only, waiting for locks like the store does.
func roDSN(path string) string {
	q := url.Values{}
	q.Set("mode", "ro")
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", busyTimeoutMS))
	return "file:" + (&url.URL{Path: path}).EscapedPath() + "?" + q.Encode()
}

// vacuumInto copies src into the empty file dest in one read transaction.
func vacuumInto(ctx context.Context, src, dest string) error {
	conn, err := sql.Open(driverName, roDSN(src))
	if err != nil {
		return err
	}
	defer conn.Close()
	conn.SetMaxOpenConns(1)
	if _, err := conn.ExecContext(ctx, `VACUUM INTO ?`, dest); err != nil {
		return fmt.Errorf("vacuum into %s: %w", dest, err)
	}
	return conn.Close()
}

// quickCheck runs PRAGMA quick_check on the database file path.
func quickCheck(ctx context.Context, path string) error {
	conn, err := sql.Open(driverName, roDSN(path))
	if err != nil {
		return err
	}
	defer conn.Close()
	var res string
	if err := conn.QueryRowContext(ctx, `PRAGMA quick_check`).Scan(&res); err != nil {
		return err
	}
	if res != "ok" {
		return errors.New(res)
	}
	return conn.Close()
}

// syncFile flushes the file or directory path to disk.
func syncFile(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
