package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/gobpm/gobpm/internal/store"
)

// Buffered messages (migration 0011, store.MessageBufferStore), as in the
// SQLite store.
const (
	// dropExpiredDuplicateSQL deletes an expired message holding the
	// message id a new one brings.
	dropExpiredDuplicateSQL = `DELETE FROM buffered_messages
		WHERE name = $1 AND correlation_key = $2 AND message_id = $3 AND message_id <> '' AND expires_at <= $4`
	// insertBufferedSQL stores a message; a live duplicate message id
	// inserts nothing.
	insertBufferedSQL = `INSERT INTO buffered_messages (id, name, correlation_key, message_id, variables, published_at, expires_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT DO NOTHING`
	// insertTakeSQL records a take while the message is live at the
	// take's time; otherwise it inserts nothing.
	insertTakeSQL = `INSERT INTO buffered_message_takes (message, process_key, instance_id, taken_at)
		SELECT id, $2, $3, $4 FROM buffered_messages WHERE id = $1 AND expires_at > $4
		ON CONFLICT DO NOTHING`
	// bufferedMatchSQL is a subscription's look-up on buffered_messages_match.
	bufferedMatchSQL = `SELECT id, name, correlation_key, message_id, variables, published_at, expires_at
		FROM buffered_messages b
		WHERE name = $1 AND correlation_key = $2 AND expires_at > $3
		  AND NOT EXISTS (SELECT 1 FROM buffered_message_takes t WHERE t.message = b.id AND t.process_key = $4)
		ORDER BY published_at, id LIMIT $5`
	bufferedOneSQL = `SELECT id, name, correlation_key, message_id, variables, published_at, expires_at
		FROM buffered_messages WHERE id = $1`
	bufferedTakesSQL = `SELECT process_key FROM buffered_message_takes WHERE message = $1 ORDER BY process_key`
	// sweepBufferedSQL deletes a batch of expired messages (their takes cascade).
	sweepBufferedSQL = `DELETE FROM buffered_messages WHERE id IN
		(SELECT id FROM buffered_messages WHERE expires_at <= $1 ORDER BY expires_at LIMIT $2)`
	anyBufferedSQL = `SELECT EXISTS (SELECT 1 FROM buffered_messages)`
	// subscribersSQL is the oldest message wait of each process key with a
	// name and correlation key.
	subscribersSQL = `SELECT DISTINCT ON (process_key) ` + waitColumns + ` FROM waits
		WHERE kind = 'message' AND name = $1 AND correlation_key = $2
		ORDER BY process_key, created_at, id`
)

// bufferedArgs are insertBufferedSQL's arguments for m.
func bufferedArgs(m *store.BufferedMessage) []any {
	vars := string(m.Variables)
	if vars == "" {
		vars = "{}"
	}
	return []any{m.ID, m.Name, m.CorrelationKey, m.MessageID, vars, encodeTime(m.PublishedAt), encodeTime(m.ExpiresAt)}
}

// duplicateUnless fails a message insert that inserted nothing.
func duplicateUnless(m *store.BufferedMessage, ct pgconn.CommandTag) error {
	if ct.RowsAffected() == 0 {
		return fmt.Errorf("message id %q of %q: %w", m.MessageID, m.Name, store.ErrDuplicateMessage)
	}
	return nil
}

// takenUnless fails a take that inserted nothing.
func takenUnless(t *store.MessageTake, ct pgconn.CommandTag) error {
	if ct.RowsAffected() == 0 {
		return fmt.Errorf("buffered message %s for %s: %w", t.MessageID, t.ProcessKey, store.ErrMessageTaken)
	}
	return nil
}

// queueMessageBuffer queues a step's buffered message and takes.
func queueMessageBuffer(sb *stepBatch, i int, s *store.StepRecord) {
	if m := s.BufferMessage; m != nil {
		if m.MessageID != "" {
			sb.exec(i, nil, dropExpiredDuplicateSQL, m.Name, m.CorrelationKey, m.MessageID, encodeTime(m.PublishedAt))
		}
		sb.exec(i, func(ct pgconn.CommandTag) error { return duplicateUnless(m, ct) }, insertBufferedSQL, bufferedArgs(m)...)
	}
	for j := range s.MessageTakes {
		t := &s.MessageTakes[j]
		sb.exec(i, func(ct pgconn.CommandTag) error { return takenUnless(t, ct) },
			insertTakeSQL, t.MessageID, t.ProcessKey, string(t.InstanceID), encodeTime(t.At))
	}
}

// BufferMessage stores m, its takes and the publication's idempotency
// record in one transaction.
func (db *DB) BufferMessage(ctx context.Context, m store.BufferedMessage, takes []store.MessageTake, claim *store.IdempotencyRow) error {
	err := db.writeTx(ctx, func(tx pgx.Tx) error {
		if err := insertIdempotency(ctx, tx, claim); err != nil {
			return err
		}
		if m.MessageID != "" {
			if _, err := tx.Exec(ctx, dropExpiredDuplicateSQL, m.Name, m.CorrelationKey, m.MessageID, encodeTime(m.PublishedAt)); err != nil {
				return fmt.Errorf("replace an expired message: %w", err)
			}
		}
		ct, err := tx.Exec(ctx, insertBufferedSQL, bufferedArgs(&m)...)
		if err != nil {
			return fmt.Errorf("insert buffered message: %w", err)
		}
		if err := duplicateUnless(&m, ct); err != nil {
			return err
		}
		for j := range takes {
			t := &takes[j]
			ct, err := tx.Exec(ctx, insertTakeSQL, t.MessageID, t.ProcessKey, string(t.InstanceID), encodeTime(t.At))
			if err != nil {
				return fmt.Errorf("take buffered message %s: %w", t.MessageID, err)
			}
			if err := takenUnless(t, ct); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("postgres store: buffer message %s: %w", m.Name, err)
	}
	return nil
}

// scanBuffered reads one buffered_messages row.
func scanBuffered(row pgx.Row) (store.BufferedMessage, error) {
	var (
		m                  store.BufferedMessage
		vars               string
		published, expires int64
	)
	if err := row.Scan(&m.ID, &m.Name, &m.CorrelationKey, &m.MessageID, &vars, &published, &expires); err != nil {
		return store.BufferedMessage{}, err
	}
	m.Variables = []byte(vars)
	m.PublishedAt, m.ExpiresAt = decodeTime(published), decodeTime(expires)
	return m, nil
}

// BufferedMessages returns the live messages a subscription of processKey may take.
func (db *DB) BufferedMessages(ctx context.Context, name, correlationKey, processKey string, now time.Time, limit int) ([]store.BufferedMessage, error) {
	if limit <= 0 {
		limit = 1
	}
	rows, err := db.pool.Query(ctx, bufferedMatchSQL, name, correlationKey, encodeTime(now), processKey, limit)
	if err != nil {
		return nil, fmt.Errorf("postgres store: buffered messages %s: %w", name, err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (store.BufferedMessage, error) { return scanBuffered(r) })
	if err != nil {
		return nil, fmt.Errorf("postgres store: buffered messages %s: %w", name, err)
	}
	return out, nil
}

// BufferedMessage returns one message and the process keys that took it.
func (db *DB) BufferedMessage(ctx context.Context, id string) (store.BufferedMessage, error) {
	var m store.BufferedMessage
	err := db.readTx(ctx, func(tx pgx.Tx) error {
		var err error
		if m, err = scanBuffered(tx.QueryRow(ctx, bufferedOneSQL, id)); err != nil {
			return err
		}
		rows, err := tx.Query(ctx, bufferedTakesSQL, id)
		if err != nil {
			return err
		}
		m.TakenBy, err = pgx.CollectRows(rows, pgx.RowTo[string])
		return err
	})
	if errors.Is(err, pgx.ErrNoRows) {
		return store.BufferedMessage{}, fmt.Errorf("postgres store: buffered message %s: %w", id, store.ErrNotFound)
	}
	if err != nil {
		return store.BufferedMessage{}, fmt.Errorf("postgres store: buffered message %s: %w", id, err)
	}
	return m, nil
}

// SweepMessages deletes a batch of expired messages.
func (db *DB) SweepMessages(ctx context.Context, now time.Time, limit int) (int, error) {
	if limit <= 0 {
		limit = 1
	}
	ct, err := db.pool.Exec(ctx, sweepBufferedSQL, encodeTime(now), limit)
	if err != nil {
		return 0, fmt.Errorf("postgres store: sweep buffered messages: %w", err)
	}
	return int(ct.RowsAffected()), nil
}

// AnyBufferedMessages reports whether the buffer holds a message.
func (db *DB) AnyBufferedMessages(ctx context.Context) (bool, error) {
	var found bool
	if err := db.pool.QueryRow(ctx, anyBufferedSQL).Scan(&found); err != nil {
		return false, fmt.Errorf("postgres store: any buffered message: %w", err)
	}
	return found, nil
}

// MessageSubscribers returns the oldest message wait of each process key
// subscribed to name and correlationKey, the oldest first.
func (db *DB) MessageSubscribers(ctx context.Context, name, correlationKey string) ([]store.WaitRow, error) {
	out, err := queryWaits(ctx, db.pool, subscribersSQL, name, correlationKey)
	if err != nil {
		return nil, fmt.Errorf("postgres store: subscribers of message %q: %w", name, err)
	}
	store.SortWaitsByAge(out)
	return out, nil
}
