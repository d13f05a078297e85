package postgres

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/gobpm/gobpm/internal/store"
	"github.com/gobpm/gobpm/internal/store/sqlcodec"
	"github.com/gobpm/gobpm/internal/store/sqlquery"
)

// waitColumns selects a WaitRow (scanWait).
const waitColumns = `id, instance_id, kind, node_id, scope_id, track_id, process_key, process_version,
	name, correlation_key, due_at, retries, error_message, assignee, candidate_users::text, candidate_groups::text,
	created_at, lock_owner, lock_expires_at, lock_user, lock_token, trace_context`

const (
	insertWaitSQL = `INSERT INTO waits (id, instance_id, kind, node_id, scope_id, track_id, process_key,
		    process_version, name, correlation_key, due_at, retries, error_message, assignee,
		    candidate_users, candidate_groups, created_at, trace_context)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15::jsonb, $16::jsonb, $17, $18)`
	// upsertWaitSQL replaces a wait of the same instance (dropping a job's
	// lock and a node's claim of a timer: a re-armed timer is anybody's)
	// and leaves one of another instance alone: zero rows affected.
	upsertWaitSQL = insertWaitSQL + `
		ON CONFLICT (id) DO UPDATE SET kind = excluded.kind, node_id = excluded.node_id,
		    scope_id = excluded.scope_id, track_id = excluded.track_id, process_key = excluded.process_key,
		    process_version = excluded.process_version, name = excluded.name,
		    correlation_key = excluded.correlation_key, due_at = excluded.due_at, retries = excluded.retries,
		    error_message = excluded.error_message, assignee = excluded.assignee,
		    candidate_users = excluded.candidate_users, candidate_groups = excluded.candidate_groups,
		    created_at = excluded.created_at, lock_owner = NULL, lock_expires_at = NULL,
		    lock_user = NULL, lock_token = NULL, claimed_by = '',
		    trace_context = COALESCE(NULLIF(excluded.trace_context, ''), waits.trace_context)
		WHERE waits.instance_id = excluded.instance_id`
	deleteWaitSQL          = `DELETE FROM waits WHERE id = $1`
	deleteInstanceWaitsSQL = `DELETE FROM waits WHERE instance_id = $1`
	// activateJobsSQL picks the oldest activatable jobs of a type, skipping
	// rows another transaction holds (a concurrent activation or a step
	// acting on the job): two activations, from this node or another,
	// never pick the same job. The i-th picked job gets the i-th hash.
	// Arguments: type, now, max, owner, user, until, hashes.
	activateJobsSQL = `WITH picked AS (
		    SELECT id AS picked_id, row_number() OVER (ORDER BY created_at, id) AS n FROM (
		        SELECT id, created_at FROM waits
		        WHERE kind = 'job' AND name = $1 AND retries > 0
		          AND (due_at IS NULL OR due_at <= $2)
		          AND (lock_expires_at IS NULL OR lock_expires_at <= $2)
		        ORDER BY created_at, id LIMIT $3
		        FOR UPDATE SKIP LOCKED) c)
		UPDATE waits SET lock_owner = $4, lock_user = $5, lock_expires_at = $6, lock_token = ($7::bytea[])[picked.n]
		FROM picked WHERE waits.id = picked.picked_id
		RETURNING ` + waitColumns
	nextJobSQL = `SELECT MIN(GREATEST(COALESCE(due_at, 0), COALESCE(lock_expires_at, 0))) FROM waits
		WHERE kind = 'job' AND name = $1 AND retries > 0
		  AND GREATEST(COALESCE(due_at, 0), COALESCE(lock_expires_at, 0)) > $2`
	extendLockSQL = `UPDATE waits SET lock_expires_at = $1
		WHERE id = $2 AND kind = 'job' AND lock_token = $3 AND lock_expires_at > $4`
	// lockGuardSQL locks the job's row for the rest of the step's
	// transaction: no activation can take it between the check and the
	// commit.
	lockGuardSQL  = `SELECT lock_user FROM waits WHERE id = $1 AND kind = 'job' AND lock_token = $2 FOR UPDATE`
	jobExistsSQL  = `SELECT 1 FROM waits WHERE id = $1 AND kind = 'job'`
	waitExistsSQL = `SELECT 1 FROM waits WHERE id = $1`
	waitSQL       = `SELECT ` + waitColumns + ` FROM waits WHERE id = $1`
	dueTimersSQL  = `SELECT ` + waitColumns + ` FROM waits
		WHERE kind IN ('timer', 'start-timer') AND due_at <= $1
		ORDER BY due_at, id LIMIT $2`
	nextTimerSQL = `SELECT due_at FROM waits
		WHERE kind IN ('timer', 'start-timer') AND due_at IS NOT NULL
		ORDER BY due_at LIMIT 1`
	messageSubscriptionsSQL = `SELECT ` + waitColumns + ` FROM waits
		WHERE kind = 'message' AND name = $1 AND correlation_key = $2
		ORDER BY created_at, id LIMIT $3`
	signalSubscriptionsSQL = `SELECT instance_id FROM waits
		WHERE kind = 'signal' AND name = $1 AND instance_id <> ''
		GROUP BY instance_id ORDER BY MIN(created_at), instance_id`
	instanceWaitsSQL     = `SELECT ` + waitColumns + ` FROM waits WHERE instance_id = $1 ORDER BY created_at, id`
	instanceWaitsPageSQL = `SELECT ` + waitColumns + ` FROM waits WHERE instance_id = $1 AND id > $2 ORDER BY id LIMIT $3`
	startTimersSQL       = `SELECT ` + waitColumns + ` FROM waits
		WHERE instance_id = '' AND kind = 'start-timer' AND process_key = $1
		ORDER BY due_at, id`
	deleteStartTimersSQL = `DELETE FROM waits WHERE instance_id = '' AND kind = 'start-timer' AND process_key = $1`
)

// writeWait runs query (insertWaitSQL or upsertWaitSQL) for w owned by
// instance id ("" for a start timer).
func writeWait(ctx context.Context, tx pgx.Tx, query string, id store.InstanceID, w *store.WaitRow) error {
	args, err := waitArgs(id, w)
	if err != nil {
		return err
	}
	tag, err := tx.Exec(ctx, query, args...)
	if err != nil {
		return fmt.Errorf("write wait %s: %w", w.ID, err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("wait %s belongs to another instance: %w", w.ID, store.ErrConflict)
	}
	return nil
}

// waitArgs are the arguments of insertWaitSQL and upsertWaitSQL for w
// owned by instance id ("" for a start timer).
func waitArgs(id store.InstanceID, w *store.WaitRow) ([]any, error) {
	if w.ID == "" || w.Kind == "" {
		return nil, fmt.Errorf("wait %q of kind %q: id and kind are required", w.ID, w.Kind)
	}
	users, err := sqlcodec.EncodeList(w.CandidateUsers)
	if err != nil {
		return nil, fmt.Errorf("wait %s: %w", w.ID, err)
	}
	groups, err := sqlcodec.EncodeList(w.CandidateGroups)
	if err != nil {
		return nil, fmt.Errorf("wait %s: %w", w.ID, err)
	}
	return []any{w.ID, string(id), w.Kind, w.NodeID, w.ScopeID, w.TrackID, w.ProcessKey, w.ProcessVersion, w.Name,
		w.CorrelationKey, sqlcodec.EncodeOptTime(w.DueAt), w.Retries, w.ErrorMessage, w.Assignee, users, groups,
		encodeTime(w.CreatedAt), w.TraceContext}, nil
}

// scanWait reads the waitColumns of a row.
func scanWait(row pgx.Row) (store.WaitRow, error) {
	var (
		w                   store.WaitRow
		inst                string
		due, lockExpires    sql.NullInt64
		created             int64
		users, groups       sql.NullString
		lockOwner, lockUser sql.NullString
		errUsers, errGroups error
	)
	if err := row.Scan(&w.ID, &inst, &w.Kind, &w.NodeID, &w.ScopeID, &w.TrackID, &w.ProcessKey,
		&w.ProcessVersion, &w.Name, &w.CorrelationKey, &due, &w.Retries, &w.ErrorMessage, &w.Assignee,
		&users, &groups, &created, &lockOwner, &lockExpires, &lockUser, &w.LockTokenHash, &w.TraceContext); err != nil {
		return w, err
	}
	w.InstanceID = store.InstanceID(inst)
	w.DueAt = sqlcodec.DecodeOptTime(due)
	w.CreatedAt = decodeTime(created)
	w.LockOwner, w.LockUser = lockOwner.String, lockUser.String
	w.LockExpiresAt = sqlcodec.DecodeOptTime(lockExpires)
	w.CandidateUsers, errUsers = sqlcodec.DecodeList(users)
	w.CandidateGroups, errGroups = sqlcodec.DecodeList(groups)
	if errUsers != nil || errGroups != nil {
		return w, fmt.Errorf("wait %s: candidates: %w", w.ID, errors.Join(errUsers, errGroups))
	}
	return w, nil
}

// queryWaits runs a waitColumns query and reads every row.
func queryWaits(ctx context.Context, q querier, query string, args ...any) ([]store.WaitRow, error) {
	return queryRows(ctx, q, scanWait, query, args...)
}

// Wait returns one wait row by id; a wrapped store.ErrNotFound if absent.
func (db *DB) Wait(ctx context.Context, id string) (store.WaitRow, error) {
	w, err := scanWait(db.pool.QueryRow(ctx, waitSQL, id))
	if err != nil {
		return store.WaitRow{}, fmt.Errorf("postgres store: wait %s: %w", id, notFound(err))
	}
	return w, nil
}

// ActivateJobs locks up to len(lock.TokenHashes) activatable jobs of a
// type, oldest first, in one statement (FOR UPDATE SKIP LOCKED: a job is
// never handed to two workers under a live lock, whichever node they
// asked) and returns them in that order: the i-th holds the i-th hash.
func (db *DB) ActivateJobs(ctx context.Context, jobType string, now time.Time, lock store.JobLock) ([]store.WaitRow, error) {
	if len(lock.TokenHashes) == 0 {
		return nil, nil
	}
	index, err := sqlcodec.TokenHashIndex(lock.TokenHashes)
	if err != nil {
		return nil, fmt.Errorf("postgres store: activate jobs of type %q: %w", jobType, err)
	}
	var out []store.WaitRow
	err = db.writeTx(ctx, func(tx pgx.Tx) error {
		var err error
		out, err = queryWaits(ctx, tx, activateJobsSQL, jobType, encodeTime(now), len(lock.TokenHashes),
			lock.Worker, lock.User, encodeTime(lock.Until), lock.TokenHashes)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("postgres store: activate jobs of type %q: %w", jobType, err)
	}
	// RETURNING yields rows in no defined order; each row's hash tells its
	// place in the picking order.
	slices.SortFunc(out, func(a, b store.WaitRow) int {
		return index[string(a.LockTokenHash)] - index[string(b.LockTokenHash)]
	})
	return out, nil
}

// NextJobAvailable returns the earliest time after now at which a job of
// the type becomes activatable (retry backoff or lock expiry), if any.
func (db *DB) NextJobAvailable(ctx context.Context, jobType string, now time.Time) (time.Time, bool, error) {
	var next sql.NullInt64
	if err := db.pool.QueryRow(ctx, nextJobSQL, jobType, encodeTime(now)).Scan(&next); err != nil {
		return time.Time{}, false, fmt.Errorf("postgres store: next job of type %q: %w", jobType, err)
	}
	return sqlcodec.DecodeOptTime(next), next.Valid, nil
}

// ExtendJobLock moves the lock of a job to until, provided it still holds
// the token whose hash is tokenHash and has not expired at now. It returns
// a wrapped store.ErrNotFound for an unknown job and a wrapped
// store.ErrConflict for a lost or expired lock.
func (db *DB) ExtendJobLock(ctx context.Context, key string, tokenHash []byte, now, until time.Time) error {
	err := db.writeTx(ctx, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, extendLockSQL, encodeTime(until), key, tokenHash, encodeTime(now))
		if err != nil {
			return err
		}
		if tag.RowsAffected() > 0 {
			return nil
		}
		var one int
		if err := tx.QueryRow(ctx, jobExistsSQL, key).Scan(&one); err != nil {
			return notFound(err)
		}
		return fmt.Errorf("job is not locked with this token or its lock has expired: %w", store.ErrConflict)
	})
	if err != nil {
		return fmt.Errorf("postgres store: extend lock of job %s: %w", key, err)
	}
	return nil
}

// tasksWhere is the condition of Tasks, with its arguments in a.
func tasksWhere(f store.TaskFilter, a *args) string {
	where := []string{"kind = 'task'"}
	if f.Assignee != "" {
		where = append(where, "assignee = "+a.add(f.Assignee))
	}
	if f.CandidateUser != "" {
		where = append(where, "candidate_users @> jsonb_build_array("+a.add(f.CandidateUser)+"::text)")
	}
	if f.CandidateGroup != "" {
		where = append(where, "candidate_groups @> jsonb_build_array("+a.add(f.CandidateGroup)+"::text)")
	}
	if f.InstanceID != "" {
		where = append(where, "instance_id = "+a.add(string(f.InstanceID)))
	}
	if f.OfferedTo != nil {
		where = append(where, offeredTo(*f.OfferedTo, a))
	}
	if f.ProcessKey != "" {
		where = append(where, "process_key = "+a.add(f.ProcessKey))
	}
	if f.Unassigned {
		where = append(where, "assignee = ''")
	}
	if len(f.CandidateGroupsAny) > 0 {
		where = append(where, "jsonb_exists_any(candidate_groups, "+a.add(f.CandidateGroupsAny)+"::text[])")
	}
	if !f.DueBefore.IsZero() {
		where = append(where, "due_at IS NOT NULL AND due_at < "+a.add(encodeTime(f.DueBefore)))
	}
	if !f.CreatedAfter.IsZero() {
		where = append(where, "created_at >= "+a.add(encodeTime(f.CreatedAfter)))
	}
	if !f.CreatedBefore.IsZero() {
		where = append(where, "created_at < "+a.add(encodeTime(f.CreatedBefore)))
	}
	for _, v := range f.Variables {
		where = append(where, taskVariableCond(v, a))
	}
	return " WHERE " + strings.Join(where, " AND ")
}

// offeredTo is the condition "the task is offered to a": assigned to
// them, or unassigned with no candidates, them among the candidate users
// or one of their groups among the candidate groups.
func offeredTo(actor store.Actor, a *args) string {
	user := a.add(actor.User)
	cond := "(assignee = " + user + " OR (assignee = '' AND (" +
		"(COALESCE(jsonb_array_length(candidate_users), 0) = 0 AND COALESCE(jsonb_array_length(candidate_groups), 0) = 0)" +
		" OR candidate_users @> jsonb_build_array(" + user + "::text)"
	if len(actor.Groups) > 0 {
		cond += " OR jsonb_exists_any(candidate_groups, " + a.add(actor.Groups) + "::text[])"
	}
	return cond + ")))"
}

// Tasks lists user-task waits matching f in f.Order, and the total
// number of matches. Limit 0 means sqlquery.DefaultListLimit; larger than
// sqlquery.MaxListLimit is capped.
func (db *DB) Tasks(ctx context.Context, f store.TaskFilter) ([]store.WaitRow, int, error) {
	if err := sqlquery.CheckVariableFilters(f.Variables); err != nil {
		return nil, 0, fmt.Errorf("postgres store: tasks: %w", err)
	}
	var a args
	cond := tasksWhere(f, &a)
	var (
		rows  []store.WaitRow
		total int
	)
	err := db.readTx(ctx, func(tx pgx.Tx) error {
		if err := tx.QueryRow(ctx, `SELECT COUNT(*) FROM waits`+cond, a...).Scan(&total); err != nil {
			return err
		}
		page := a
		query := `SELECT ` + waitColumns + ` FROM waits` + cond + ` ORDER BY ` + sqlquery.TaskOrderBy(f.Order) + ` LIMIT ` +
			page.add(sqlquery.ListLimit(f.Limit)) + ` OFFSET ` + page.add(max(f.Offset, 0))
		var err error
		rows, err = queryWaits(ctx, tx, query, page...)
		return err
	})
	if err != nil {
		return nil, 0, fmt.Errorf("postgres store: tasks: %w", err)
	}
	return rows, total, nil
}

// DueTimers returns timer and start-timer waits due at or before now,
// earliest first, at most limit (0: all).
func (db *DB) DueTimers(ctx context.Context, now time.Time, limit int) ([]store.WaitRow, error) {
	out, err := queryWaits(ctx, db.pool, dueTimersSQL, encodeTime(now), limitArg(limit))
	if err != nil {
		return nil, fmt.Errorf("postgres store: due timers: %w", err)
	}
	return out, nil
}

// NextTimer returns the earliest due time of any timer or start-timer wait.
func (db *DB) NextTimer(ctx context.Context) (time.Time, bool, error) {
	var next sql.NullInt64
	err := db.pool.QueryRow(ctx, nextTimerSQL).Scan(&next)
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return time.Time{}, false, fmt.Errorf("postgres store: next timer: %w", err)
	}
	return sqlcodec.DecodeOptTime(next), next.Valid, nil
}

// MessageSubscriptions returns message waits with this name and
// correlation key, oldest first, at most limit (0: all).
func (db *DB) MessageSubscriptions(ctx context.Context, name, correlationKey string, limit int) ([]store.WaitRow, error) {
	out, err := queryWaits(ctx, db.pool, messageSubscriptionsSQL, name, correlationKey, limitArg(limit))
	if err != nil {
		return nil, fmt.Errorf("postgres store: subscriptions of message %q: %w", name, err)
	}
	return out, nil
}

// SignalSubscriptions returns the instances having a signal wait with
// this name, each once, in the order of their oldest such wait.
func (db *DB) SignalSubscriptions(ctx context.Context, name string) ([]store.InstanceID, error) {
	out, err := queryRows(ctx, db.pool, func(row pgx.Row) (store.InstanceID, error) {
		var id string
		err := row.Scan(&id)
		return store.InstanceID(id), err
	}, signalSubscriptionsSQL, name)
	if err != nil {
		return nil, fmt.Errorf("postgres store: subscriptions of signal %q: %w", name, err)
	}
	return out, nil
}

// StartTimers returns the start-timer waits of a process key, by due time.
func (db *DB) StartTimers(ctx context.Context, processKey string) ([]store.WaitRow, error) {
	out, err := queryWaits(ctx, db.pool, startTimersSQL, processKey)
	if err != nil {
		return nil, fmt.Errorf("postgres store: start timers of %q: %w", processKey, err)
	}
	return out, nil
}

// ReplaceStartTimers deletes the start-timer waits of processKey and
// inserts rows (start timers of that key, without instance) in one
// transaction. A row whose id exists is a wrapped store.ErrConflict.
func (db *DB) ReplaceStartTimers(ctx context.Context, processKey string, rows []store.WaitRow) error {
	err := db.writeTx(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, deleteStartTimersSQL, processKey); err != nil {
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
			err := tx.QueryRow(ctx, waitExistsSQL, w.ID).Scan(&one)
			if err == nil {
				return fmt.Errorf("wait %s exists: %w", w.ID, store.ErrConflict)
			} else if !errors.Is(err, pgx.ErrNoRows) {
				return err
			}
			if err := writeWait(ctx, tx, insertWaitSQL, "", &w); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("postgres store: replace start timers of %q: %w", processKey, err)
	}
	return nil
}

// InstanceWaits returns the open waits of an instance, oldest first; a
// wrapped store.ErrNotFound for an unknown instance.
func (db *DB) InstanceWaits(ctx context.Context, id store.InstanceID) ([]store.WaitRow, error) {
	var out []store.WaitRow
	err := db.readTx(ctx, func(tx pgx.Tx) error {
		var err error
		out, err = queryWaits(ctx, tx, instanceWaitsSQL, string(id))
		if err == nil && len(out) == 0 {
			return instanceExists(ctx, tx, id)
		}
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("postgres store: waits of instance %s: %w", id, err)
	}
	return out, nil
}

// InstanceWaitsPage returns at most limit (0: all) open waits of an
// instance whose id follows after ("" from the first), by id; a wrapped
// store.ErrNotFound for an unknown instance.
func (db *DB) InstanceWaitsPage(ctx context.Context, id store.InstanceID, after string, limit int) ([]store.WaitRow, error) {
	var out []store.WaitRow
	err := db.readTx(ctx, func(tx pgx.Tx) error {
		var err error
		out, err = queryWaits(ctx, tx, instanceWaitsPageSQL, string(id), after, limitArg(limit))
		if err == nil && len(out) == 0 {
			return instanceExists(ctx, tx, id)
		}
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("postgres store: waits of instance %s after %q: %w", id, after, err)
	}
	return out, nil
}

// WaitCounts returns how many waits of each kind are open.
func (db *DB) WaitCounts(ctx context.Context) (map[string]int, error) {
	out := map[string]int{}
	rs, err := db.pool.Query(ctx, `SELECT kind, count(*) FROM waits GROUP BY kind`)
	if err == nil {
		defer rs.Close()
		for rs.Next() {
			var (
				kind string
				n    int
			)
			if err = rs.Scan(&kind, &n); err != nil {
				break
			}
			out[kind] = n
		}
		if err == nil {
			err = rs.Err()
		}
	}
	if err != nil {
		return nil, fmt.Errorf("postgres store: count waits: %w", err)
	}
	return out, nil
}

// waitsPageSQL is the statement of WaitsPage for f's shape (which
// conditions are set), with its arguments, as the SQLite store's: jobs and
// message waits name their kind as a literal, so the partial indexes that
// keep their creation order (waits_jobs, 0013_waits_pages) apply; other
// kinds bind it.
func waitsPageSQL(f store.WaitPageFilter, limit int) (string, []any) {
	var b strings.Builder
	var args []any
	arg := func(v any) string {
		args = append(args, v)
		return "$" + strconv.Itoa(len(args))
	}
	b.WriteString(`SELECT ` + waitColumns + ` FROM waits WHERE `)
	switch f.Kind {
	case store.WaitJob:
		b.WriteString(`kind = 'job'`)
	case store.WaitMessage:
		b.WriteString(`kind = 'message'`)
	default:
		b.WriteString(`kind = ` + arg(f.Kind))
	}
	if f.Name != "" {
		b.WriteString(` AND name = ` + arg(f.Name))
	}
	if f.ProcessKey != "" {
		b.WriteString(` AND process_key = ` + arg(f.ProcessKey))
	}
	if !f.ActivatableAt.IsZero() {
		now := arg(encodeTime(f.ActivatableAt))
		b.WriteString(` AND retries > 0 AND (due_at IS NULL OR due_at <= ` + now + `) AND (lock_expires_at IS NULL OR lock_expires_at <= ` + now + `)`)
	}
	if f.After.ID != "" {
		b.WriteString(` AND (created_at, id) > (` + arg(encodeTime(f.After.CreatedAt)) + `, ` + arg(f.After.ID) + `)`)
	}
	b.WriteString(` ORDER BY created_at, id LIMIT ` + arg(limit))
	return b.String(), args
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
	out, err := queryWaits(ctx, db.pool, query, args...)
	if err != nil {
		return nil, fmt.Errorf("postgres store: page of %s waits %q: %w", f.Kind, f.Name, err)
	}
	return out, nil
}
