package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/gobpm/gobpm/internal/store"
	"github.com/gobpm/gobpm/internal/store/sqlquery"
)

const (
	// insertOutboxSQL writes a step's row claimed by the node committing
	// it, which performs it right after the commit.
	insertOutboxSQL = `INSERT INTO outbox (instance_id, kind, payload, created_at, claimed_by) VALUES ($1, $2, $3, $4, $5) RETURNING id`
	selectOutboxSQL = `SELECT id, instance_id, kind, payload, created_at FROM outbox ORDER BY id LIMIT $1`
	updateOutboxSQL = `UPDATE outbox SET payload = $1 WHERE id = $2`
	deleteOutboxSQL = `DELETE FROM outbox WHERE id = ANY($1)`

	// insertIdempotencySQL records a key unless a live record of it
	// exists (zero rows affected); an expired one is replaced.
	insertIdempotencySQL = `INSERT INTO idempotency (key, request_hash, instance_id, answer, created_at) VALUES ($1, $2, $3, $4, $5)
		ON CONFLICT (key) DO UPDATE SET request_hash = excluded.request_hash, instance_id = excluded.instance_id,
		  answer = excluded.answer, created_at = excluded.created_at
		WHERE idempotency.created_at < $6`
	// sweepIdempotencySQL deletes a few expired keys per recorded one, so
	// the table stays bounded without a sweeper of its own.
	sweepIdempotencySQL = `DELETE FROM idempotency WHERE key IN
		(SELECT key FROM idempotency WHERE created_at < $1 ORDER BY created_at LIMIT 16)`
	selectIdempotencySQL = `SELECT request_hash, instance_id, answer, created_at FROM idempotency WHERE key = $1 AND created_at >= $2`

	insertSecretSQL = `INSERT INTO server_secrets (name, secret, created_at) VALUES ($1, $2, $3) ON CONFLICT (name) DO NOTHING`
	selectSecretSQL = `SELECT secret FROM server_secrets WHERE name = $1`
)

// scanOutbox scans an outbox row (id, instance_id, kind, payload, created_at).
func scanOutbox(row pgx.Row) (store.OutboxRow, error) {
	var (
		o             store.OutboxRow
		inst, payload string
		created       int64
	)
	err := row.Scan(&o.ID, &inst, &o.Kind, &payload, &created)
	o.InstanceID, o.Payload, o.CreatedAt = store.InstanceID(inst), json.RawMessage(payload), decodeTime(created)
	return o, err
}

// Outbox returns at most limit outbox rows (limit <= 0 means
// sqlquery.MaxListLimit), oldest (lowest id) first.
func (db *DB) Outbox(ctx context.Context, limit int) ([]store.OutboxRow, error) {
	if limit <= 0 || limit > sqlquery.MaxListLimit {
		limit = sqlquery.MaxListLimit
	}
	out, err := queryRows(ctx, db.pool, scanOutbox, selectOutboxSQL, limit)
	if err != nil {
		return nil, fmt.Errorf("postgres store: outbox: %w", err)
	}
	return out, nil
}

// UpdateOutbox replaces the payload of an outbox row; a wrapped
// store.ErrNotFound if the row is gone.
func (db *DB) UpdateOutbox(ctx context.Context, id int64, payload json.RawMessage) error {
	tag, err := db.pool.Exec(ctx, updateOutboxSQL, string(payload), id)
	if err == nil && tag.RowsAffected() == 0 {
		err = store.ErrNotFound
	}
	if err != nil {
		return fmt.Errorf("postgres store: update outbox row %d: %w", id, err)
	}
	return nil
}

// DeleteOutbox deletes outbox rows by id; unknown ids are ignored.
func (db *DB) DeleteOutbox(ctx context.Context, ids ...int64) error {
	if len(ids) == 0 {
		return nil
	}
	if _, err := db.pool.Exec(ctx, deleteOutboxSQL, ids); err != nil {
		return fmt.Errorf("postgres store: delete outbox rows: %w", err)
	}
	return nil
}

// insertIdempotency records row (if set) in tx: a live record of its key
// is a wrapped store.ErrConflict.
func insertIdempotency(ctx context.Context, tx pgx.Tx, row *store.IdempotencyRow) error {
	if row == nil {
		return nil
	}
	if _, err := tx.Exec(ctx, sweepIdempotencySQL, encodeTime(row.ExpiredBefore)); err != nil {
		return fmt.Errorf("sweep idempotency keys: %w", err)
	}
	answer := string(row.Answer)
	if answer == "" {
		answer = "null"
	}
	tag, err := tx.Exec(ctx, insertIdempotencySQL, row.Key, row.RequestHash[:], string(row.InstanceID), answer,
		encodeTime(row.CreatedAt), encodeTime(row.ExpiredBefore))
	if err != nil {
		return fmt.Errorf("record idempotency key: %w", err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("idempotency key %q is recorded already: %w", row.Key, store.ErrConflict)
	}
	return nil
}

// Idempotency returns the record of key written at or after since; ok is
// false when there is none (or only an older one).
func (db *DB) Idempotency(ctx context.Context, key string, since time.Time) (store.IdempotencyRow, bool, error) {
	var (
		hash         []byte
		inst, answer string
		created      int64
	)
	err := db.pool.QueryRow(ctx, selectIdempotencySQL, key, encodeTime(since)).Scan(&hash, &inst, &answer, &created)
	if errors.Is(err, pgx.ErrNoRows) {
		return store.IdempotencyRow{}, false, nil
	}
	if err != nil {
		return store.IdempotencyRow{}, false, fmt.Errorf("postgres store: idempotency key %q: %w", key, err)
	}
	row := store.IdempotencyRow{Key: key, InstanceID: store.InstanceID(inst), Answer: []byte(answer), CreatedAt: decodeTime(created)}
	if len(hash) != len(row.RequestHash) {
		return store.IdempotencyRow{}, false, fmt.Errorf("postgres store: idempotency key %q: stored hash has %d bytes", key, len(hash))
	}
	copy(row.RequestHash[:], hash)
	return row, true, nil
}

// RecordIdempotency records a key outside a step; a live record of it is
// a wrapped store.ErrConflict.
func (db *DB) RecordIdempotency(ctx context.Context, row store.IdempotencyRow) error {
	err := db.writeTx(ctx, func(tx pgx.Tx) error { return insertIdempotency(ctx, tx, &row) })
	if err != nil {
		return fmt.Errorf("postgres store: %w", err)
	}
	return nil
}

// ServerSecret returns the secret stored under name, storing fresh first
// if there is none: the first caller's bytes win, on every node.
func (db *DB) ServerSecret(ctx context.Context, name string, fresh []byte) ([]byte, error) {
	if len(fresh) == 0 {
		return nil, fmt.Errorf("postgres store: server secret %q: the fresh secret is empty", name)
	}
	var secret []byte
	err := db.writeTx(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, insertSecretSQL, name, fresh, encodeTime(time.Now())); err != nil {
			return err
		}
		return tx.QueryRow(ctx, selectSecretSQL, name).Scan(&secret)
	})
	if err != nil {
		return nil, fmt.Errorf("postgres store: server secret %q: %w", name, err)
	}
	return secret, nil
}
