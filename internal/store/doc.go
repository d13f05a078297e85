// Package store is gobpm's storage contract: the records the runtime
// persists, the Store interface with its parts (HousekeepingStore,
// MigrationStore, KeyStore, ClusterStore), and the error codes and
// sentinels every store answers with. keys.go says what the numeric keys
// (Camunda 8's names for instances, jobs, user tasks, incidents,
// deployments and process versions) are. It holds no driver and runs no query.
//
// # Who uses it
//
// The runtime (internal/runtime) programs against Store and re-exports
// these names under its own (runtime.InstanceID is store.InstanceID), so
// its callers need not import this package. The drivers beneath it
// implement Store: internal/store/sqlite (the default, with its schema
// migrations beside it) and internal/store/postgres. Both pass the one
// conformance suite, internal/store/storetest, and share what does not
// depend on their SQL dialect through internal/store/sqlcodec (column
// encoding, record checks) and internal/store/sqlquery (shared queries and
// the rules behind them). Only cmd/ and tests pick a driver and hand it to
// the runtime.
//
// # What it must not import
//
// It is a leaf of the storage layer: it imports engine (Part, PartRef)
// and scope (the root scope's id) and nothing above them: never runtime,
// a driver, or anything with I/O.
//
// # Errors
//
// ErrorCode returns an error's code (ENOTFOUND, ECONFLICT, EINVALID,
// EFORBIDDEN), EINTERNAL for anything unknown. Conditions callers branch on
// have sentinels, matched with errors.Is:
//
//	if errors.Is(err, store.ErrNotFound) {
//		// unknown id
//	}
package store
