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
