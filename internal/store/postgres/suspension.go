package postgres

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/gobpm/gobpm/internal/store"
)

// The statements of the suspension acts (migration 0019).
const (
	// suspendInstanceSQL sets the flag of a running instance at a
	// revision and moves the revision on. Arguments: suspended, at, id,
	// revision.
	suspendInstanceSQL = `UPDATE instances SET suspended = $1, updated_at = $2, revision = revision + 1
		WHERE id = $3 AND revision = $4 AND ended_at IS NULL`
	// instanceEndSQL explains why suspendInstanceSQL matched no row.
	instanceEndSQL = `SELECT revision, ended_at FROM instances WHERE id = $1`
	// holdInstanceWaitsSQL holds or releases the waits of an instance and
	// returns them (a release wakes the other nodes). Arguments: held, id.
	holdInstanceWaitsSQL = `UPDATE waits SET held = $1 WHERE instance_id = $2 RETURNING ` + waitColumns
	// definitionExistsSQL tests a process version. Arguments: key, version.
	definitionExistsSQL = `SELECT 1 FROM definitions WHERE key = $1 AND version = $2`
	suspendVersionSQL   = `INSERT INTO suspended_versions (process_key, process_version, suspended_at) VALUES ($1, $2, $3)
		ON CONFLICT (process_key, process_version) DO NOTHING`
	resumeVersionSQL = `DELETE FROM suspended_versions WHERE process_key = $1 AND process_version = $2`
	// holdStartTimersSQL holds or releases the start timers of a version.
	// Arguments: held, key, version.
	holdStartTimersSQL = `UPDATE waits SET held = $1
		WHERE instance_id = '' AND kind = 'start-timer' AND process_key = $2 AND process_version = $3
		RETURNING ` + waitColumns
	suspendedVersionsSQL = `SELECT process_version FROM suspended_versions WHERE process_key = $1 ORDER BY process_version`
)

// SetInstanceSuspended sets the suspended flag of an instance and holds or
// releases its waits (store.SuspensionStore). A release wakes the other
// nodes for the jobs and timers it frees.
func (db *DB) SetInstanceSuspended(ctx context.Context, id store.InstanceID, revision int64, suspended bool, at time.Time) (store.InstanceRow, error) {
	var released []store.WaitRow
	err := db.writeTx(ctx, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, suspendInstanceSQL, suspended, encodeTime(at), string(id), revision)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 1 {
			rows, err := queryWaits(ctx, tx, holdInstanceWaitsSQL, suspended, string(id))
			if !suspended {
				released = rows
			}
			return err
		}
		var rev int64
		var ended sql.NullInt64
		err = tx.QueryRow(ctx, instanceEndSQL, string(id)).Scan(&rev, &ended)
		switch {
		case errors.Is(err, pgx.ErrNoRows):
			return store.ErrNotFound
		case err != nil:
			return err
		case ended.Valid:
			return fmt.Errorf("the instance has ended: %w", store.ErrConflict)
		}
		return fmt.Errorf("revision %d is not current (%d): %w", revision, rev, store.ErrConflict)
	})
	if err != nil {
		return store.InstanceRow{}, fmt.Errorf("postgres store: suspension of instance %s: %w", id, err)
	}
	db.wakeFor(released)
	return db.InstanceRow(ctx, id)
}

// wakeFor tells the other nodes about released waits.
func (db *DB) wakeFor(released []store.WaitRow) {
	if db.wake != nil && len(released) > 0 {
		db.wake.add([]store.StepRecord{{Waits: released}})
	}
}

// SetVersionSuspended records or removes the suspension of a process
// version and holds or releases its start timers (store.SuspensionStore).
func (db *DB) SetVersionSuspended(ctx context.Context, key string, version int, suspended bool, at time.Time) error {
	var released []store.WaitRow
	err := db.writeTx(ctx, func(tx pgx.Tx) error {
		var one int
		if err := tx.QueryRow(ctx, definitionExistsSQL, key, version).Scan(&one); err != nil {
			if errors.Is(err, pgx.ErrNoRows) {
				return store.ErrNotFound
			}
			return err
		}
		var err error
		if suspended {
			_, err = tx.Exec(ctx, suspendVersionSQL, key, version, encodeTime(at))
		} else {
			_, err = tx.Exec(ctx, resumeVersionSQL, key, version)
		}
		if err != nil {
			return err
		}
		rows, err := queryWaits(ctx, tx, holdStartTimersSQL, suspended, key, version)
		if !suspended {
			released = rows
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("postgres store: suspension of %s version %d: %w", key, version, err)
	}
	db.wakeFor(released)
	return nil
}

// SuspendedVersions returns the suspended versions of a process key
// (store.SuspensionStore).
func (db *DB) SuspendedVersions(ctx context.Context, key string) ([]int, error) {
	out, err := queryRows(ctx, db.pool, func(row pgx.Row) (int, error) {
		var v int
		err := row.Scan(&v)
		return v, err
	}, suspendedVersionsSQL, key)
	if err != nil {
		return nil, fmt.Errorf("postgres store: suspended versions of %s: %w", key, err)
	}
	return out, nil
}
