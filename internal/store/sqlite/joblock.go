package sqlite

import (
	"context"
	"fmt"
	"time"

	"github.com/gobpm/gobpm/internal/store"
)

// lockJobSQL locks one job by id (store.JobLocker): a job with retries
// left, not backing off, and not locked, its lock expired, or locked by
// the same worker and user when the lock asks for a renewal. Arguments:
// worker, user, until, token hash, id, now, now, renew (0/1), worker,
// user.
const lockJobSQL = `UPDATE waits SET lock_owner = ?, lock_user = ?, lock_expires_at = ?, lock_token = ?
	WHERE id = ? AND kind = 'job' AND retries > 0 AND (due_at IS NULL OR due_at <= ?)
	  AND (lock_expires_at IS NULL OR lock_expires_at <= ?
	       OR (? = 1 AND COALESCE(lock_owner, '') = ? AND COALESCE(lock_user, '') = ?))
	RETURNING ` + waitColumns

// LockJob locks the job with wait id id with lock (its one token hash),
// provided it may be locked at now (see lockJobSQL), and returns it with
// its new lock. It returns a wrapped store.ErrNotFound if there is no
// job with that id and a wrapped store.ErrConflict if it may not be
// locked.
func (db *DB) LockJob(ctx context.Context, id string, now time.Time, lock store.JobLock) (store.WaitRow, error) {
	if len(lock.TokenHashes) != 1 {
		return store.WaitRow{}, fmt.Errorf("store: lock job %s: want one token hash, got %d", id, len(lock.TokenHashes))
	}
	var out []store.WaitRow
	n := encodeTime(now)
	renew := 0
	if lock.Renew {
		renew = 1
	}
	err := db.writeRelaxed(ctx, func(st *txStmts) error {
		var err error
		out, err = queryWaits(st, lockJobSQL, lock.Worker, lock.User, encodeTime(lock.Until), lock.TokenHashes[0], dbID(id), n, n, renew, lock.Worker, lock.User)
		if err != nil || len(out) > 0 {
			return err
		}
		var one int
		if err := st.queryRow(jobExistsSQL, dbID(id)).Scan(&one); err != nil {
			return notFound(err)
		}
		return fmt.Errorf("job is locked by another worker, backing off or out of retries: %w", store.ErrConflict)
	})
	if err != nil {
		return store.WaitRow{}, fmt.Errorf("store: lock job %s: %w", id, err)
	}
	return out[0], nil
}

// The error details of a job (0019_job_error_details). Arguments: details
// (NULL clears them), id; id.
const (
	setErrorDetailsSQL = `UPDATE waits SET error_details = ? WHERE id = ? AND kind = 'job'`
	errorDetailsSQL    = `SELECT COALESCE(error_details, '') FROM waits WHERE id = ? AND kind = 'job'`
)

// SetJobErrorDetails stores the error details of the last failure of the
// job with wait id id ("" clears them), cut at store.MaxJobErrorDetails
// bytes. It returns a wrapped store.ErrNotFound for an unknown job.
func (db *DB) SetJobErrorDetails(ctx context.Context, id, details string) error {
	if err := db.updateOne(ctx, setErrorDetailsSQL, errorDetailsArg(details), dbID(id)); err != nil {
		return fmt.Errorf("store: error details of job %s: %w", id, err)
	}
	return nil
}

// errorDetailsArg is the error_details value of details: NULL for none,
// else the details cut at store.MaxJobErrorDetails bytes.
func errorDetailsArg(details string) any {
	if details == "" {
		return nil
	}
	return store.CapErrorDetails(details)
}

// JobErrorDetails returns the error details of the job with wait id id
// ("" when there are none); a wrapped store.ErrNotFound for an unknown
// job.
func (db *DB) JobErrorDetails(ctx context.Context, id string) (string, error) {
	var details string
	if err := db.readOne(ctx).queryRow(errorDetailsSQL, dbID(id)).Scan(&details); err != nil {
		return "", fmt.Errorf("store: error details of job %s: %w", id, notFound(err))
	}
	return details, nil
}

// updateOne runs an update on the writer that must change a row:
// store.ErrNotFound when it changes none.
func (db *DB) updateOne(ctx context.Context, query string, args ...any) error {
	return db.writeWith(ctx, func(st *txStmts) error {
		res, err := st.exec(query, args...)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			return store.ErrNotFound
		}
		return nil
	})
}
