package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/gobpm/gobpm/internal/store"
	"github.com/gobpm/gobpm/internal/store/sqlquery"
)

// The statements of batch operations (runtime batch.go, migration 0025).
const (
	insertBatchSQL = `INSERT INTO batches (id, operation, params, filter, state, created_by, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING`
	openBatchesOfSQL   = `SELECT COUNT(*) FROM batches WHERE created_by = ? AND state IN ('preparing', 'running', 'paused')`
	batchTotalSQL      = `SELECT total FROM batches WHERE id = ?`
	insertBatchItemSQL = `INSERT INTO batch_items (batch_id, seq, instance_id, status, reason)
		VALUES (?, ?, ?, 'pending', '') ON CONFLICT (batch_id, instance_id) DO NOTHING`
	addBatchTotalSQL = `UPDATE batches SET total = total + ?, cursor = ? WHERE id = ?`
	batchColumns     = `id, operation, params, filter, state, created_by, created_at, finished_at, cursor,
		total, done, failed, owner, lease_until`
	selectBatchSQL = `SELECT ` + batchColumns + ` FROM batches WHERE id = ?`
	listBatchesSQL = `SELECT ` + batchColumns + ` FROM batches WHERE (? = '' OR created_by = ?)
		ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?`
	countBatchesSQL     = `SELECT COUNT(*) FROM batches WHERE (? = '' OR created_by = ?)`
	selectBatchItemsSQL = `SELECT seq, instance_id, status, reason FROM batch_items
		WHERE batch_id = ? AND seq > ? AND (? = '' OR status = ?) ORDER BY seq LIMIT ?`
	setBatchItemSQL = `UPDATE batch_items SET status = ?, reason = ?
		WHERE batch_id = ? AND instance_id = ? AND status = 'pending'`
	batchItemExistsSQL = `SELECT 1 FROM batch_items WHERE batch_id = ? AND instance_id = ?`
	countBatchItemSQL  = `UPDATE batches SET done = done + ?, failed = failed + ? WHERE id = ?`
	batchStateSQL      = `SELECT state FROM batches WHERE id = ?`
	setBatchStateSQL   = `UPDATE batches SET state = ?, finished_at = ? WHERE id = ?`
	claimBatchSQL      = `UPDATE batches SET owner = ?, lease_until = ?
		WHERE id = ? AND (owner = ? OR owner = '' OR lease_until < ?)`
	batchExistsSQL = `SELECT 1 FROM batches WHERE id = ?`
	openBatchesSQL = `SELECT id FROM batches WHERE state IN ('preparing', 'running') ORDER BY created_at, id`
)

func init() {
	writeQueries = append(writeQueries, insertBatchSQL, openBatchesOfSQL, insertBatchItemSQL, addBatchTotalSQL, setBatchItemSQL,
		countBatchItemSQL, setBatchStateSQL, claimBatchSQL, batchTotalSQL, batchItemExistsSQL, batchStateSQL, batchExistsSQL)
	readQueries = append(readQueries, selectBatchSQL, listBatchesSQL, countBatchesSQL, selectBatchItemsSQL,
		openBatchesSQL)
}

// CreateBatch stores a batch without items; a wrapped store.ErrConflict
// when the id exists, ECONFLICT when its creator has store.MaxOpenBatches
// unfinished batches (counted in the same write transaction).
func (db *DB) CreateBatch(ctx context.Context, rec store.BatchRecord) error {
	err := db.writeWith(ctx, func(st *txStmts) error {
		var open int
		if err := st.queryRow(openBatchesOfSQL, rec.CreatedBy).Scan(&open); err != nil {
			return err
		}
		if open >= store.MaxOpenBatches {
			return store.Errorf(store.ECONFLICT, "%s has %d unfinished batches already (at most %d)", rec.CreatedBy, open, store.MaxOpenBatches)
		}
		return execOne(st, errExists, insertBatchSQL, rec.ID, rec.Operation, rawOrNull(rec.Params), rawOrNull(rec.Filter),
			rec.State, rec.CreatedBy, encodeTime(rec.CreatedAt))
	})
	if err != nil {
		return fmt.Errorf("store: create batch %s: %w", rec.ID, err)
	}
	return nil
}

// AddBatchItems appends instances to a batch, pending, and sets its
// cursor, in one transaction; an instance the batch holds already is left
// out. A wrapped store.ErrNotFound for an unknown batch.
func (db *DB) AddBatchItems(ctx context.Context, id string, instances []store.InstanceID, cursor store.InstanceID) error {
	err := db.writeWith(ctx, func(st *txStmts) error {
		var total int64
		if err := st.queryRow(batchTotalSQL, id).Scan(&total); err != nil {
			return notFound(err)
		}
		added := int64(0)
		for _, inst := range instances {
			res, err := st.exec(insertBatchItemSQL, id, total+added, string(inst))
			if err != nil {
				return fmt.Errorf("item %s: %w", inst, err)
			}
			if n, err := res.RowsAffected(); err != nil {
				return err
			} else if n > 0 {
				added++
			}
		}
		_, err := st.exec(addBatchTotalSQL, added, string(cursor), id)
		return err
	})
	if err != nil {
		return fmt.Errorf("store: batch %s: add items: %w", id, err)
	}
	return nil
}

// Batch returns a batch with its counts; a wrapped store.ErrNotFound for
// an unknown id.
func (db *DB) Batch(ctx context.Context, id string) (store.BatchRecord, error) {
	var rec store.BatchRecord
	err := db.readWith(ctx, func(st *txStmts) error {
		var err error
		rec, err = scanBatch(st.queryRow(selectBatchSQL, id))
		return notFound(err)
	})
	if err != nil {
		return store.BatchRecord{}, fmt.Errorf("store: batch %s: %w", id, err)
	}
	return rec, nil
}

// Batches lists batches, newest first, and the number f matches.
func (db *DB) Batches(ctx context.Context, f store.BatchFilter) ([]store.BatchRecord, int, error) {
	out := []store.BatchRecord{}
	var total int
	err := db.readWith(ctx, func(st *txStmts) error {
		if err := st.queryRow(countBatchesSQL, f.CreatedBy, f.CreatedBy).Scan(&total); err != nil {
			return err
		}
		rows, err := st.query(listBatchesSQL, f.CreatedBy, f.CreatedBy, sqlquery.ListLimit(f.Limit), max(f.Offset, 0))
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			rec, err := scanBatch(rows)
			if err != nil {
				return err
			}
			out = append(out, rec)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, 0, fmt.Errorf("store: batches: %w", err)
	}
	return out, total, nil
}

// BatchItems returns items of a batch in order; a wrapped
// store.ErrNotFound for an unknown batch.
func (db *DB) BatchItems(ctx context.Context, id string, f store.BatchItemFilter) ([]store.BatchItem, error) {
	out := []store.BatchItem{}
	err := db.readWith(ctx, func(st *txStmts) error {
		var one int
		if err := st.queryRow(batchExistsSQL, id).Scan(&one); err != nil {
			return notFound(err)
		}
		rows, err := st.query(selectBatchItemsSQL, id, f.AfterSeq, f.Status, f.Status, sqlquery.ListLimit(f.Limit))
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var it store.BatchItem
			var inst string
			if err := rows.Scan(&it.Seq, &inst, &it.Status, &it.Reason); err != nil {
				return err
			}
			it.InstanceID = store.InstanceID(inst)
			out = append(out, it)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("store: batch %s items: %w", id, err)
	}
	return out, nil
}

// SetBatchItem records the outcome of a pending item and counts it in one
// transaction; an item with its outcome already is left alone (false). A
// wrapped store.ErrNotFound when the batch has no such instance.
func (db *DB) SetBatchItem(ctx context.Context, id string, item store.BatchItem) (bool, error) {
	set := false
	err := db.writeWith(ctx, func(st *txStmts) error {
		res, err := st.exec(setBatchItemSQL, item.Status, item.Reason, id, string(item.InstanceID))
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			var one int
			return notFound(st.queryRow(batchItemExistsSQL, id, string(item.InstanceID)).Scan(&one))
		}
		set = true
		done, failed := sqlquery.BatchCounts(item.Status)
		_, err = st.exec(countBatchItemSQL, done, failed, id)
		return err
	})
	if err != nil {
		return false, fmt.Errorf("store: batch %s item %s: %w", id, item.InstanceID, err)
	}
	return set, nil
}

// SetBatchState moves a batch to state when its state is one of from (any
// with none); a wrapped store.ErrNotFound for an unknown id.
func (db *DB) SetBatchState(ctx context.Context, id, state string, finished time.Time, from ...string) (bool, error) {
	moved := false
	err := db.writeWith(ctx, func(st *txStmts) error {
		var cur string
		if err := st.queryRow(batchStateSQL, id).Scan(&cur); err != nil {
			return notFound(err)
		}
		if !sqlquery.StateIn(cur, from) {
			return nil
		}
		moved = true
		_, err := st.exec(setBatchStateSQL, state, encodeOptTime(finished), id)
		return err
	})
	if err != nil {
		return false, fmt.Errorf("store: batch %s: set state %s: %w", id, state, err)
	}
	return moved, nil
}

// ClaimBatch gives owner the batch's lease until until when owner holds it,
// nobody does, or it ended before now; a wrapped store.ErrNotFound for an
// unknown id.
func (db *DB) ClaimBatch(ctx context.Context, id, owner string, now, until time.Time) (bool, error) {
	held := false
	err := db.writeWith(ctx, func(st *txStmts) error {
		res, err := st.exec(claimBatchSQL, owner, encodeTime(until), id, owner, encodeTime(now))
		if err != nil {
			return err
		}
		n, err := res.RowsAffected()
		if err != nil {
			return err
		}
		if n == 0 {
			var one int
			return notFound(st.queryRow(batchExistsSQL, id).Scan(&one))
		}
		held = true
		return nil
	})
	if err != nil {
		return false, fmt.Errorf("store: claim batch %s: %w", id, err)
	}
	return held, nil
}

// OpenBatches returns the ids of the batches preparing or running, oldest
// first.
func (db *DB) OpenBatches(ctx context.Context) ([]string, error) {
	var ids []string
	err := db.readWith(ctx, func(st *txStmts) error {
		rows, err := st.query(openBatchesSQL)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var id string
			if err := rows.Scan(&id); err != nil {
				return err
			}
			ids = append(ids, id)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("store: open batches: %w", err)
	}
	return ids, nil
}

// scanBatch reads one row of batchColumns.
func scanBatch(row interface{ Scan(...any) error }) (store.BatchRecord, error) {
	var rec store.BatchRecord
	var params, filter, cursor string
	var created, lease int64
	var finished sql.NullInt64
	if err := row.Scan(&rec.ID, &rec.Operation, &params, &filter, &rec.State, &rec.CreatedBy, &created, &finished,
		&cursor, &rec.Total, &rec.Done, &rec.Failed, &rec.Owner, &lease); err != nil {
		return store.BatchRecord{}, err
	}
	rec.Params, rec.Filter, rec.Cursor = []byte(params), []byte(filter), store.InstanceID(cursor)
	rec.CreatedAt, rec.FinishedAt = decodeTime(created), decodeOptTime(finished)
	if lease != 0 {
		rec.LeaseUntil = decodeTime(lease)
	}
	return rec, nil
}

// rawOrNull is a JSON text for a column: "null" for none.
func rawOrNull(b []byte) string {
	if len(b) == 0 {
		return "null"
	}
	return string(b)
}
