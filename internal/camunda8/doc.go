// Package camunda8 serves Camunda 8's REST v2 API (the "orchestration
// cluster" API) under /v2, so Camunda 8 job workers and clients (the
// @camunda8/sdk, @camunda8/orchestration-cluster-api) work unchanged
// against gobpm.
//
// # What it is
//
// A thin adapter over the runtime's Camunda 8 layer (runtime/camunda8.go),
// which the Zeebe gateway (internal/zeebe) calls too: it reads Camunda 8's
// request shapes, asks the Guard the mounting API gives it whether the
// caller may act on the resource, calls the runtime, and answers Camunda
// 8's shapes (keys as strings of digits, camelCase) and its RFC 9457
// problem bodies. internal/api mounts it beside /api/v1 on the same port,
// behind the same authentication and one access rule per route.
//
// # Files
//
//   - handler.go: New, the route table, problems (errors.go)
//   - jobs.go: activation, completion, failure, error, PATCH
//   - instances.go: create (with awaitCompletion), cancellation, search,
//     element instance variables
//   - deployments.go: multipart deployments
//   - events.go: message publication and correlation, signal broadcast
//   - tasks.go: user task search, assignment, completion
//   - incidents.go: incident search and resolution
//   - cluster.go: topology and license
//
// It imports the runtime and chi, never internal/api (the api imports it).
package camunda8
