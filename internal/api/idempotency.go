package api

import (
	"context"
	"net/http"

	"github.com/gobpm/gobpm/internal/runtime"
)

// Idempotency headers.
const (
	// HeaderIdempotencyKey carries a client's idempotency key on starts and
	// messages: a retry with the same key acts no more, it gets the answer
	// of the first request.
	HeaderIdempotencyKey = "Idempotency-Key"
	// HeaderIdempotentReplayed marks the answer to such a retry of a start.
	HeaderIdempotentReplayed = "Idempotent-Replayed"
)

// idempotent returns the request's context carrying its idempotency key:
// the Idempotency-Key header, or body, the requestId member of its body
// ("" without one; both must agree when both are given). Without either,
// ctx is unchanged.
func idempotent(r *http.Request, body string) (context.Context, error) {
	key := r.Header.Get(HeaderIdempotencyKey)
	switch {
	case key == "":
		key = body
	case body != "" && body != key:
		return nil, errorf(kindInvalidRequest, "requestId", "requestId and the "+HeaderIdempotencyKey+" header differ; send one of them")
	}
	if key == "" {
		return r.Context(), nil
	}
	if err := runtime.CheckIdempotencyKey(key); err != nil {
		return nil, err
	}
	return runtime.WithIdempotencyKey(r.Context(), key), nil
}
