package api

import (
	"context"
	"encoding/json"
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
// the Idempotency-Key header, or the requestId member of the body (both
// must agree when both are given). Without either, ctx is unchanged.
func idempotent(r *http.Request, members map[string]json.RawMessage) (context.Context, error) {
	body, err := stringField(members, "requestId")
	if err != nil {
		return nil, err
	}
	return idempotentAs(r, body)
}

// idempotentAs is idempotent for the requestId member body (a request
// struct decoded already; "" without one).
func idempotentAs(r *http.Request, body string) (context.Context, error) {
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
