// Package api is gobpm's JSON HTTP API: a chi router, its middleware
// (request ids, request logging, panic recovery), the problem+json error
// table and the handlers of the routes that openapi.yaml documents.
//
// # What it owns
//
// The wire format. Request and response bodies are the DTOs of dto.go, never
// runtime or engine types, so the contract changes only deliberately (in
// openapi.yaml, the README and the tests together). Every error, including an
// unknown route (404) or method (405), is an RFC 9457 problem with a stable
// type URI; problem.go holds the one table that maps runtime error codes to
// HTTP statuses and problem types. Request bodies are size-capped (Options).
//
// # Routes and bodies
//
// routes() in routes.go is the one table of the API: method, pattern, rule
// (an access.Rule, the type the cockpit's table uses too), the resource
// the audit trail names and the handler. New mounts exactly its rows,
// authorize applies each row's rule, and RouteRules reports them; adding a
// route is a row, its handler and its operation in openapi.yaml. A JSON
// body is decoded once (decodeBody in body.go) into the handler's request
// struct, whose Validate checks the members in order and answers the first
// that does not fit as a 400 naming it.
//
// # Wait states
//
// Workers drive service tasks through /api/v1/jobs (activate, complete,
// fail, error, extend); activation long-polls when requestTimeoutMs > 0 and
// the wait is bound to the request context, so a worker that disconnects
// ends it (logged as 499, client-closed-request, never as a server fault).
// A job belongs to its activation: complete, fail, error and extend need the
// lockToken it answered and the same caller (callerUser in jobs.go, the one
// place that names the caller's identity for jobs). Authorization resolves
// job {key} once, for the check on its type and for the act, which takes
// that reference from the request (authorizeJob, jobRefOf).
// People work user tasks through /api/v1/tasks; claim, unclaim and complete
// act as the user of the X-Gobpm-User / X-Gobpm-Groups headers (identity.go,
// openapi.yaml loopback mode) and are refused with 403 without a user.
// Messages and signals come in through /api/v1/messages and /api/v1/signals.
//
// # Decisions
//
// A deployment may carry .dmn files beside .bpmn ones; each decision is
// listed under /api/v1/decisions with its versions and the DMN document it
// came from. POST /api/v1/decisions/{key}/evaluate runs the latest version
// and answers its result with the ids of the matched rules; an evaluation
// that fails (a UNIQUE table with two matches, say) is 422 decision-failed,
// the reasons in detail.
//
// # Metrics
//
// GET /metrics (at the root, like /healthz, never handed to the cockpit
// fallback) answers the Prometheus text format, written by hand in
// metrics.go: the runtime's counters and open waits per kind (Service.Metrics,
// Service.WaitCounts), the request counter and latency histogram the request
// logger records into the router's own httpMetrics (labelled by chi route
// pattern, never the raw path), go_goroutines, go_gc_gogc_percent,
// go_gc_gomemlimit_bytes and process_start_time_seconds.
//
// # Operator tools
//
// GET and POST /api/v1/clock read and move a manual clock (--dev
// --clock=manual; 409 otherwise), DELETE /api/v1/instances/{id} deletes an
// ended instance and its history, and POST /api/v1/admin/backup has the
// server write a backup into its --backup-dir (ops.go).
//
// # Migrations
//
// POST /api/v1/migrations validates a migration plan (a dry run answers
// the validation) and starts a background batch, or answers 400/409 with
// the problems of the plan and of each instance; GET
// /api/v1/migrations/{id} shows its progress (migrations.go).
//
// # What it must not do
//
// It calls the runtime only through the narrow Service interface, never
// engine, scope, bpmn or store. It logs only internal errors, once, on the
// request's log line.
//
// # Example
//
//	rt := … // *runtime.Runtime
//	h := api.New(rt, logger, api.Options{})
//	srv := &http.Server{Addr: "127.0.0.1:8080", Handler: h}
//	_ = srv.ListenAndServe()
//
//	$ curl -s -H 'Content-Type: application/xml' --data-binary @order.bpmn \
//	    'localhost:8080/api/v1/deployments?name=order.bpmn'
//	{"id":"…","processes":[{"key":"order","version":1}],"decisions":[]}
package api
