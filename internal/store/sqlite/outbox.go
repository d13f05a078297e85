package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/gobpm/gobpm/internal/store"
)

// The statements of the outbox (migration 0004).
const (
	// insertOutboxSQL appends a row. Arguments: instance, kind, payload, created_at.
	insertOutboxSQL = `INSERT INTO outbox (instance_id, kind, payload, created_at) VALUES (?, ?, ?, ?)`
	// selectOutboxSQL lists the oldest rows. Argument: limit.
	selectOutboxSQL = `SELECT id, instance_id, kind, payload, created_at FROM outbox ORDER BY id LIMIT ?`
	// updateOutboxSQL replaces a payload. Arguments: payload, id.
	updateOutboxSQL = `UPDATE outbox SET payload = ? WHERE id = ?`
)

// insertOutbox writes the outbox rows of a step in its transaction and sets
// their ids. A row of another instance is refused: a step writes its own.
func insertOutbox(st *txStmts, in *store.InstanceRow, rows []store.OutboxRow) error {
	for i := range rows {
		o := &rows[i]
		if o.InstanceID == "" {
			o.InstanceID = in.ID
		}
		if o.InstanceID != in.ID {
			return fmt.Errorf("outbox row of instance %s in a step of %s", o.InstanceID, in.ID)
		}
		if o.CreatedAt.IsZero() {
			o.CreatedAt = in.UpdatedAt
		}
		res, err := st.exec(insertOutboxSQL, dbID(o.InstanceID), o.Kind, string(o.Payload), encodeTime(o.CreatedAt))
		if err != nil {
			return fmt.Errorf("insert outbox %s row: %w", o.Kind, err)
		}
		if o.ID, err = res.LastInsertId(); err != nil {
			return fmt.Errorf("insert outbox %s row: %w", o.Kind, err)
		}
	}
	return nil
}

// Outbox returns at most limit outbox rows (limit <= 0 means MaxListLimit),
// oldest first.
func (db *DB) Outbox(ctx context.Context, limit int) ([]store.OutboxRow, error) {
	if limit <= 0 || limit > MaxListLimit {
		limit = MaxListLimit
	}
	var out []store.OutboxRow
	err := db.readWith(ctx, func(st *txStmts) error {
		rs, err := st.query(selectOutboxSQL, limit)
		if err != nil {
			return err
		}
		defer rs.Close()
		for rs.Next() {
			var (
				o       store.OutboxRow
				payload string
				created int64
			)
			if err := rs.Scan(&o.ID, idDest(&o.InstanceID), &o.Kind, &payload, &created); err != nil {
				return err
			}
			o.Payload = json.RawMessage(payload)
			o.CreatedAt = decodeTime(created)
			out = append(out, o)
		}
		return rs.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("store: outbox: %w", err)
	}
	return out, nil
}

// UpdateOutbox replaces the payload of an outbox row. It returns a wrapped
// store.ErrNotFound if the row is gone.
func (db *DB) UpdateOutbox(ctx context.Context, id int64, payload json.RawMessage) error {
	if err := db.updateOne(ctx, updateOutboxSQL, string(payload), id); err != nil {
		return fmt.Errorf("store: update outbox row %d: %w", id, err)
	}
	return nil
}

// DeleteOutbox deletes outbox rows by id in one transaction; unknown ids are
// ignored. No ids is a no-op.
func (db *DB) DeleteOutbox(ctx context.Context, ids ...int64) error {
	if len(ids) == 0 {
		return nil
	}
	err := db.writeTx(ctx, func(tx *sql.Tx) error {
		for chunk := range slices.Chunk(ids, MaxListLimit) { // far below SQLite's bound on parameters
			args := make([]any, len(chunk))
			for i, id := range chunk {
				args[i] = id
			}
			query := `DELETE FROM outbox WHERE id IN (?` + strings.Repeat(", ?", len(chunk)-1) + `)`
			if _, err := tx.ExecContext(ctx, query, args...); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("store: delete outbox rows: %w", err)
	}
	return nil
}
