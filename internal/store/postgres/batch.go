package postgres

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/gobpm/gobpm/internal/store"
	"github.com/gobpm/gobpm/internal/store/sqlcodec"
	"github.com/gobpm/gobpm/internal/store/sqlquery"
)

// The statements of batch operations (runtime batch.go, migration 0017),
// as the SQLite store's.
const (
	insertBatchSQL = `INSERT INTO batches (id, operation, params, filter, state, created_by, created_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (id) DO NOTHING`
	openBatchesOfSQL   = `SELECT COUNT(*) FROM batches WHERE created_by = $1 AND state IN ('preparing', 'running', 'paused')`
	lockBatchTotalSQL  = `SELECT total FROM batches WHERE id = $1 FOR UPDATE`
	insertBatchItemSQL = `INSERT INTO batch_items (batch_id, seq, instance_id, status, reason)
		VALUES ($1, $2, $3, 'pending', '') ON CONFLICT (batch_id, instance_id) DO NOTHING`
	addBatchTotalSQL = `UPDATE batches SET total = total + $1, cursor = $2 WHERE id = $3`
	batchColumns     = `id, operation, params, filter, state, created_by, created_at, finished_at, cursor,
		total, done, failed, owner, lease_until`
	selectBatchSQL = `SELECT ` + batchColumns + ` FROM batches WHERE id = $1`
	listBatchesSQL = `SELECT ` + batchColumns + ` FROM batches WHERE ($1 = '' OR created_by = $1)
		ORDER BY created_at DESC, id DESC LIMIT $2 OFFSET $3`
	countBatchesSQL     = `SELECT COUNT(*) FROM batches WHERE ($1 = '' OR created_by = $1)`
	selectBatchItemsSQL = `SELECT seq, instance_id, status, reason FROM batch_items
		WHERE batch_id = $1 AND seq > $2 AND ($3 = '' OR status = $3) ORDER BY seq LIMIT $4`
	setBatchItemSQL = `UPDATE batch_items SET status = $1, reason = $2
		WHERE batch_id = $3 AND instance_id = $4 AND status = 'pending'`
	batchItemExistsSQL = `SELECT 1 FROM batch_items WHERE batch_id = $1 AND instance_id = $2`
	countBatchItemSQL  = `UPDATE batches SET done = done + $1, failed = failed + $2 WHERE id = $3`
	lockBatchStateSQL  = `SELECT state FROM batches WHERE id = $1 FOR UPDATE`
	setBatchStateSQL   = `UPDATE batches SET state = $1, finished_at = $2 WHERE id = $3`
	claimBatchSQL      = `UPDATE batches SET owner = $1, lease_until = $2
		WHERE id = $3 AND (owner = $1 OR owner = '' OR lease_until < $4)`
	batchExistsSQL = `SELECT 1 FROM batches WHERE id = $1`
	openBatchesSQL = `SELECT id FROM batches WHERE state IN ('preparing', 'running') ORDER BY created_at, id`
)

// CreateBatch stores a batch without items; a wrapped store.ErrConflict
// when the id exists, ECONFLICT when its creator has store.MaxOpenBatches
// unfinished batches. A transaction lock on the creator's name serializes the count
// and the insert of two nodes creating batches for one user at once.
func (db *DB) CreateBatch(ctx context.Context, rec store.BatchRecord) error {
	err := db.writeTx(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended('gobpm-batches:' || $1, 0))`, rec.CreatedBy); err != nil {
			return err
		}
		var open int
		if err := tx.QueryRow(ctx, openBatchesOfSQL, rec.CreatedBy).Scan(&open); err != nil {
			return err
		}
		if open >= store.MaxOpenBatches {
			return store.Errorf(store.ECONFLICT, "%s has %d unfinished batches already (at most %d)", rec.CreatedBy, open, store.MaxOpenBatches)
		}
		return execOne(ctx, tx, sqlquery.ErrExists, insertBatchSQL, rec.ID, rec.Operation, rawOrNull(rec.Params),
			rawOrNull(rec.Filter), rec.State, rec.CreatedBy, encodeTime(rec.CreatedAt))
	})
	if err != nil {
		return fmt.Errorf("postgres store: create batch %s: %w", rec.ID, err)
	}
	return nil
}

// AddBatchItems appends instances to a batch, pending, and sets its
// cursor, in one transaction; an instance the batch holds already is left
// out. A wrapped store.ErrNotFound for an unknown batch.
func (db *DB) AddBatchItems(ctx context.Context, id string, instances []store.InstanceID, cursor store.InstanceID) error {
	err := db.writeTx(ctx, func(tx pgx.Tx) error {
		var total int64
		if err := tx.QueryRow(ctx, lockBatchTotalSQL, id).Scan(&total); err != nil {
			return notFound(err)
		}
		added := int64(0)
		for _, inst := range instances {
			tag, err := tx.Exec(ctx, insertBatchItemSQL, id, total+added, string(inst))
			if err != nil {
				return fmt.Errorf("item %s: %w", inst, err)
			}
			added += tag.RowsAffected()
		}
		_, err := tx.Exec(ctx, addBatchTotalSQL, added, string(cursor), id)
		return err
	})
	if err != nil {
		return fmt.Errorf("postgres store: batch %s: add items: %w", id, err)
	}
	return nil
}

// Batch returns a batch with its counts; a wrapped store.ErrNotFound for
// an unknown id.
func (db *DB) Batch(ctx context.Context, id string) (store.BatchRecord, error) {
	rec, err := scanBatch(db.pool.QueryRow(ctx, selectBatchSQL, id))
	if err != nil {
		return store.BatchRecord{}, fmt.Errorf("postgres store: batch %s: %w", id, notFound(err))
	}
	return rec, nil
}

// Batches lists batches, newest first, and the number f matches.
func (db *DB) Batches(ctx context.Context, f store.BatchFilter) ([]store.BatchRecord, int, error) {
	out := []store.BatchRecord{}
	var total int
	err := db.readTx(ctx, func(tx pgx.Tx) error {
		out = out[:0]
		if err := tx.QueryRow(ctx, countBatchesSQL, f.CreatedBy).Scan(&total); err != nil {
			return err
		}
		rows, err := tx.Query(ctx, listBatchesSQL, f.CreatedBy, sqlquery.ListLimit(f.Limit), max(f.Offset, 0))
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
		return nil, 0, fmt.Errorf("postgres store: batches: %w", err)
	}
	return out, total, nil
}

// BatchItems returns items of a batch in order; a wrapped
// store.ErrNotFound for an unknown batch.
func (db *DB) BatchItems(ctx context.Context, id string, f store.BatchItemFilter) ([]store.BatchItem, error) {
	out := []store.BatchItem{}
	err := db.readTx(ctx, func(tx pgx.Tx) error {
		out = out[:0]
		var one int
		if err := tx.QueryRow(ctx, batchExistsSQL, id).Scan(&one); err != nil {
			return notFound(err)
		}
		rows, err := tx.Query(ctx, selectBatchItemsSQL, id, f.AfterSeq, f.Status, sqlquery.ListLimit(f.Limit))
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
		return nil, fmt.Errorf("postgres store: batch %s items: %w", id, err)
	}
	return out, nil
}

// SetBatchItem records the outcome of a pending item and counts it in one
// transaction; an item with its outcome already is left alone (false). A
// wrapped store.ErrNotFound when the batch has no such instance.
func (db *DB) SetBatchItem(ctx context.Context, id string, item store.BatchItem) (bool, error) {
	set := false
	err := db.writeTx(ctx, func(tx pgx.Tx) error {
		set = false
		tag, err := tx.Exec(ctx, setBatchItemSQL, item.Status, item.Reason, id, string(item.InstanceID))
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			var one int
			return notFound(tx.QueryRow(ctx, batchItemExistsSQL, id, string(item.InstanceID)).Scan(&one))
		}
		set = true
		done, failed := sqlquery.BatchCounts(item.Status)
		_, err = tx.Exec(ctx, countBatchItemSQL, done, failed, id)
		return err
	})
	if err != nil {
		return false, fmt.Errorf("postgres store: batch %s item %s: %w", id, item.InstanceID, err)
	}
	return set, nil
}

// SetBatchState moves a batch to state when its state is one of from (any
// with none); a wrapped store.ErrNotFound for an unknown id.
func (db *DB) SetBatchState(ctx context.Context, id, state string, finished time.Time, from ...string) (bool, error) {
	moved := false
	err := db.writeTx(ctx, func(tx pgx.Tx) error {
		moved = false
		var cur string
		if err := tx.QueryRow(ctx, lockBatchStateSQL, id).Scan(&cur); err != nil {
			return notFound(err)
		}
		if !sqlquery.StateIn(cur, from) {
			return nil
		}
		moved = true
		_, err := tx.Exec(ctx, setBatchStateSQL, state, sqlcodec.EncodeOptTime(finished), id)
		return err
	})
	if err != nil {
		return false, fmt.Errorf("postgres store: batch %s: set state %s: %w", id, state, err)
	}
	return moved, nil
}

// ClaimBatch gives owner the batch's lease until until when owner holds it,
// nobody does, or it ended before now; a wrapped store.ErrNotFound for an
// unknown id.
func (db *DB) ClaimBatch(ctx context.Context, id, owner string, now, until time.Time) (bool, error) {
	tag, err := db.pool.Exec(ctx, claimBatchSQL, owner, encodeTime(until), id, encodeTime(now))
	if err == nil && tag.RowsAffected() == 0 {
		var one int
		err = notFound(db.pool.QueryRow(ctx, batchExistsSQL, id).Scan(&one))
	}
	if err != nil {
		return false, fmt.Errorf("postgres store: claim batch %s: %w", id, err)
	}
	return tag.RowsAffected() > 0, nil
}

// OpenBatches returns the ids of the batches preparing or running, oldest
// first.
func (db *DB) OpenBatches(ctx context.Context) ([]string, error) {
	rows, err := db.pool.Query(ctx, openBatchesSQL)
	if err != nil {
		return nil, fmt.Errorf("postgres store: open batches: %w", err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("postgres store: open batches: %w", err)
	}
	return ids, nil
}

// scanBatch reads one row of batchColumns.
func scanBatch(row pgx.Row) (store.BatchRecord, error) {
	var rec store.BatchRecord
	var params, filter, cursor string
	var created, lease int64
	var finished sql.NullInt64
	if err := row.Scan(&rec.ID, &rec.Operation, &params, &filter, &rec.State, &rec.CreatedBy, &created, &finished,
		&cursor, &rec.Total, &rec.Done, &rec.Failed, &rec.Owner, &lease); err != nil {
		return store.BatchRecord{}, err
	}
	rec.Params, rec.Filter, rec.Cursor = []byte(params), []byte(filter), store.InstanceID(cursor)
	rec.CreatedAt, rec.FinishedAt = decodeTime(created), sqlcodec.DecodeOptTime(finished)
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
