package runtime

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"sync/atomic"
	"time"
)

// DefaultIdempotencyWindow is how long an idempotency key is remembered.
const DefaultIdempotencyWindow = 24 * time.Hour

// MaxIdempotencyKeyLen bounds a client's idempotency key.
const MaxIdempotencyKeyLen = 255

type idempotencyKey struct{}

// idempotencyClaim is a request's idempotency key on its way to the one
// step that records it: the first step of the request (the start, the
// message delivery) takes it; steps the request causes later (outbox work,
// children) do not.
type idempotencyClaim struct {
	key   string
	taken atomic.Pointer[IdempotencyRow] // set by the step that records the key
	next  atomic.Pointer[IdempotencyRow] // what the next step of the request records
}

// WithIdempotencyKey returns ctx carrying a client's idempotency key for
// StartInstance and CorrelateMessage: a retry with the same key (and the
// same request) within the window acts no more, it gets the first answer.
// The key is recorded in the transaction of the step the request makes, so
// whether that step committed or not, a retry does the right thing.
func WithIdempotencyKey(ctx context.Context, key string) context.Context {
	if key == "" {
		return ctx
	}
	return context.WithValue(ctx, idempotencyKey{}, &idempotencyClaim{key: key})
}

func claimOf(ctx context.Context) *idempotencyClaim {
	c, _ := ctx.Value(idempotencyKey{}).(*idempotencyClaim)
	return c
}

// CheckIdempotencyKey reports whether key can be a client's idempotency key:
// 1–255 printable ASCII characters.
func CheckIdempotencyKey(key string) error {
	if key == "" || len(key) > MaxIdempotencyKeyLen {
		return &Error{Code: EINVALID, Field: "Idempotency-Key", Message: fmt.Sprintf("an idempotency key has 1 to %d characters", MaxIdempotencyKeyLen)}
	}
	for i := 0; i < len(key); i++ {
		if key[i] < 0x21 || key[i] > 0x7e {
			return &Error{Code: EINVALID, Field: "Idempotency-Key", Message: "an idempotency key is printable ASCII without spaces"}
		}
	}
	return nil
}

// requestHash is the SHA-256 of a request's canonical JSON form (map keys
// sorted, numbers as sent).
func requestHash(parts ...any) ([32]byte, error) {
	b, err := json.Marshal(parts)
	if err != nil {
		return [32]byte{}, fmt.Errorf("runtime: hash the request: %w", err)
	}
	return sha256.Sum256(b), nil
}

// replayable looks up the claim's key in scope: found reports a recorded
// key for the same request (its row returned); a key recorded for another
// request is ECONFLICT.
func (r *Runtime) replayable(ctx context.Context, scoped string, hash [32]byte) (IdempotencyRow, bool, error) {
	row, ok, err := r.store.Idempotency(ctx, scoped, r.now().UTC().Add(-r.idempotencyWindow))
	if err != nil || !ok {
		return IdempotencyRow{}, false, err
	}
	if row.RequestHash != hash {
		return IdempotencyRow{}, false, &Error{Code: ECONFLICT, Field: "Idempotency-Key",
			Message: "this idempotency key was used for a different request; use a new key for a new request"}
	}
	return row, true, nil
}

// prepareClaim arms the claim in ctx (if any) to record scoped with hash
// and answer in the next step of the request. It returns the scoped key
// ("" without a claim).
func (r *Runtime) prepareClaim(ctx context.Context, scope string, hash [32]byte, answer any) (string, error) {
	c := claimOf(ctx)
	if c == nil {
		return "", nil
	}
	body, err := json.Marshal(answer)
	if err != nil {
		return "", fmt.Errorf("runtime: encode the idempotent answer: %w", err)
	}
	now := r.now().UTC()
	scoped := scope + " " + c.key
	c.next.Store(&IdempotencyRow{Key: scoped, RequestHash: hash, Answer: body, CreatedAt: now, ExpiredBefore: now.Add(-r.idempotencyWindow)})
	return scoped, nil
}

// takeClaim hands the armed idempotency record of ctx to the step of
// instance id (nil when there is none or it was taken).
func takeClaim(ctx context.Context, id InstanceID) *IdempotencyRow {
	c := claimOf(ctx)
	if c == nil {
		return nil
	}
	row := c.next.Swap(nil)
	if row == nil {
		return nil
	}
	rec := *row
	rec.InstanceID = id
	c.taken.Store(row)
	return &rec
}

// returnClaim gives a taken record back when its step did not commit, so
// the request's next attempt records it. Only the step that took the
// record calls it: a failing step of other work the request causes later
// must not re-arm a key its first step recorded.
func returnClaim(ctx context.Context) {
	if c := claimOf(ctx); c != nil {
		if row := c.taken.Swap(nil); row != nil {
			c.next.CompareAndSwap(nil, row)
		}
	}
}
