// Package scope owns the execution-scope tree of one process instance
// (docs/scopes.md#scopes): scopes with ids and display paths, their local data
// containers, variable walk-up and the write rule of docs/scopes.md#variables.
//
// A Tree is plain data: it serializes to JSON as part of the instance
// checkpoint and has no I/O, no clock and no locking. The engine's single
// writer owns it.
//
// # Paths and ids
//
// The root scope has the path "/". A scope opened for a container node
// "orders" inside the root has the path "/orders"; a nested one
// "/orders/retry". Concurrent instantiations of the same container (re-entry,
// later multi-instance and non-interrupting handlers) get distinct ids while
// sharing the path.
//
// This package imports nothing from gobpm.
package scope
