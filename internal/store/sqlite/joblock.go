package sqlite

import (
	"context"
	"fmt"
	"time"

	"github.com/gobpm/gobpm/internal/store"
)

// lockJobSQL locks one job by id (store.JobLocker): a job with retries
// left, not backing off, and not locked, its lock expired, or locked by
// the same worker and user (a renewal). Arguments: worker, user, until,
// token hash, id, now, now, worker, user.
const lockJobSQL = `UPDATE waits SET lock_owner = ?, lock_user = ?, lock_expires_at = ?, lock_token = ?
	WHERE id = ? AND kind = 'job' AND retries > 0 AND (due_at IS NULL OR due_at <= ?)
	  AND (lock_expires_at IS NULL OR lock_expires_at <= ?
	       OR (COALESCE(lock_owner, '') = ? AND COALESCE(lock_user, '') = ?))
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
	err := db.writeRelaxed(ctx, func(st *txStmts) error {
		var err error
		out, err = queryWaits(st, lockJobSQL, lock.Worker, lock.User, encodeTime(lock.Until), lock.TokenHashes[0], dbID(id), n, n, lock.Worker, lock.User)
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
