package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/gobpm/gobpm/internal/store"
)

// lockJobSQL locks one job by id (store.JobLocker), as the SQLite
// store's does. Arguments: worker, user, until, token hash, id, now,
// worker, user, renew.
const lockJobSQL = `UPDATE waits SET lock_owner = $1, lock_user = $2, lock_expires_at = $3, lock_token = $4
	WHERE id = $5 AND kind = 'job' AND retries > 0 AND (due_at IS NULL OR due_at <= $6)
	  AND (lock_expires_at IS NULL OR lock_expires_at <= $6
	       OR ($9::boolean AND COALESCE(lock_owner, '') = $7 AND COALESCE(lock_user, '') = $8))
	RETURNING ` + waitColumns

// LockJob locks the job with wait id id with lock (its one token hash),
// provided it may be locked at now, and returns it with its new lock: a
// wrapped store.ErrNotFound for an unknown job, a wrapped
// store.ErrConflict for one that may not be locked.
func (db *DB) LockJob(ctx context.Context, id string, now time.Time, lock store.JobLock) (store.WaitRow, error) {
	if len(lock.TokenHashes) != 1 {
		return store.WaitRow{}, fmt.Errorf("postgres store: lock job %s: want one token hash, got %d", id, len(lock.TokenHashes))
	}
	var out []store.WaitRow
	err := db.writeTx(ctx, func(tx pgx.Tx) error {
		var err error
		out, err = queryWaits(ctx, tx, lockJobSQL, lock.Worker, lock.User, encodeTime(lock.Until), lock.TokenHashes[0], id, encodeTime(now), lock.Worker, lock.User, lock.Renew)
		if err != nil || len(out) > 0 {
			return err
		}
		var one int
		if err := tx.QueryRow(ctx, jobExistsSQL, id).Scan(&one); err != nil {
			return notFound(err)
		}
		return fmt.Errorf("job is locked by another worker, backing off or out of retries: %w", store.ErrConflict)
	})
	if err != nil {
		return store.WaitRow{}, fmt.Errorf("postgres store: lock job %s: %w", id, err)
	}
	return out[0], nil
}

// The error details of a job (0012_job_error_details). Arguments: id,
// details (NULL clears them); id.
const (
	setErrorDetailsSQL = `UPDATE waits SET error_details = $2 WHERE id = $1 AND kind = 'job'`
	errorDetailsSQL    = `SELECT COALESCE(error_details, '') FROM waits WHERE id = $1 AND kind = 'job'`
)

// SetJobErrorDetails stores the error details of the last failure of the
// job with wait id id ("" clears them), cut at store.MaxJobErrorDetails
// bytes. It returns a wrapped store.ErrNotFound for an unknown job.
func (db *DB) SetJobErrorDetails(ctx context.Context, id, details string) error {
	tag, err := db.pool.Exec(ctx, setErrorDetailsSQL, id, errorDetailsArg(details))
	if err == nil && tag.RowsAffected() == 0 {
		err = store.ErrNotFound
	}
	if err != nil {
		return fmt.Errorf("postgres store: error details of job %s: %w", id, err)
	}
	return nil
}

// errorDetailsArg is the error_details value of details: NULL for none,
// else the details cut at store.MaxJobErrorDetails bytes.
func errorDetailsArg(details string) *string {
	if details == "" {
		return nil
	}
	capped := store.CapErrorDetails(details)
	return &capped
}

// JobErrorDetails returns the error details of the job with wait id id
// ("" when there are none); a wrapped store.ErrNotFound for an unknown
// job.
func (db *DB) JobErrorDetails(ctx context.Context, id string) (string, error) {
	var details string
	if err := db.pool.QueryRow(ctx, errorDetailsSQL, id).Scan(&details); err != nil {
		return "", fmt.Errorf("postgres store: error details of job %s: %w", id, notFound(err))
	}
	return details, nil
}
