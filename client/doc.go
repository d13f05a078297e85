// Package client is the Go client of the gobpm REST API (openapi.yaml) and a
// job worker built on it.
//
// # Why hand-written
//
// The client is written by hand rather than generated: the API is small and
// stable, and a generator would hand users one method per route with
// pointer-heavy request structs, while a service wants a few verbs that read
// like the domain (Start, CompleteJob, CorrelateMessage), typed problem
// errors, retries that know which calls are idempotent, and a worker. The
// JSON shapes are copied from openapi.yaml and checked by the tests, which run
// every method against the real router.
//
// # Errors
//
// Every non-2xx answer is a *Problem (RFC 9457); branch on it with errors.As:
//
//	var p *client.Problem
//	if errors.As(err, &p) && p.Status == http.StatusNotFound { … }
//
// # Retries
//
// Only idempotent calls are retried: GET requests and POSTs sent with an
// idempotency key (StartRequest.IdempotencyKey, MessageRequest.IdempotencyKey,
// SignalRequest.IdempotencyKey). They are retried on transport errors and on
// 429, 502, 503 and 504, with exponential backoff, a bounded number of times
// (WithRetries).
//
// # Example
//
//	c, _ := client.New("http://localhost:8080", client.WithToken(os.Getenv("GOBPM_TOKEN")))
//	inst, err := c.Start(ctx, "order-approval", client.StartRequest{Variables: map[string]any{"amount": 120}})
//
// The package imports nothing of gobpm's internals.
package client
