package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/gobpm/gobpm/internal/store"
)

// Buffered messages (migration 0018, store.MessageBufferStore).
const (
	// dropExpiredDuplicateSQL deletes an expired message holding the
	// message id a new one brings, so the unique index admits the new one.
	// Arguments: name, correlation key, message id, now.
	dropExpiredDuplicateSQL = `DELETE FROM buffered_messages
		WHERE name = ? AND correlation_key = ? AND message_id = ? AND message_id <> '' AND expires_at <= ?`
	// insertBufferedSQL stores a message; a live duplicate message id
	// inserts nothing.
	insertBufferedSQL = `INSERT INTO buffered_messages (id, name, correlation_key, message_id, variables, published_at, expires_at)
		VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`
	// insertTakeSQL records a take while the message is live at the
	// take's time; a message gone, expired or already taken by the process
	// key inserts nothing. Arguments: message, process key, instance,
	// taken at, message, taken at.
	insertTakeSQL = `INSERT INTO buffered_message_takes (message, process_key, instance_id, taken_at)
		SELECT id, ?, ?, ? FROM buffered_messages WHERE id = ? AND expires_at > ?
		ON CONFLICT DO NOTHING`
	// bufferedMatchSQL is a subscription's look-up on buffered_messages_match.
	// Arguments: name, correlation key, now, process key, limit.
	bufferedMatchSQL = `SELECT id, name, correlation_key, message_id, variables, published_at, expires_at
		FROM buffered_messages b
		WHERE name = ? AND correlation_key = ? AND expires_at > ?
		  AND NOT EXISTS (SELECT 1 FROM buffered_message_takes t WHERE t.message = b.id AND t.process_key = ?)
		ORDER BY published_at, id LIMIT ?`
	// bufferedOneSQL reads one message. Argument: id.
	bufferedOneSQL = `SELECT id, name, correlation_key, message_id, variables, published_at, expires_at
		FROM buffered_messages WHERE id = ?`
	// bufferedTakesSQL lists the process keys that took a message. Argument: id.
	bufferedTakesSQL = `SELECT process_key FROM buffered_message_takes WHERE message = ? ORDER BY process_key`
	// sweepBufferedSQL deletes a batch of expired messages (their takes
	// cascade). Arguments: now, limit.
	sweepBufferedSQL = `DELETE FROM buffered_messages WHERE id IN
		(SELECT id FROM buffered_messages WHERE expires_at <= ? ORDER BY expires_at LIMIT ?)`
	// anyBufferedSQL reads one row of the expiry index.
	anyBufferedSQL = `SELECT EXISTS (SELECT 1 FROM buffered_messages)`
	// subscriberKeysSQL lists the process keys with a message wait of a
	// name and correlation key, on waits_messages. Arguments: name,
	// correlation key.
	subscriberKeysSQL = `SELECT DISTINCT process_key FROM waits
		WHERE kind = 'message' AND name = ? AND correlation_key = ?`
	// oldestSubscriberSQL is a process key's oldest message wait of a name
	// and correlation key. Arguments: name, correlation key, process key.
	oldestSubscriberSQL = `SELECT ` + waitColumns + ` FROM waits
		WHERE kind = 'message' AND name = ? AND correlation_key = ? AND process_key = ?
		ORDER BY created_at, id LIMIT 1`
)

func init() {
	writeQueries = append(writeQueries, dropExpiredDuplicateSQL, insertBufferedSQL, insertTakeSQL, sweepBufferedSQL)
	readQueries = append(readQueries, bufferedMatchSQL, bufferedOneSQL, bufferedTakesSQL, anyBufferedSQL, subscriberKeysSQL, oldestSubscriberSQL)
}

// BufferMessage stores m, its takes and the publication's idempotency
// record in one transaction.
func (db *DB) BufferMessage(ctx context.Context, m store.BufferedMessage, takes []store.MessageTake, claim *store.IdempotencyRow) error {
	err := db.writeWith(ctx, func(st *txStmts) error {
		if err := insertIdempotency(st, claim); err != nil {
			return err
		}
		if err := insertBuffered(st, &m); err != nil {
			return err
		}
		return insertTakes(st, takes)
	})
	if err != nil {
		return fmt.Errorf("store: buffer message %s: %w", m.Name, err)
	}
	return nil
}

// applyMessageBuffer writes a step's buffered message and takes in its
// transaction.
func applyMessageBuffer(st *txStmts, s *store.StepRecord) error {
	if s.BufferMessage != nil {
		if err := insertBuffered(st, s.BufferMessage); err != nil {
			return err
		}
	}
	return insertTakes(st, s.MessageTakes)
}

// insertBuffered stores one message, replacing an expired holder of its
// message id.
func insertBuffered(st *txStmts, m *store.BufferedMessage) error {
	if m.MessageID != "" {
		if _, err := st.exec(dropExpiredDuplicateSQL, m.Name, m.CorrelationKey, m.MessageID, encodeTime(m.PublishedAt)); err != nil {
			return fmt.Errorf("replace an expired message: %w", err)
		}
	}
	vars := string(m.Variables)
	if vars == "" {
		vars = "{}"
	}
	res, err := st.exec(insertBufferedSQL, m.ID, m.Name, m.CorrelationKey, m.MessageID, vars,
		encodeTime(m.PublishedAt), encodeTime(m.ExpiresAt))
	if err != nil {
		return fmt.Errorf("insert buffered message: %w", err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("insert buffered message: %w", err)
	} else if n == 0 {
		return fmt.Errorf("message id %q of %q: %w", m.MessageID, m.Name, store.ErrDuplicateMessage)
	}
	return nil
}

// insertTakes records takes; one that inserts nothing fails with
// store.ErrMessageTaken.
func insertTakes(st *txStmts, takes []store.MessageTake) error {
	for _, t := range takes {
		at := encodeTime(t.At)
		res, err := st.exec(insertTakeSQL, t.ProcessKey, string(t.InstanceID), at, t.MessageID, at)
		if err != nil {
			return fmt.Errorf("take buffered message %s: %w", t.MessageID, err)
		}
		if n, err := res.RowsAffected(); err != nil {
			return fmt.Errorf("take buffered message %s: %w", t.MessageID, err)
		} else if n == 0 {
			return fmt.Errorf("buffered message %s for %s: %w", t.MessageID, t.ProcessKey, store.ErrMessageTaken)
		}
	}
	return nil
}

// scanBuffered reads one buffered_messages row.
func scanBuffered(row interface{ Scan(...any) error }) (store.BufferedMessage, error) {
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
	out, err := queryRows(db.readOne(ctx), scanBuffered, bufferedMatchSQL, name, correlationKey, encodeTime(now), processKey, limit)
	if err != nil {
		return nil, fmt.Errorf("store: buffered messages %s: %w", name, err)
	}
	return out, nil
}

// BufferedMessage returns one message and the process keys that took it.
func (db *DB) BufferedMessage(ctx context.Context, id string) (store.BufferedMessage, error) {
	var m store.BufferedMessage
	err := db.readWith(ctx, func(st *txStmts) error {
		var err error
		if m, err = scanBuffered(st.queryRow(bufferedOneSQL, id)); err != nil {
			return err
		}
		m.TakenBy, err = queryRows(st, func(row interface{ Scan(...any) error }) (string, error) {
			var k string
			err := row.Scan(&k)
			return k, err
		}, bufferedTakesSQL, id)
		return err
	})
	if errors.Is(err, sql.ErrNoRows) {
		return store.BufferedMessage{}, fmt.Errorf("store: buffered message %s: %w", id, store.ErrNotFound)
	}
	if err != nil {
		return store.BufferedMessage{}, fmt.Errorf("store: buffered message %s: %w", id, err)
	}
	return m, nil
}

// SweepMessages deletes a batch of expired messages.
func (db *DB) SweepMessages(ctx context.Context, now time.Time, limit int) (int, error) {
	if limit <= 0 {
		limit = 1
	}
	var n int64
	err := db.writeWith(ctx, func(st *txStmts) error {
		res, err := st.exec(sweepBufferedSQL, encodeTime(now), limit)
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("store: sweep buffered messages: %w", err)
	}
	return int(n), nil
}

// AnyBufferedMessages reports whether the buffer holds a message.
func (db *DB) AnyBufferedMessages(ctx context.Context) (bool, error) {
	var found bool
	if err := db.readOne(ctx).queryRow(anyBufferedSQL).Scan(&found); err != nil {
		return false, fmt.Errorf("store: any buffered message: %w", err)
	}
	return found, nil
}

// MessageSubscribers returns the oldest message wait of each process key
// subscribed to name and correlationKey, the oldest first.
func (db *DB) MessageSubscribers(ctx context.Context, name, correlationKey string) ([]store.WaitRow, error) {
	var out []store.WaitRow
	err := db.readWith(ctx, func(st *txStmts) error {
		keys, err := queryRows(st, func(row interface{ Scan(...any) error }) (string, error) {
			var k string
			err := row.Scan(&k)
			return k, err
		}, subscriberKeysSQL, name, correlationKey)
		if err != nil {
			return err
		}
		for _, k := range keys {
			ws, err := queryWaits(st, oldestSubscriberSQL, name, correlationKey, k)
			if err != nil {
				return err
			}
			out = append(out, ws...)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("store: subscribers of message %q: %w", name, err)
	}
	store.SortWaitsByAge(out)
	return out, nil
}
