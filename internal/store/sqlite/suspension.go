package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/gobpm/gobpm/internal/store"
)

// The statements of the suspension acts (migration 0027).
const (
	// suspendInstanceSQL sets the flag of a running instance at a
	// revision and moves the revision on. Arguments: suspended, at,
	// revision + 1, id, revision.
	suspendInstanceSQL = `UPDATE instances SET suspended = ?, updated_after = ? - created_at, revision = ?
		WHERE id = ? AND revision = ? AND ended_at IS NULL`
	// holdInstanceWaitsSQL holds or releases the waits of an instance.
	// Arguments: held, instanceArgs.
	holdInstanceWaitsSQL = `UPDATE waits SET held = ? WHERE ` + ofInstance
	// definitionExistsSQL tests a process version. Arguments: key, version.
	definitionExistsSQL = `SELECT 1 FROM definitions WHERE key = ? AND version = ?`
	// suspendVersionSQL records a suspended version. Arguments: key,
	// version, at.
	suspendVersionSQL = `INSERT INTO suspended_versions (process_key, process_version, suspended_at) VALUES (?, ?, ?)
		ON CONFLICT (process_key, process_version) DO NOTHING`
	// resumeVersionSQL removes it. Arguments: key, version.
	resumeVersionSQL = `DELETE FROM suspended_versions WHERE process_key = ? AND process_version = ?`
	// holdStartTimersSQL holds or releases the start timers of a version.
	// Arguments: held, key, version.
	holdStartTimersSQL = `UPDATE waits SET held = ?
		WHERE instance_id = '' AND kind = 'start-timer' AND process_key = ? AND process_version = ?`
	// suspendedVersionsSQL lists the suspended versions of a key. Argument: key.
	suspendedVersionsSQL = `SELECT process_version FROM suspended_versions WHERE process_key = ? ORDER BY process_version`
)

// SetInstanceSuspended sets the suspended flag of an instance and holds or
// releases its waits (store.SuspensionStore).
func (db *DB) SetInstanceSuspended(ctx context.Context, id store.InstanceID, revision int64, suspended bool, at time.Time) (store.InstanceRow, error) {
	err := db.writeWith(ctx, func(st *txStmts) error {
		res, err := st.exec(suspendInstanceSQL, suspended, encodeTime(at), revision+1, dbID(id), revision)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 1 {
			if err != nil {
				return err
			}
			_, err = st.exec(holdInstanceWaitsSQL, append([]any{suspended}, instanceArgs(id)...)...)
			return err
		}
		var rev int64
		var ended sql.NullInt64
		err = st.queryRow(`SELECT revision, ended_at FROM instances WHERE id = ?`, dbID(id)).Scan(&rev, &ended)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			return store.ErrNotFound
		case err != nil:
			return err
		case ended.Valid:
			return fmt.Errorf("the instance has ended: %w", store.ErrConflict)
		}
		return fmt.Errorf("revision %d is not current (%d): %w", revision, rev, store.ErrConflict)
	})
	if err != nil {
		return store.InstanceRow{}, fmt.Errorf("store: suspension of instance %s: %w", id, err)
	}
	return db.InstanceRow(ctx, id)
}

// SetVersionSuspended records or removes the suspension of a process
// version and holds or releases its start timers (store.SuspensionStore).
func (db *DB) SetVersionSuspended(ctx context.Context, key string, version int, suspended bool, at time.Time) error {
	err := db.writeWith(ctx, func(st *txStmts) error {
		var one int
		if err := st.queryRow(definitionExistsSQL, key, version).Scan(&one); err != nil {
			return notFound(err)
		}
		var err error
		if suspended {
			_, err = st.exec(suspendVersionSQL, key, version, encodeTime(at))
		} else {
			_, err = st.exec(resumeVersionSQL, key, version)
		}
		if err != nil {
			return err
		}
		_, err = st.exec(holdStartTimersSQL, suspended, key, version)
		return err
	})
	if err != nil {
		return fmt.Errorf("store: suspension of %s version %d: %w", key, version, err)
	}
	return nil
}

// SuspendedVersions returns the suspended versions of a process key
// (store.SuspensionStore).
func (db *DB) SuspendedVersions(ctx context.Context, key string) ([]int, error) {
	rs, err := db.readOne(ctx).query(suspendedVersionsSQL, key)
	if err != nil {
		return nil, fmt.Errorf("store: suspended versions of %s: %w", key, err)
	}
	defer rs.Close()
	var out []int
	for rs.Next() {
		var v int
		if err := rs.Scan(&v); err != nil {
			return nil, fmt.Errorf("store: suspended versions of %s: %w", key, err)
		}
		out = append(out, v)
	}
	if err := rs.Err(); err != nil {
		return nil, fmt.Errorf("store: suspended versions of %s: %w", key, err)
	}
	return out, nil
}
