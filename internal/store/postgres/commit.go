package postgres

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/gobpm/gobpm/internal/store"
	"github.com/gobpm/gobpm/internal/store/sqlcodec"
	"github.com/gobpm/gobpm/internal/store/sqlquery"
)

// A group commit is two round trips to the server for up to
// maxBatchStatements statements: the transaction's BEGIN and every
// statement of every step go in one pipelined batch (pgx.Batch), then
// COMMIT; a larger commit sends its statements as several such batches in
// one transaction. The statements of a step find
// their instance by id (seqOf) rather than by the seq its insert returns,
// so none waits for another's answer. Each statement's answer is checked
// as it is read (a stale revision, a lock lost, a row of another
// instance); the first failure rolls the whole batch back, and the
// statements queued after it, which the server ran all the same, go with
// it. So a collision with another node is an answer, never an error of
// the server: a stale step's revision check (updateInstanceSQL) matches no
// row, and the statements after it that could meet the winner's rows
// insert nothing (facts: ON CONFLICT DO NOTHING, the count checked) or
// upsert, so the transaction is not aborted, PostgreSQL logs no ERROR,
// and the commit says store.ErrStale (whyNotUpdated).

// seqOf is the seq of the instance whose id is the statement's first
// argument.
const seqOf = `(SELECT seq FROM instances WHERE id = $1)`

// The statements of a step, addressed by instance id.
const (
	stepUpsertPartSQL = `INSERT INTO instance_parts (instance_seq, kind, key, ord, data) VALUES (` + seqOf + `, $2, $3, $4, $5)
		ON CONFLICT (instance_seq, kind, key) DO UPDATE SET ord = excluded.ord, data = excluded.data`
	stepDeletePartSQL = `DELETE FROM instance_parts WHERE instance_seq = ` + seqOf + ` AND kind = $2 AND key = $3`
	// stepDeletePartsSQL deletes many parts of an instance in one
	// statement: the pairs of the kinds ($2) and keys ($3) arrays, each
	// found in the primary key. Arguments: instance id, kinds, keys.
	stepDeletePartsSQL = `DELETE FROM instance_parts WHERE instance_seq = ` + seqOf + `
		AND (kind, key) IN (SELECT k COLLATE "C", c COLLATE "C" FROM unnest($2::text[], $3::text[]) AS r (k, c))`
	// claimedStartTimerSQL locks a timer start schedule the node claims.
	claimedStartTimerSQL = `SELECT 1 FROM waits WHERE id = $1 AND kind = 'start-timer' AND claimed_by = $2 FOR UPDATE`
	// stepInsertFactSQL inserts nothing when the fact's seq is written
	// already: a stale step's (another node committed the instance's next
	// step first), which its failed revision check rolls back. A unique
	// violation would abort the transaction and log an ERROR instead.
	stepInsertFactSQL = `INSERT INTO facts (instance_seq, seq, at, kind, node_id, scope_path, detail)
		VALUES (` + seqOf + `, $2, $3, $4, $5, $6, $7) ON CONFLICT (instance_seq, seq) DO NOTHING`
)

// errNotUpdated marks an instance update that matched no row; CommitSteps
// then says why (whyNotUpdated).
var errNotUpdated = errors.New("instance not updated")

// maxBatchStatements is how many statements one pipelined batch of a
// group commit holds. pgx encodes a whole batch before sending it, so a
// commit that writes much (a step that launched a thousand called
// children) goes as several batches in one transaction, and the memory it
// holds is that of one batch, not of the whole commit.
const maxBatchStatements = 2000

// stepBatch is the pipelined batch of a group commit: one pgx.Batch, or
// several sent in turn in one transaction when the commit has more than
// maxBatchStatements statements.
type stepBatch struct {
	bs []*pgx.Batch
	// failed is the step whose statement failed first (-1: none).
	failed int
	// stats are the steps' changes to the shared statistics rows, sent
	// last (sharedStatsBatches).
	stats store.StatsBatch
}

// queue adds a statement to the last batch, starting a new one when it is
// full. The first batch begins the transaction.
func (sb *stepBatch) queue(query string, args ...any) *pgx.QueuedQuery {
	if len(sb.bs) == 0 {
		first := &pgx.Batch{}
		first.BeginTx(pgx.TxOptions{})
		sb.bs = append(sb.bs, first)
	} else if sb.bs[len(sb.bs)-1].Len() >= maxBatchStatements {
		sb.bs = append(sb.bs, &pgx.Batch{})
	}
	return sb.bs[len(sb.bs)-1].Queue(query, args...)
}

// exec adds a statement of step i whose command tag check checks (nil:
// any success).
func (sb *stepBatch) exec(i int, check func(pgconn.CommandTag) error, query string, args ...any) {
	sb.queue(query, args...).Fn = func(br pgx.BatchResults) error {
		ct, err := br.Exec()
		if err == nil && check != nil {
			err = check(ct)
		}
		return sb.fail(i, err)
	}
}

// queryRow adds a statement of step i whose one row scan reads.
func (sb *stepBatch) queryRow(i int, scan func(pgx.Row) error, query string, args ...any) {
	sb.queue(query, args...).QueryRow(func(row pgx.Row) error { return sb.fail(i, scan(row)) })
}

// fail records step i as the failed one when err is its first failure.
func (sb *stepBatch) fail(i int, err error) error {
	if err != nil && sb.failed < 0 {
		sb.failed = i
	}
	return err
}

// CommitSteps commits a batch of steps of distinct instances in one
// transaction, all or nothing (group commit: one WAL flush for the
// batch). A step with PrevRevision 0 creates its instance; any other
// updates the instance only if its stored revision is still PrevRevision.
// An existing id on create or a stale revision on update fails the whole
// batch with a wrapped store.ErrConflict naming the instance (a stale
// revision and a deadlock with another writer are store.ErrStale too:
// the step may be re-run); a LockGuard whose job no longer holds the
// token fails it with store.ErrLockLost. The rest follows the SQLite
// store: removed parts and waits go first, then the written ones are
// upserted; a wait or incident id of another instance is a conflict; a
// step that ends its instance deletes its remaining waits.
func (db *DB) CommitSteps(ctx context.Context, steps []store.StepRecord) error {
	if len(steps) == 0 {
		return nil
	}
	sb := &stepBatch{failed: -1}
	later := queueNumbers(sb, steps)
	queueInstanceLocks(sb, steps)
	for i := range steps {
		if err := queueStep(sb, i, db.node, &steps[i], later[i]); err != nil {
			return fmt.Errorf("postgres store: commit step of instance %s: %w", steps[i].Instance.ID, err)
		}
	}
	err := db.runStepBatch(ctx, sb, steps)
	if err == nil {
		db.wake.add(steps) // the other nodes hear of it once it is durable
		return nil
	}
	if isContention(err) {
		// Another writer of the same rows won (a deadlock or a
		// serialization failure): the batch is rolled back whole and may
		// be retried, as after a stale revision.
		err = fmt.Errorf("%w: %w: %w", store.ErrStale, store.ErrConflict, err)
	}
	if sb.failed >= 0 {
		return fmt.Errorf("postgres store: commit step of instance %s: %w", steps[sb.failed].Instance.ID, err)
	}
	return fmt.Errorf("postgres store: commit %d steps: %w", len(steps), err)
}

// runStepBatch sends the batch on a connection of its own, checks every
// answer and commits, or rolls back on the first failure. The first batch
// carries the transaction's BEGIN (a commit of one batch is two round
// trips in all); the others follow in the same transaction, each once the
// one before answered.
func (db *DB) runStepBatch(ctx context.Context, sb *stepBatch, steps []store.StepRecord) error {
	conn, err := db.pool.Acquire(ctx)
	if err != nil {
		return err
	}
	defer conn.Release()
	br := conn.SendBatch(ctx, sb.bs[0])
	tx := br.Tx()
	if tx == nil { // the batch failed before BEGIN ran
		return br.Close()
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	if err := sb.checked(ctx, tx, steps, br.Close()); err != nil {
		return err
	}
	for _, b := range sb.bs[1:] {
		if err := sb.checked(ctx, tx, steps, tx.SendBatch(ctx, b).Close()); err != nil {
			return err
		}
	}
	for _, b := range sb.sharedStatsBatches() {
		if err := tx.SendBatch(ctx, b).Close(); err != nil {
			return fmt.Errorf("statistics rollups: %w", err)
		}
	}
	return tx.Commit(ctx)
}

// checked turns the error of a sent batch into the commit's: an instance
// update that matched no row says why (whyNotUpdated).
func (sb *stepBatch) checked(ctx context.Context, tx pgx.Tx, steps []store.StepRecord, err error) error {
	if errors.Is(err, errNotUpdated) {
		s := &steps[sb.failed]
		return whyNotUpdated(ctx, tx, s.Instance.ID, s.PrevRevision)
	}
	return err
}

// queueNumbers queues one counter raise per process key the steps create
// instances of, in key order (so two batches lock the counters in the same
// order and cannot deadlock on them), and returns for each creating step
// how many instances of its key the batch numbers after it
// (sqlquery.NumberOrder): its number is
// the raised counter less that (insertInstanceSQL).
func queueNumbers(sb *stepBatch, steps []store.StepRecord) []int64 {
	later := make([]int64, len(steps))
	count := map[string]int64{}
	order := sqlquery.NumberOrder(steps)
	for j := len(order) - 1; j >= 0; j-- {
		i := order[j]
		k := steps[i].Instance.ProcessKey
		later[i] = count[k]
		count[k]++
	}
	keys := slices.Sorted(maps.Keys(count))
	for _, k := range keys {
		sb.exec(-1, nil, bumpNumberSQL, k, count[k])
	}
	return later
}

// lockInstancesSQL locks the rows of the instances a batch steps, in id
// order (the column's collation is "C": the same order on every node).
const lockInstancesSQL = `SELECT 1 FROM instances WHERE id = ANY($1) ORDER BY id FOR UPDATE`

// queueInstanceLocks locks, before any step's statement, the rows of the
// existing instances the batch steps, all at once and in one global order.
// Two nodes' batches that both step instances X and Y would otherwise lock
// them in the orders their steps come in — X then Y against Y then X — and
// deadlock, which PostgreSQL breaks with an ERROR and an aborted
// transaction; in one order the later batch waits for the earlier one and
// then finds its steps stale, an answer. One instance alone cannot
// deadlock, so a batch of one needs no extra statement.
func queueInstanceLocks(sb *stepBatch, steps []store.StepRecord) {
	ids := make([]string, 0, len(steps))
	for i := range steps {
		if steps[i].PrevRevision > 0 {
			ids = append(ids, string(steps[i].Instance.ID))
		}
	}
	slices.Sort(ids)
	if ids = slices.Compact(ids); len(ids) < 2 {
		return
	}
	sb.exec(-1, nil, lockInstancesSQL, ids)
}

// queueStep checks step s (the i-th) and queues its statements; later is
// how many instances of its key the batch creates after it (queueNumbers).
func queueStep(sb *stepBatch, i int, node string, s *store.StepRecord, later int64) error {
	in := &s.Instance
	id := string(in.ID)
	if id == "" {
		return fmt.Errorf("instance id is empty")
	}
	if in.Revision <= s.PrevRevision {
		return fmt.Errorf("new revision %d does not follow %d", in.Revision, s.PrevRevision)
	}
	header := s.Header
	if header == nil {
		header = []byte{}
	}
	if g := s.LockGuard; g != nil {
		// Locks the job's row for the rest of the transaction: no
		// activation can take it between the check and the commit.
		sb.queryRow(i, func(row pgx.Row) error {
			var user *string
			err := row.Scan(&user)
			if err == nil && g.CheckUser {
				locker := "" // NULL: a lock taken without authentication
				if user != nil {
					locker = *user
				}
				if locker != g.User {
					err = pgx.ErrNoRows
				}
			}
			if errors.Is(err, pgx.ErrNoRows) {
				return fmt.Errorf("job %s: %w", g.WaitID, store.ErrLockLost)
			}
			return err
		}, lockGuardSQL, g.WaitID, g.TokenHash)
	}
	if timer := s.FiresStartTimer; timer != "" {
		// The schedule must still be this node's claim, locked until the
		// commit: a schedule another node took over starts nothing here.
		sb.queryRow(i, func(row pgx.Row) error {
			var one int
			err := row.Scan(&one)
			if errors.Is(err, pgx.ErrNoRows) {
				return fmt.Errorf("timer start %s fired, replaced or claimed by another node meanwhile: %w", timer, store.ErrConflict)
			}
			return err
		}, claimedStartTimerSQL, timer, node)
	}
	if s.PrevRevision == 0 {
		sb.queryRow(i, func(row pgx.Row) error {
			var seq int64
			err := row.Scan(&seq, &in.Number)
			if errors.Is(err, pgx.ErrNoRows) {
				return fmt.Errorf("instance exists: %w", store.ErrConflict)
			}
			return err
		}, insertInstanceSQL,
			id, in.ProcessKey, in.ProcessVersion, in.Status, in.BusinessKey, string(in.ParentID),
			in.ParentNodeID, encodeTime(in.CreatedAt), encodeTime(in.UpdatedAt), sqlcodec.EncodeOptTime(in.EndedAt),
			in.Revision, header, later, node)
		sb.exec(i, nil, insertKeySQL, int16(store.KeyInstance), id)
	} else {
		sb.queryRow(i, func(row pgx.Row) error {
			var seq int64
			err := row.Scan(&seq)
			if errors.Is(err, pgx.ErrNoRows) {
				return errNotUpdated
			}
			return err
		}, updateInstanceSQL,
			in.Status, in.BusinessKey, encodeTime(in.UpdatedAt), sqlcodec.EncodeOptTime(in.EndedAt),
			in.Revision, header, id, s.PrevRevision, in.ProcessVersion, node)
	}
	queueRemovedParts(sb, i, id, s.RemovedParts)
	for _, p := range s.Parts {
		if p.Kind == "" {
			return fmt.Errorf("part %q has no kind", p.Key)
		}
		data := p.Data
		if data == nil {
			data = []byte{}
		}
		sb.exec(i, nil, stepUpsertPartSQL, id, p.Kind, p.Key, p.Ord, data)
	}
	for _, f := range s.Facts {
		var detail []byte
		if len(f.Detail) > 0 {
			detail = f.Detail
		}
		sb.exec(i, func(ct pgconn.CommandTag) error {
			if ct.RowsAffected() == 0 {
				return fmt.Errorf("fact %d is written already: %w: %w", f.Seq, store.ErrStale, store.ErrConflict)
			}
			return nil
		}, stepInsertFactSQL, id, f.Seq, encodeTime(f.At), f.Kind, f.NodeID, f.ScopePath, detail)
	}
	for _, inc := range s.Incidents {
		if inc.InstanceID != "" && inc.InstanceID != in.ID {
			return fmt.Errorf("incident %s belongs to instance %s", inc.ID, inc.InstanceID)
		}
		sb.exec(i, func(ct pgconn.CommandTag) error {
			if ct.RowsAffected() == 0 {
				return fmt.Errorf("incident %s belongs to another instance: %w", inc.ID, store.ErrConflict)
			}
			return nil
		}, upsertIncidentSQL, inc.ID, id, inc.NodeID, inc.ScopeID, inc.Kind, inc.Message, encodeTime(inc.CreatedAt),
			sqlcodec.EncodeOptTime(inc.ResolvedAt))
		sb.exec(i, nil, insertKeySQL, int16(store.KeyIncident), inc.ID)
	}
	if err := queueWaits(sb, i, in, s.Waits, s.RemovedWaits); err != nil {
		return err
	}
	if d := s.JobErrorDetails; d != nil {
		// No row changed: the step ended the job, which keeps no details.
		sb.exec(i, nil, setErrorDetailsSQL, d.WaitID, errorDetailsArg(d.Details))
	}
	queueTokens(sb, i, in, s.Tokens, s.RemovedTokens)
	queueStats(sb, i, s)
	if err := queueVariables(sb, i, id, s.Parts, s.RemovedParts); err != nil {
		return err
	}
	queueCompletedTasks(sb, i, in, s.CompletedTasks)
	if row := s.Idempotency; row != nil {
		sb.exec(i, nil, sweepIdempotencySQL, encodeTime(row.ExpiredBefore))
		answer := string(row.Answer)
		if answer == "" {
			answer = "null"
		}
		sb.exec(i, func(ct pgconn.CommandTag) error {
			if ct.RowsAffected() == 0 {
				return fmt.Errorf("idempotency key %q is recorded already: %w", row.Key, store.ErrConflict)
			}
			return nil
		}, insertIdempotencySQL, row.Key, row.RequestHash[:], string(row.InstanceID), answer,
			encodeTime(row.CreatedAt), encodeTime(row.ExpiredBefore))
	}
	queueMessageBuffer(sb, i, s)
	for j := range s.Outbox {
		o := &s.Outbox[j]
		if o.InstanceID == "" {
			o.InstanceID = in.ID
		}
		if o.InstanceID != in.ID {
			return fmt.Errorf("outbox row of instance %s in a step of %s", o.InstanceID, in.ID)
		}
		if o.CreatedAt.IsZero() {
			o.CreatedAt = in.UpdatedAt
		}
		// Claimed by this node, which performs it right after the commit.
		sb.queryRow(i, func(row pgx.Row) error { return row.Scan(&o.ID) },
			insertOutboxSQL, string(o.InstanceID), o.Kind, string(o.Payload), encodeTime(o.CreatedAt), node)
	}
	return nil
}

// batchRemovalsFrom is how many removed parts or waits a step needs for
// their deletes to go as one statement with an array argument
// (stepDeletePartsSQL, deleteWaitsSQL) rather than one statement each: a
// cancelled 40,000-iteration multi-instance queues a few statements, not
// 200,000.
const batchRemovalsFrom = 16

// queueRemovedParts queues the removal of the parts removed of instance id.
func queueRemovedParts(sb *stepBatch, i int, id string, removed []store.PartRef) {
	if len(removed) < batchRemovalsFrom {
		for _, r := range removed {
			sb.exec(i, nil, stepDeletePartSQL, id, r.Kind, r.Key)
		}
		return
	}
	kinds, keys := make([]string, len(removed)), make([]string, len(removed))
	for j, r := range removed {
		kinds[j], keys[j] = r.Kind, r.Key
	}
	sb.exec(i, nil, stepDeletePartsSQL, id, kinds, keys)
}

// queueWaits queues the removal of the removed waits, then the upsert of
// the written ones of instance in; an ended instance loses its remaining
// waits.
func queueWaits(sb *stepBatch, i int, in *store.InstanceRow, waits []store.WaitRow, removed []string) error {
	if len(removed) < batchRemovalsFrom {
		for _, id := range removed {
			sb.exec(i, nil, deleteWaitSQL, id)
			sb.exec(i, nil, deleteWaitKeySQL, id)
		}
	} else {
		sb.exec(i, nil, deleteWaitsSQL, removed)
		sb.exec(i, nil, deleteWaitKeysSQL, removed)
	}
	for j := range waits {
		w := &waits[j]
		owner := in.ID
		if w.Kind == store.WaitStartTimer {
			owner = "" // a timer start's schedule re-armed by the step that fired it
		} else if w.InstanceID != "" && w.InstanceID != in.ID {
			return fmt.Errorf("wait %s belongs to instance %s", w.ID, w.InstanceID)
		}
		args, err := waitArgs(owner, w)
		if err != nil {
			return err
		}
		sb.exec(i, func(ct pgconn.CommandTag) error {
			if ct.RowsAffected() == 0 {
				return fmt.Errorf("wait %s belongs to another instance: %w", w.ID, store.ErrConflict)
			}
			return nil
		}, upsertWaitSQL, args...)
		queueWaitKey(sb, i, w)
	}
	if in.Status == store.StatusCompleted || in.Status == store.StatusTerminated {
		sb.exec(i, nil, deleteInstanceWaitKeysSQL, string(in.ID))
		sb.exec(i, nil, deleteInstanceWaitsSQL, string(in.ID))
	}
	return nil
}
