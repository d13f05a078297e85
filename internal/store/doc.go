// Package store is the SQLite implementation of runtime.Store.
//
// # What it owns
//
// The store owns the database file, its pragmas, the schema migrations and
// every SQL statement of the engine. It imports runtime (for the record types
// it persists and the ErrNotFound/ErrConflict sentinels) and migrations, and
// nothing above them: no api, no engine, no HTTP.
//
// # Connections
//
// Open creates two pools on the same file: a writer limited to one
// connection, whose transactions begin IMMEDIATE, and a read pool whose
// connections are query_only. The database runs in WAL mode, so readers never
// block the writer and the writer never blocks readers. Durability defaults
// to synchronous=FULL: a committed step survives a power cut. Throughput comes
// from group commit (CommitSteps takes a batch of steps of distinct instances
// and commits them with one fsync), not from weaker durability;
// Options.Synchronous "NORMAL" is the explicit opt-out.
//
// # Transactions
//
// Every exported method owns its transaction; unexported helpers take a
// *sql.Tx. Reads run in a read-only transaction on the read pool, so a method
// that issues several queries (a page and its total) sees one snapshot.
//
// # Encoding
//
// Times are stored as INTEGER unix nanoseconds and read back in UTC; a zero
// time.Time is stored as NULL where a column may be "not yet" (ended_at,
// resolved_at).
//
// # Definitions
//
// Processes (table definitions, migration 0001) and DMN decisions (table
// decision_definitions, migration 0003) are immutable (key, version) rows of
// the same shape, versioned by the same rule and read by the same
// statements, parameterized by table. Their document is the verbatim
// resource content, kept once in resources.
//
// # Waits
//
// The waits table (migration 0002) is the queryable copy of the waits the
// engine keeps in its checkpoint: jobs, user tasks, timers, message and
// signal subscriptions, plus the start timers of process keys (rows without
// an instance). Steps write it through CommitSteps; only job activation
// (ActivateJobs, ExtendJobLock) writes outside a step, and only the lock
// columns. Activation selects and locks in one IMMEDIATE transaction on the
// single writer, so a job is never handed to two workers under a live lock.
//
// # Outbox
//
// The outbox table (migration 0004) holds the after-commit work of steps
// (runtime.OutboxRow). CommitSteps inserts a step's rows in the step's
// transaction and sets their ids, which increase in write order; the
// runtime lists them oldest first (Outbox), narrows a partly done row
// (UpdateOutbox) and deletes a row once its work is done (DeleteOutbox).
//
// # Example
//
//	db, err := store.Open(ctx, "data/gobpm.db", store.Options{})
//	if err != nil {
//		return err
//	}
//	defer db.Close()
//	procs, decs, err := db.Deploy(ctx, runtime.DeploymentRecord{ID: id, DeployedAt: now, Resources: res})
package store
