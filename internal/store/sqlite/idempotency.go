package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/gobpm/gobpm/internal/store"
)

const (
	// insertIdempotencySQL records a key, replacing an expired record of
	// it. Arguments: key, hash, instance, answer, created_at, expired-before.
	insertIdempotencySQL = `INSERT INTO idempotency (key, request_hash, instance_id, answer, created_at) VALUES (?, ?, ?, ?, ?)
		ON CONFLICT (key) DO UPDATE SET request_hash = excluded.request_hash, instance_id = excluded.instance_id,
		  answer = excluded.answer, created_at = excluded.created_at
		WHERE idempotency.created_at < ?`
	// sweepIdempotencySQL deletes a few expired keys. Argument: expired-before.
	sweepIdempotencySQL = `DELETE FROM idempotency WHERE key IN
		(SELECT key FROM idempotency WHERE created_at < ? ORDER BY created_at LIMIT 16)`
	// selectIdempotencySQL reads a live key. Arguments: key, since.
	selectIdempotencySQL = `SELECT request_hash, instance_id, answer, created_at FROM idempotency WHERE key = ? AND created_at >= ?`
)

func init() {
	writeQueries = append(writeQueries, insertIdempotencySQL, sweepIdempotencySQL)
	readQueries = append(readQueries, selectIdempotencySQL)
}

// insertIdempotency records a step's idempotency key in its transaction:
// a live record of the key fails the step with ErrConflict (a concurrent
// request with the same key won); expired keys are swept a few at a time,
// so the table stays within the window without a job of its own.
func insertIdempotency(st *txStmts, row *store.IdempotencyRow) error {
	if row == nil {
		return nil
	}
	if _, err := st.exec(sweepIdempotencySQL, encodeTime(row.ExpiredBefore)); err != nil {
		return fmt.Errorf("sweep idempotency keys: %w", err)
	}
	answer := string(row.Answer)
	if answer == "" {
		answer = "null"
	}
	res, err := st.exec(insertIdempotencySQL, row.Key, row.RequestHash[:], string(row.InstanceID), answer,
		encodeTime(row.CreatedAt), encodeTime(row.ExpiredBefore))
	if err != nil {
		return fmt.Errorf("record idempotency key: %w", err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("record idempotency key: %w", err)
	} else if n == 0 {
		return fmt.Errorf("idempotency key %q is recorded already: %w", row.Key, store.ErrConflict)
	}
	return nil
}

// Idempotency returns the record of key written at or after since.
func (db *DB) Idempotency(ctx context.Context, key string, since time.Time) (store.IdempotencyRow, bool, error) {
	var (
		hash    []byte
		inst    string
		answer  string
		created int64
	)
	err := db.readOne(ctx).queryRow(selectIdempotencySQL, key, encodeTime(since)).Scan(&hash, &inst, &answer, &created)
	if errors.Is(err, sql.ErrNoRows) {
		return store.IdempotencyRow{}, false, nil
	}
	if err != nil {
		return store.IdempotencyRow{}, false, fmt.Errorf("store: idempotency key %q: %w", key, err)
	}
	row := store.IdempotencyRow{Key: key, InstanceID: store.InstanceID(inst), Answer: []byte(answer), CreatedAt: decodeTime(created)}
	if len(hash) != len(row.RequestHash) {
		return store.IdempotencyRow{}, false, fmt.Errorf("store: idempotency key %q: stored hash has %d bytes", key, len(hash))
	}
	copy(row.RequestHash[:], hash)
	return row, true, nil
}

// RecordIdempotency records a key in a transaction of its own (a signal
// broadcast, which spans many steps, records its answer once it is done).
func (db *DB) RecordIdempotency(ctx context.Context, row store.IdempotencyRow) error {
	err := db.writeWith(ctx, func(st *txStmts) error { return insertIdempotency(st, &row) })
	if err != nil {
		return fmt.Errorf("store: %w", err)
	}
	return nil
}
