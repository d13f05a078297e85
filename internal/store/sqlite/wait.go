package sqlite

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/gobpm/gobpm/internal/store"
	"github.com/gobpm/gobpm/internal/store/sqlcodec"
	"github.com/gobpm/gobpm/internal/store/sqlquery"
)

// waitColumns selects a WaitRow; scanWait reads it. A NULL instance_id
// means the instance is the one the id's first 16 bytes name (migration
// 0005, ownerColumn).
const waitColumns = `id, COALESCE(instance_id, substr(id, 1, 16)), kind, node_id, scope_id, track_id, process_key, process_version,
	name, correlation_key, due_at, retries, error_message, assignee, candidate_users, candidate_groups,
	created_at, lock_owner, lock_expires_at, lock_user, lock_token, trace_context`

// The queries of the wait methods. They are constants so that a test can
// check each one against the indexes of 0005_parts with EXPLAIN QUERY PLAN,
// and each is prepared once per pool (writeQueries, readQueries). A kind
// condition is spelled exactly as in the partial index it uses.
const (
	// insertWaitSQL inserts a wait; the lock columns start NULL.
	insertWaitSQL = `INSERT INTO waits (id, instance_id, kind, node_id, scope_id, track_id, process_key,
		    process_version, name, correlation_key, due_at, retries, error_message, assignee,
		    candidate_users, candidate_groups, created_at, trace_context)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`

	// upsertWaitSQL inserts a wait of an instance or replaces every column of
	// it; a replaced job loses its lock (token and user included). A row of another instance (or a
	// start timer) with the same id is left alone: zero rows affected.
	upsertWaitSQL = insertWaitSQL + `
		ON CONFLICT (id) DO UPDATE SET kind = excluded.kind, node_id = excluded.node_id,
		    scope_id = excluded.scope_id, track_id = excluded.track_id, process_key = excluded.process_key,
		    process_version = excluded.process_version, name = excluded.name,
		    correlation_key = excluded.correlation_key, due_at = excluded.due_at, retries = excluded.retries,
		    error_message = excluded.error_message, assignee = excluded.assignee,
		    candidate_users = excluded.candidate_users, candidate_groups = excluded.candidate_groups,
		    created_at = excluded.created_at, lock_owner = NULL, lock_expires_at = NULL,
		    lock_user = NULL, lock_token = NULL,
		    trace_context = COALESCE(NULLIF(excluded.trace_context, ''), waits.trace_context)
		WHERE waits.instance_id IS excluded.instance_id`

	// deleteWaitSQL deletes a wait by id. Argument: id.
	deleteWaitSQL = `DELETE FROM waits WHERE id = ?`

	// ofInstance selects the waits of an instance: the range of ids that
	// start with its UUID and name it (instance_id NULL), and the rows
	// naming it in instance_id. Arguments: instanceArgs.
	ofInstance = `((id > ? AND id < ? AND instance_id IS NULL) OR instance_id = ?)`

	// deleteInstanceWaitsSQL deletes every wait of an instance. Arguments:
	// instanceArgs.
	deleteInstanceWaitsSQL = `DELETE FROM waits WHERE ` + ofInstance

	// activateJobsSQL locks the oldest activatable jobs of a type, each
	// with its own token hash: the n-th picked job (oldest first, counted
	// from 1 over at most max jobs) gets the n-th 32 bytes of the hashes
	// argument, one blob of all of them. The jobs are picked (and numbered)
	// before the update, so the numbering reads at most max rows.
	// Arguments: type, now, now, max, owner, user, expiry, hashes.
	activateJobsSQL = `WITH picked AS (
		    SELECT id, row_number() OVER (ORDER BY created_at, id) AS n FROM (
		        SELECT id, created_at FROM (
		            SELECT id, created_at FROM ` + freeJobsWhere + `
		            ORDER BY created_at, id LIMIT ?)
		        UNION ALL
		        SELECT id, created_at FROM (
		            SELECT id, created_at FROM ` + expiredLocksWhere + `
		            ORDER BY created_at, id LIMIT ?)
		        ORDER BY created_at, id LIMIT ?))
		UPDATE waits SET lock_owner = ?, lock_user = ?, lock_expires_at = ?,
		    lock_token = substr(?, (picked.n - 1) * 32 + 1, 32)
		FROM picked WHERE waits.id = picked.id
		RETURNING ` + waitColumns

	// activatableJobSQL says whether activateJobsSQL would lock anything,
	// read on the read pool: the same two sets of jobs. Arguments: type,
	// now, type, now, now.
	activatableJobSQL = `SELECT EXISTS (SELECT 1 FROM ` + freeJobsWhere + `)
		  OR EXISTS (SELECT 1 FROM ` + expiredLocksWhere + `)`

	// freeJobsWhere and expiredLocksWhere are the activatable jobs of a
	// type, without and with an expired lock, each read in its own partial
	// index. Arguments: type, now (free); type, now, now (expired).
	freeJobsWhere = `waits INDEXED BY waits_jobs_free
		    WHERE kind = 'job' AND retries > 0 AND lock_expires_at IS NULL
		      AND name = ? AND (due_at IS NULL OR due_at <= ?)`
	expiredLocksWhere = `waits INDEXED BY waits_jobs_locked
		    WHERE kind = 'job' AND retries > 0 AND lock_expires_at IS NOT NULL
		      AND name = ? AND lock_expires_at <= ? AND (due_at IS NULL OR due_at <= ?)`

	// nextJobSQL is the earliest time after now at which a job of a type with
	// retries left is neither backing off nor locked: the earliest backoff
	// end of the free jobs and the earliest lock expiry (or later backoff
	// end) of the locked ones. Arguments: type, now, type, now.
	nextJobSQL = `SELECT MIN(t) FROM (
		    SELECT MIN(due_at) AS t FROM waits INDEXED BY waits_jobs_free
		    WHERE kind = 'job' AND retries > 0 AND lock_expires_at IS NULL
		      AND name = ? AND due_at > ?
		    UNION ALL
		    SELECT MIN(MAX(COALESCE(due_at, 0), lock_expires_at)) FROM waits INDEXED BY waits_jobs_locked
		    WHERE kind = 'job' AND retries > 0 AND lock_expires_at IS NOT NULL
		      AND name = ? AND MAX(COALESCE(due_at, 0), lock_expires_at) > ?)`

	// extendLockSQL moves a live lock held with a token. Arguments: until,
	// key, token hash, now.
	extendLockSQL = `UPDATE waits SET lock_expires_at = ?
		WHERE id = ? AND kind = 'job' AND lock_token = ? AND lock_expires_at > ?`

	// startTimerExistsSQL finds a timer start schedule (a step's
	// FiresStartTimer). Arguments: id.
	startTimerExistsSQL = `SELECT 1 FROM waits WHERE id = ? AND kind = 'start-timer'`

	// lockGuardSQL reads the lock user of a job that still holds a lock
	// token (a step's LockGuard). Arguments: key, token hash.
	lockGuardSQL = `SELECT lock_user FROM waits WHERE id = ? AND kind = 'job' AND lock_token = ?`

	// dueTimersSQL lists due timers earliest first. Arguments: now, limit.
	// The kind condition is spelled exactly as in the partial index
	// waits_timers_due, which the query names: its order spans both kinds,
	// so the query reads at most limit index entries and never sorts.
	dueTimersSQL = `SELECT ` + waitColumns + ` FROM waits INDEXED BY waits_timers_due
		WHERE kind IN ('timer', 'start-timer') AND due_at <= ?
		ORDER BY due_at, id LIMIT ?`

	// nextTimerSQL is the earliest due time of any timer: the first entry of
	// waits_timers_due.
	nextTimerSQL = `SELECT due_at FROM waits INDEXED BY waits_timers_due
		WHERE kind IN ('timer', 'start-timer') AND due_at IS NOT NULL
		ORDER BY due_at LIMIT 1`

	// messageSubscriptionsSQL lists the subscriptions of a name and key,
	// oldest first. Arguments: name, key, limit.
	messageSubscriptionsSQL = `SELECT ` + waitColumns + ` FROM waits
		WHERE kind = 'message' AND name = ? AND correlation_key = ?
		ORDER BY created_at, id LIMIT ?`

	// signalSubscriptionsSQL lists the instances subscribed to a signal, the
	// one with the oldest subscription first. Argument: name.
	signalSubscriptionsSQL = `SELECT COALESCE(instance_id, substr(id, 1, 16)) AS owner FROM waits
		WHERE kind = 'signal' AND name = ? AND (instance_id IS NULL OR instance_id <> '')
		GROUP BY owner ORDER BY MIN(created_at), owner`

	// waitSQL reads one wait. Argument: id.
	waitSQL = `SELECT ` + waitColumns + ` FROM waits WHERE id = ?`
	// waitExistsSQL and jobExistsSQL test an id. Argument: id.
	waitExistsSQL = `SELECT 1 FROM waits WHERE id = ?`
	jobExistsSQL  = `SELECT 1 FROM waits WHERE id = ? AND kind = 'job'`
	// instanceWaitsSQL lists the waits of an instance, oldest first.
	// Arguments: instanceArgs.
	instanceWaitsSQL = `SELECT ` + waitColumns + ` FROM waits WHERE id > ? AND id < ? AND instance_id IS NULL
		UNION ALL SELECT ` + waitColumns + ` FROM waits WHERE instance_id = ?
		ORDER BY created_at, id`

	// instanceWaitsPageSQL lists the waits of an instance after a cursor
	// id, by id: the creation order of the waits the engine mints (their
	// ids end in an ascending counter). The instance's own waits are a
	// primary-key range that starts after the cursor and is read in order;
	// only its foreign waits (few) are sorted; the merge stops at limit.
	// Arguments: range low (after the cursor), range high, instance id,
	// cursor, limit.
	instanceWaitsPageSQL = `SELECT * FROM (SELECT ` + waitColumns + ` FROM waits WHERE id > ? AND id < ? AND instance_id IS NULL
		UNION ALL SELECT ` + waitColumns + ` FROM waits WHERE instance_id = ? AND id > ?)
		ORDER BY id LIMIT ?`

	// startTimersSQL lists the start timers of a process key. Argument: key.
	// Start timers are the rows without an instance, which the instance
	// index finds.
	startTimersSQL = `SELECT ` + waitColumns + ` FROM waits
		WHERE instance_id = '' AND kind = 'start-timer' AND process_key = ?
		ORDER BY due_at, id`
)

// instanceArgs are the arguments of ofInstance for instance id: the range
// of wait ids that start with its UUID (empty for another id), and its id.
func instanceArgs(id store.InstanceID) []any {
	b, ok := uuidBytes(string(id))
	if !ok {
		return []any{"", "", dbID(id)}
	}
	return []any{b, append(slices.Clone(b), 0xff), dbID(id)}
}

// ownerColumn is the instance_id column of wait id owned by instance:
// NULL if the id names the instance ("<instance UUID>-w000001"), else the
// instance's id (” for a start timer).
func ownerColumn(waitID string, instance store.InstanceID) any {
	if b, ok := idBytes(waitID); ok && len(b) > 16 {
		if ib, ok := uuidBytes(string(instance)); ok && bytes.Equal(b[:16], ib) {
			return nil
		}
	}
	return dbID(instance)
}

// checkLockGuard fails with store.ErrLockLost unless the job g names
// still holds g's lock token (and, with g.CheckUser, was locked by g.User):
// a point read on the primary key, inside the step's transaction, so no
// activation can slip in between.
func checkLockGuard(st *txStmts, g *store.LockGuard) error {
	var user sql.NullString
	err := st.queryRow(lockGuardSQL, dbID(g.WaitID), g.TokenHash).Scan(&user)
	if errors.Is(err, sql.ErrNoRows) || (err == nil && g.CheckUser && user.String != g.User) {
		return fmt.Errorf("job %s: %w", g.WaitID, store.ErrLockLost)
	}
	return err
}

// applyWaits writes the waits of one step of instance in inside tx. Removals
// apply first, then upserts, so an id in both (a timer fired and re-armed)
// ends up present. An ended instance (completed or terminated) then loses
// every wait it still has; created says this step created the instance, so
// it has no waits but those of this step (a straight-through instance costs
// no delete).
func applyWaits(st *txStmts, in *store.InstanceRow, created bool, waits []store.WaitRow, removed []string) error {
	for _, id := range removed {
		if _, err := st.exec(deleteWaitSQL, dbID(id)); err != nil {
			return fmt.Errorf("delete wait %s: %w", id, err)
		}
		if _, err := st.exec(deleteWaitKeySQL, dbID(id)); err != nil {
			return fmt.Errorf("delete numeric key of wait %s: %w", id, err)
		}
	}
	for i := range waits {
		w := &waits[i]
		owner := in.ID
		if w.Kind == store.WaitStartTimer {
			owner = "" // a timer start's schedule re-armed by the step that fired it
		} else if w.InstanceID != "" && w.InstanceID != in.ID {
			return fmt.Errorf("wait %s belongs to instance %s", w.ID, w.InstanceID)
		}
		if err := writeWait(st, upsertWaitSQL, owner, w); err != nil {
			return err
		}
		if err := assignWaitKey(st, w); err != nil {
			return err
		}
	}
	if (in.Status == store.StatusCompleted || in.Status == store.StatusTerminated) && (!created || len(waits) > 0) {
		if _, err := st.exec(deleteInstanceWaitKeysSQL, instanceArgs(in.ID)...); err != nil {
			return fmt.Errorf("delete numeric keys of the waits of ended instance: %w", err)
		}
		if _, err := st.exec(deleteInstanceWaitsSQL, instanceArgs(in.ID)...); err != nil {
			return fmt.Errorf("delete waits of ended instance: %w", err)
		}
	}
	return nil
}

// writeWait runs query (insertWaitSQL or upsertWaitSQL) for w as a wait of
// instance id ("" for a start timer). A statement that writes no row (the id
// is held by another instance or a start timer) is a conflict.
func writeWait(st *txStmts, query string, id store.InstanceID, w *store.WaitRow) error {
	if w.ID == "" || w.Kind == "" {
		return fmt.Errorf("wait %q of kind %q: id and kind are required", w.ID, w.Kind)
	}
	users, err := sqlcodec.EncodeList(w.CandidateUsers)
	if err != nil {
		return fmt.Errorf("wait %s: %w", w.ID, err)
	}
	groups, err := sqlcodec.EncodeList(w.CandidateGroups)
	if err != nil {
		return fmt.Errorf("wait %s: %w", w.ID, err)
	}
	res, err := st.exec(query,
		dbID(w.ID), ownerColumn(w.ID, id), w.Kind, w.NodeID, w.ScopeID, w.TrackID, w.ProcessKey, w.ProcessVersion, w.Name,
		w.CorrelationKey, encodeOptTime(w.DueAt), w.Retries, w.ErrorMessage, w.Assignee, users, groups,
		encodeTime(w.CreatedAt), w.TraceContext)
	if err != nil {
		return fmt.Errorf("write wait %s: %w", w.ID, err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return err
	} else if n == 0 {
		return fmt.Errorf("wait %s belongs to another instance: %w", w.ID, store.ErrConflict)
	}
	return nil
}

// scanWait reads the waitColumns of a row.
func scanWait(row interface{ Scan(...any) error }) (store.WaitRow, error) {
	var (
		w                 store.WaitRow
		due, lockExpires  sql.NullInt64
		created           int64
		users, groups     sql.NullString
		lockOwner         sql.NullString
		lockUser          sql.NullString
		errUsers, errGrps error
	)
	if err := row.Scan(idDest(&w.ID), idDest(&w.InstanceID), &w.Kind, &w.NodeID, &w.ScopeID, &w.TrackID, &w.ProcessKey,
		&w.ProcessVersion, &w.Name, &w.CorrelationKey, &due, &w.Retries, &w.ErrorMessage, &w.Assignee,
		&users, &groups, &created, &lockOwner, &lockExpires, &lockUser, &w.LockTokenHash, &w.TraceContext); err != nil {
		return w, err
	}
	w.LockUser = lockUser.String
	w.DueAt = decodeOptTime(due)
	w.CreatedAt = decodeTime(created)
	w.LockOwner = lockOwner.String
	w.LockExpiresAt = decodeOptTime(lockExpires)
	w.CandidateUsers, errUsers = sqlcodec.DecodeList(users)
	w.CandidateGroups, errGrps = sqlcodec.DecodeList(groups)
	if errUsers != nil || errGrps != nil {
		return w, fmt.Errorf("wait %s: candidates: %w", w.ID, errors.Join(errUsers, errGrps))
	}
	return w, nil
}

// queryWaits runs a waitColumns query and reads every row.
func queryWaits(st querier, query string, args ...any) ([]store.WaitRow, error) {
	rs, err := st.query(query, args...)
	if err != nil {
		return nil, err
	}
	defer rs.Close()
	var out []store.WaitRow
	for rs.Next() {
		w, err := scanWait(rs)
		if err != nil {
			return nil, err
		}
		out = append(out, w)
	}
	return out, rs.Err()
}

// ignoreNoRows maps sql.ErrNoRows to nil.
func ignoreNoRows(err error) error {
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	return err
}

// noLimit maps a limit <= 0 to SQLite's "no limit".
func noLimit(limit int) int {
	if limit <= 0 {
		return -1
	}
	return limit
}

// Wait returns one wait row by id. It returns a wrapped store.ErrNotFound
// if there is none.
func (db *DB) Wait(ctx context.Context, id string) (store.WaitRow, error) {
	w, err := scanWait(db.readOne(ctx).queryRow(waitSQL, dbID(id)))
	err = notFound(err)
	if err != nil {
		return store.WaitRow{}, fmt.Errorf("store: wait %s: %w", id, err)
	}
	return w, nil
}

// ActivateJobs locks up to len(lock.TokenHashes) activatable jobs of jobType
// with lock (worker, user, expiry and one token hash each) and returns them
// with their new lock, oldest first (creation time, then key): the i-th row
// holds lock.TokenHashes[i]. A job is activatable when it has retries left,
// its DueAt (retry backoff) is unset or not after now, and it is not locked
// or its lock has expired at now. The selection and the lock happen in one
// statement on the single writer, so two calls never hand out the same job
// under a live lock. No hashes activate nothing; a hash that is not 32
// bytes, or one given twice, is refused.
func (db *DB) ActivateJobs(ctx context.Context, jobType string, now time.Time, lock store.JobLock) ([]store.WaitRow, error) {
	max := len(lock.TokenHashes)
	if max == 0 {
		return nil, nil
	}
	index, err := sqlcodec.TokenHashIndex(lock.TokenHashes)
	if err != nil {
		return nil, fmt.Errorf("store: activate jobs of type %q: %w", jobType, err)
	}
	// Look before locking: a long-polling worker that finds nothing (the
	// common case when workers outnumber jobs) costs a read, not a write
	// transaction that would hold the single writer from the steps. A job
	// committed after the look wakes the poll, which looks again.
	var found bool
	n := encodeTime(now)
	if err := db.readOne(ctx).queryRow(activatableJobSQL, jobType, n, jobType, n, n).Scan(&found); err != nil {
		return nil, fmt.Errorf("store: activate jobs of type %q: %w", jobType, err)
	}
	if !found {
		return nil, nil
	}
	hashes := bytes.Join(lock.TokenHashes, nil)
	var out []store.WaitRow
	err = db.writeRelaxed(ctx, func(st *txStmts) error {
		var err error
		out, err = queryWaits(st, activateJobsSQL, jobType, n, max, jobType, n, n, max, max, lock.Worker, lock.User, encodeTime(lock.Until), hashes)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("store: activate jobs of type %q: %w", jobType, err)
	}
	// RETURNING yields rows in no defined order; each row's hash tells its
	// place in the picking order.
	slices.SortFunc(out, func(a, b store.WaitRow) int {
		return index[string(a.LockTokenHash)] - index[string(b.LockTokenHash)]
	})
	return out, nil
}

// NextJobAvailable returns the earliest time after now at which a job of
// jobType with retries left becomes activatable: the later of its retry
// backoff (DueAt) and its lock expiry. ok is false if no job of the type
// becomes activatable after now (none exists, or all are activatable already
// or out of retries).
func (db *DB) NextJobAvailable(ctx context.Context, jobType string, now time.Time) (time.Time, bool, error) {
	var next sql.NullInt64
	n := encodeTime(now)
	err := db.readOne(ctx).queryRow(nextJobSQL, jobType, n, jobType, n).Scan(&next)
	if err != nil {
		return time.Time{}, false, fmt.Errorf("store: next job of type %q: %w", jobType, err)
	}
	return decodeOptTime(next), next.Valid, nil
}

// ExtendJobLock moves the lock of job key to until, provided the job holds
// the lock token whose hash is tokenHash and its lock has not expired at
// now. It returns a wrapped store.ErrNotFound if there is no job with that
// key and a wrapped store.ErrConflict if the job is not locked, is locked
// with another token, or its lock has expired.
func (db *DB) ExtendJobLock(ctx context.Context, key string, tokenHash []byte, now, until time.Time) error {
	err := db.writeRelaxed(ctx, func(st *txStmts) error {
		res, err := st.exec(extendLockSQL, encodeTime(until), dbID(key), tokenHash, encodeTime(now))
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n > 0 {
			return nil
		}
		var one int
		if err := st.queryRow(jobExistsSQL, dbID(key)).Scan(&one); err != nil {
			return notFound(err)
		}
		return fmt.Errorf("job is not locked with this token or its lock has expired: %w", store.ErrConflict)
	})
	if err != nil {
		return fmt.Errorf("store: extend lock of job %s: %w", key, err)
	}
	return nil
}

// tasksQuery builds the WHERE clause and arguments of a task filter.
func tasksQuery(f store.TaskFilter) (string, []any) {
	where := []string{"kind = 'task'"}
	var args []any
	if f.Assignee != "" {
		where = append(where, "assignee = ?")
		args = append(args, f.Assignee)
	}
	if f.CandidateUser != "" {
		where = append(where, "EXISTS (SELECT 1 FROM json_each(waits.candidate_users) WHERE json_each.value = ?)")
		args = append(args, f.CandidateUser)
	}
	if f.CandidateGroup != "" {
		where = append(where, "EXISTS (SELECT 1 FROM json_each(waits.candidate_groups) WHERE json_each.value = ?)")
		args = append(args, f.CandidateGroup)
	}
	if f.InstanceID != "" {
		where = append(where, ofInstance)
		args = append(args, instanceArgs(f.InstanceID)...)
	}
	if f.OfferedTo != nil {
		cond, more := offeredTo(*f.OfferedTo)
		where = append(where, cond)
		args = append(args, more...)
	}
	if f.ProcessKey != "" {
		where = append(where, "process_key = ?")
		args = append(args, f.ProcessKey)
	}
	if f.Unassigned {
		where = append(where, "assignee = ''")
	}
	if len(f.CandidateGroupsAny) > 0 {
		where = append(where, "EXISTS (SELECT 1 FROM json_each(waits.candidate_groups) WHERE json_each.value IN (?"+
			strings.Repeat(", ?", len(f.CandidateGroupsAny)-1)+"))")
		for _, g := range f.CandidateGroupsAny {
			args = append(args, g)
		}
	}
	if !f.DueBefore.IsZero() {
		where = append(where, "due_at IS NOT NULL AND due_at < ?")
		args = append(args, encodeTime(f.DueBefore))
	}
	if !f.CreatedAfter.IsZero() {
		where = append(where, "created_at >= ?")
		args = append(args, encodeTime(f.CreatedAfter))
	}
	if !f.CreatedBefore.IsZero() {
		where = append(where, "created_at < ?")
		args = append(args, encodeTime(f.CreatedBefore))
	}
	for _, v := range f.Variables {
		cond, more := taskVariableCond(v)
		where = append(where, cond)
		args = append(args, more...)
	}
	return " WHERE " + strings.Join(where, " AND "), args
}

// Tasks lists the user-task waits matching f in f.Order (oldest first by
// default: creation time, then id), and the total number of matches
// regardless of paging. Filters combine with AND: Assignee matches exactly,
// CandidateUser and CandidateGroup match tasks whose candidate list
// contains the value, CandidateGroupsAny one containing any of them. Limit
// 0 means DefaultListLimit; larger than MaxListLimit is capped.
func (db *DB) Tasks(ctx context.Context, f store.TaskFilter) ([]store.WaitRow, int, error) {
	if err := sqlquery.CheckVariableFilters(f.Variables); err != nil {
		return nil, 0, fmt.Errorf("store: tasks: %w", err)
	}
	cond, args := tasksQuery(f)
	limit := sqlquery.ListLimit(f.Limit)
	offset := max(f.Offset, 0)
	var (
		rows  []store.WaitRow
		total int
	)
	countQuery := `SELECT COUNT(*) FROM waits` + cond
	pageQuery := `SELECT ` + waitColumns + ` FROM waits` + cond + ` ORDER BY ` + sqlquery.TaskOrderBy(f.Order) + ` LIMIT ? OFFSET ?`
	for _, q := range []string{countQuery, pageQuery} {
		if err := db.rstmts.warm(ctx, q); err != nil {
			return nil, 0, fmt.Errorf("store: tasks: %w", err)
		}
	}
	err := db.readWith(ctx, func(st *txStmts) error {
		if err := st.queryRow(countQuery, args...).Scan(&total); err != nil {
			return err
		}
		var err error
		rows, err = queryWaits(st, pageQuery, append(args, limit, offset)...)
		return err
	})
	if err != nil {
		return nil, 0, fmt.Errorf("store: tasks: %w", err)
	}
	return rows, total, nil
}

// DueTimers returns the timer and start-timer waits due at now (DueAt not
// after now), earliest first, at most limit of them (limit <= 0: all).
func (db *DB) DueTimers(ctx context.Context, now time.Time, limit int) ([]store.WaitRow, error) {
	out, err := queryWaits(db.readOne(ctx), dueTimersSQL, encodeTime(now), noLimit(limit))
	if err != nil {
		return nil, fmt.Errorf("store: due timers: %w", err)
	}
	return out, nil
}

// NextTimer returns the earliest DueAt of any timer or start-timer wait; ok
// is false when there is none.
func (db *DB) NextTimer(ctx context.Context) (time.Time, bool, error) {
	var next sql.NullInt64
	err := ignoreNoRows(db.readOne(ctx).queryRow(nextTimerSQL).Scan(&next))
	if err != nil {
		return time.Time{}, false, fmt.Errorf("store: next timer: %w", err)
	}
	return decodeOptTime(next), next.Valid, nil
}

// MessageSubscriptions returns the message waits with this name and exactly
// this correlation key ("" matches only subscriptions without a key), oldest
// first, at most limit of them (limit <= 0: all).
func (db *DB) MessageSubscriptions(ctx context.Context, name, correlationKey string, limit int) ([]store.WaitRow, error) {
	out, err := queryWaits(db.readOne(ctx), messageSubscriptionsSQL, name, correlationKey, noLimit(limit))
	if err != nil {
		return nil, fmt.Errorf("store: subscriptions of message %q: %w", name, err)
	}
	return out, nil
}

// SignalSubscriptions returns the distinct ids of the instances that have a
// signal wait with this name, the instance with the oldest subscription
// first.
func (db *DB) SignalSubscriptions(ctx context.Context, name string) ([]store.InstanceID, error) {
	var out []store.InstanceID
	err := db.readWith(ctx, func(st *txStmts) error {
		rs, err := st.query(signalSubscriptionsSQL, name)
		if err != nil {
			return err
		}
		defer rs.Close()
		for rs.Next() {
			var id store.InstanceID
			if err := rs.Scan(idDest(&id)); err != nil {
				return err
			}
			out = append(out, id)
		}
		return rs.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("store: subscriptions of signal %q: %w", name, err)
	}
	return out, nil
}

// StartTimers returns the start-timer waits of a process key, earliest due
// first.
func (db *DB) StartTimers(ctx context.Context, processKey string) ([]store.WaitRow, error) {
	out, err := queryWaits(db.readOne(ctx), startTimersSQL, processKey)
	if err != nil {
		return nil, fmt.Errorf("store: start timers of %q: %w", processKey, err)
	}
	return out, nil
}

// ReplaceStartTimers deletes the start-timer waits of processKey and inserts
// rows in one transaction. Each row must have no instance id; an empty Kind
// or ProcessKey is filled in, any other kind or key is refused. An id already
// used by another wait fails the whole call and changes nothing.
func (db *DB) ReplaceStartTimers(ctx context.Context, processKey string, rows []store.WaitRow) error {
	err := db.writeWith(ctx, func(st *txStmts) error {
		if _, err := st.exec(
			`DELETE FROM waits WHERE instance_id = '' AND kind = 'start-timer' AND process_key = ?`, processKey); err != nil {
			return err
		}
		for _, w := range rows {
			if w.Kind == "" {
				w.Kind = store.WaitStartTimer
			}
			if w.ProcessKey == "" {
				w.ProcessKey = processKey
			}
			if w.Kind != store.WaitStartTimer || w.ProcessKey != processKey || w.InstanceID != "" {
				return fmt.Errorf("wait %s (kind %q, process %q, instance %q) is not a start timer of %q",
					w.ID, w.Kind, w.ProcessKey, w.InstanceID, processKey)
			}
			var one int
			err := st.queryRow(waitExistsSQL, dbID(w.ID)).Scan(&one)
			if err == nil {
				return fmt.Errorf("wait %s exists: %w", w.ID, store.ErrConflict)
			} else if !errors.Is(err, sql.ErrNoRows) {
				return err
			}
			if err := writeWait(st, insertWaitSQL, "", &w); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("store: replace start timers of %q: %w", processKey, err)
	}
	return nil
}

// InstanceWaits returns the open waits of an instance (jobs, tasks, timers,
// subscriptions, calls), oldest first; store.ErrNotFound for an unknown
// instance.
func (db *DB) InstanceWaits(ctx context.Context, id store.InstanceID) ([]store.WaitRow, error) {
	var out []store.WaitRow
	err := db.readWith(ctx, func(st *txStmts) error {
		var err error
		out, err = queryWaits(st, instanceWaitsSQL, instanceArgs(id)...)
		if err == nil && len(out) == 0 {
			return instanceExists(st, id)
		}
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("store: waits of instance %s: %w", id, err)
	}
	return out, nil
}

// InstanceWaitsPage returns at most limit open waits of an instance whose
// id follows after ("" from the first), ordered by id: the order the engine
// created them in. A page costs its size. It returns a wrapped
// store.ErrNotFound if the instance does not exist.
func (db *DB) InstanceWaitsPage(ctx context.Context, id store.InstanceID, after string, limit int) ([]store.WaitRow, error) {
	if limit <= 0 {
		limit = -1 // SQLite: a negative LIMIT means none.
	}
	var cursor any = ""
	args := instanceArgs(id)
	low := args[0]
	if after != "" {
		cursor = dbID(after)
		// A cursor inside the instance's own range starts the range scan
		// there; one before it (a text id, a smaller UUID) changes nothing;
		// one after it leaves the range empty.
		if cb, ok := idBytes(after); ok {
			if lb, ok := low.([]byte); ok && bytes.Compare(cb, lb) > 0 {
				low = cb
			}
		}
	}
	var out []store.WaitRow
	err := db.readWith(ctx, func(st *txStmts) error {
		var err error
		out, err = queryWaits(st, instanceWaitsPageSQL, low, args[1], args[2], cursor, limit)
		if err == nil && len(out) == 0 {
			return instanceExists(st, id)
		}
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("store: waits of instance %s after %q: %w", id, after, err)
	}
	return out, nil
}

// WaitCounts returns how many waits of each kind are open across all instances.
func (db *DB) WaitCounts(ctx context.Context) (map[string]int, error) {
	out := map[string]int{}
	err := db.readTx(ctx, func(tx *sql.Tx) error {
		rows, err := tx.QueryContext(ctx, `SELECT kind, count(*) FROM waits GROUP BY kind`)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var kind string
			var n int
			if err := rows.Scan(&kind, &n); err != nil {
				return err
			}
			out[kind] = n
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("store: count waits: %w", err)
	}
	return out, nil
}

// waitsPageSQL is the statement of WaitsPage for f's shape (which
// conditions are set), with its arguments. Jobs and named message waits
// name their kind as a literal and the index that keeps their creation
// order (0020_waits_pages), so a page reads the waits of that kind and
// name in order and never sorts; other shapes (no caller pages them)
// bind the kind and read every wait.
func waitsPageSQL(f store.WaitPageFilter, limit int) (string, []any) {
	var b strings.Builder
	var args []any
	b.WriteString(`SELECT ` + waitColumns + ` FROM waits`)
	switch {
	case f.Kind == store.WaitJob && f.Name != "":
		b.WriteString(` INDEXED BY waits_jobs_age WHERE kind = 'job' AND name = ?`)
		args = append(args, f.Name)
	case f.Kind == store.WaitJob:
		b.WriteString(` INDEXED BY waits_jobs_created WHERE kind = 'job'`)
	case f.Kind == store.WaitMessage && f.Name != "":
		b.WriteString(` INDEXED BY waits_messages_age WHERE kind = 'message' AND name = ?`)
		args = append(args, f.Name)
	default:
		b.WriteString(` WHERE kind = ?`)
		args = append(args, f.Kind)
		if f.Name != "" {
			b.WriteString(` AND name = ?`)
			args = append(args, f.Name)
		}
	}
	if f.ProcessKey != "" {
		b.WriteString(` AND process_key = ?`)
		args = append(args, f.ProcessKey)
	}
	if !f.ActivatableAt.IsZero() {
		now := encodeTime(f.ActivatableAt)
		b.WriteString(` AND retries > 0 AND (due_at IS NULL OR due_at <= ?) AND (lock_expires_at IS NULL OR lock_expires_at <= ?)`)
		args = append(args, now, now)
	}
	if f.After.ID != "" {
		b.WriteString(` AND (created_at, id) > (?, ?)`)
		args = append(args, encodeTime(f.After.CreatedAt), dbID(f.After.ID))
	}
	b.WriteString(` ORDER BY created_at, id LIMIT ?`)
	return b.String(), append(args, limit)
}

// waitsPageShapes are the statements of every indexed WaitsPage shape:
// jobs with and without a type, named message waits, each with and
// without a process key, the activatable condition (jobs) and a cursor.
func waitsPageShapes() []string {
	var out []string
	at, after := time.Unix(1, 0), store.WaitCursor{ID: "x"}
	for _, base := range []store.WaitPageFilter{{Kind: store.WaitJob, Name: "x"}, {Kind: store.WaitJob}, {Kind: store.WaitMessage, Name: "x"}} {
		for shape := range 8 {
			f := base
			if shape&1 != 0 {
				f.ProcessKey = "x"
			}
			if shape&2 != 0 {
				if f.Kind != store.WaitJob {
					continue
				}
				f.ActivatableAt = at
			}
			if shape&4 != 0 {
				f.After = after
			}
			query, _ := waitsPageSQL(f, 1)
			out = append(out, query)
		}
	}
	return out
}

// WaitsPage returns at most f.Limit (<= 0 or above store.MaxWaitsPage:
// store.MaxWaitsPage) open waits of f.Kind matching f, oldest first,
// after the cursor f.After.
func (db *DB) WaitsPage(ctx context.Context, f store.WaitPageFilter) ([]store.WaitRow, error) {
	limit := f.Limit
	if limit <= 0 || limit > store.MaxWaitsPage {
		limit = store.MaxWaitsPage
	}
	query, args := waitsPageSQL(f, limit)
	out, err := queryWaits(db.readOne(ctx), query, args...)
	if err != nil {
		return nil, fmt.Errorf("store: page of %s waits %q: %w", f.Kind, f.Name, err)
	}
	return out, nil
}
