package store

import (
	"cmp"
	"context"
	"encoding/json"
	"slices"
	"time"
)

// Buffered messages (Camunda 8's message time to live).
//
// A message published with a time to live is kept, durably, until it
// expires. When a step opens a message subscription, the runtime looks for
// the oldest live buffered message with the subscription's name and
// correlation key that the instance's process key has not taken yet
// (BufferedMessages), delivers it in that same step, and the step's record
// names the take (StepRecord.MessageTakes): a message correlates at most
// once per process key, across versions and instances. Expired messages
// are deleted by the housekeeping sweep (SweepMessages); one past its
// ExpiresAt is never returned nor taken, swept or not.

// BufferedMessage is one message kept for the subscriptions that open
// within its time to live.
type BufferedMessage struct {
	// ID is the message's key, minted by the runtime.
	ID string
	// Name and CorrelationKey are what a subscription must match.
	Name           string
	CorrelationKey string
	// MessageID is the publisher's uniqueness id ("" = none): while a
	// message with the same Name, CorrelationKey and MessageID is live, a
	// second one is refused (ErrDuplicateMessage).
	MessageID string
	// Variables are delivered with the message (a JSON object; the store
	// keeps it opaque).
	Variables json.RawMessage
	// PublishedAt orders messages of one name and key (oldest first);
	// ExpiresAt is when the message stops being live (exclusive).
	PublishedAt time.Time
	ExpiresAt   time.Time
	// TakenBy lists the process keys the message has correlated with
	// (filled by BufferedMessage, the single read; empty in lists).
	TakenBy []string
}

// MessageTake is one buffered message correlated in a step: it commits
// only while the message is live at At and ProcessKey has not taken it
// yet; otherwise the step fails with ErrMessageTaken and nothing of it is
// written.
type MessageTake struct {
	MessageID  string
	ProcessKey string
	InstanceID InstanceID
	At         time.Time
}

// Sentinels of the message buffer. Both are ECONFLICT.
var (
	// ErrDuplicateMessage reports a message whose name, correlation key and
	// message id equal those of a live buffered message.
	ErrDuplicateMessage = &Error{Code: ECONFLICT, Message: "a message with this name, correlation key and message id is already buffered"}
	// ErrMessageTaken reports a step whose MessageTakes names a message
	// that expired, was swept, or was taken by the same process key
	// meanwhile; the runtime runs the step again.
	ErrMessageTaken = &Error{Code: ECONFLICT, Message: "the buffered message was taken or expired meanwhile"}
)

// MessageBufferStore is the part of Store that keeps buffered messages.
type MessageBufferStore interface {
	// BufferMessage stores m in a transaction of its own, with the takes
	// of the process keys it already correlated with at publication (each
	// take's MessageID is m.ID) and, when claim is not nil, the
	// publication's idempotency record (a live record of its key fails
	// with ErrConflict and stores nothing). A live message with m's name,
	// correlation key and non-empty message id fails with
	// ErrDuplicateMessage; an expired one (ExpiresAt <= m.PublishedAt) is
	// replaced.
	BufferMessage(ctx context.Context, m BufferedMessage, takes []MessageTake, claim *IdempotencyRow) error
	// AnyBufferedMessages reports whether any message is buffered, live or
	// expired but not swept yet (one indexed row read).
	AnyBufferedMessages(ctx context.Context) (bool, error)
	// MessageSubscribers returns, for each process key with a message wait
	// of this name and exactly this correlation key, its oldest such wait
	// (created at, then id), the oldest first. It reads the message-wait
	// index: its cost follows the waits of that name and key.
	MessageSubscribers(ctx context.Context, name, correlationKey string) ([]WaitRow, error)
	// BufferedMessages returns at most limit messages with the name and
	// correlation key that are live at now and that processKey has not
	// taken, oldest first (PublishedAt, then ID). It reads an index on
	// (name, correlation key, published at); it never scans the table.
	BufferedMessages(ctx context.Context, name, correlationKey, processKey string, now time.Time, limit int) ([]BufferedMessage, error)
	// BufferedMessage returns one message by id with the process keys that
	// took it, expired or not, until it is swept; ErrNotFound otherwise.
	BufferedMessage(ctx context.Context, id string) (BufferedMessage, error)
	// SweepMessages deletes at most limit messages expired at now (with
	// their takes), earliest expiry first, in one transaction, and returns
	// how many it deleted.
	SweepMessages(ctx context.Context, now time.Time, limit int) (int, error)
}

// SortWaitsByAge orders waits oldest first: by CreatedAt, then ID (the
// order of MessageSubscribers).
func SortWaitsByAge(ws []WaitRow) {
	slices.SortFunc(ws, func(a, b WaitRow) int {
		if c := a.CreatedAt.Compare(b.CreatedAt); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	})
}
