// Package postgres is the PostgreSQL implementation of store.Store and
// access.Store, for when one SQLite file is not enough.
//
// # What it owns
//
// The store owns its connection pool, its schema migrations (embedded from
// postgres/migrations, applied by Open and recorded in schema_migrations)
// and every SQL statement it runs. It has the same semantics as the SQLite
// store (internal/store/sqlite): ordering, store.ErrNotFound and
// store.ErrConflict, revisions, keyset cursors, group commit, outbox,
// idempotency keys, job locks, audit and access tables. One conformance
// suite (internal/store/storetest) runs against both. What does not
// depend on the dialect is shared: time and list encodings and record
// checks through internal/store/sqlcodec, limits, shared queries and
// migration file rules through internal/store/sqlquery. It imports store,
// access and auth for the records it persists, and nothing above them:
// no runtime.
//
// # Connections
//
// Open takes a postgres:// or postgresql:// URL (IsURL). The pool size is
// Options.MaxConns, else the URL's pool_max_conns, else DefaultMaxConns;
// every statement is bounded by Options.StatementTimeout, else the URL's
// statement_timeout (milliseconds), else DefaultStatementTimeout.
// Migrations run without that bound, under an advisory lock, so nodes
// that start together migrate once.
//
// # Transactions and concurrency
//
// Every exported method owns its transaction. Reads of several
// statements run in one read-only REPEATABLE READ transaction (one
// snapshot); writes run READ COMMITTED and guard against concurrent
// writers row by row, so the store stays correct when several processes
// share the database:
//
//   - a step updates its instance only WHERE revision = PrevRevision; a
//     concurrent step of the same instance waits for the row and then
//     finds the revision moved on: store.ErrConflict, never a lost
//     update;
//   - job activation picks jobs with SELECT … FOR UPDATE SKIP LOCKED, so
//     two activations never take the same job; a step carrying a
//     LockGuard locks the job's row (FOR UPDATE) while it checks the
//     token, so no activation slips in before it commits;
//   - deployments serialize on an advisory lock, so two never mint the
//     same version;
//   - a commit that creates instances first raises each process key's
//     counter in instance_numbers (INSERT … ON CONFLICT DO UPDATE, in key
//     order), which holds the key's row until it commits, so two nodes
//     never hand out the same instance number (migration 0005);
//   - numeric keys (store.KeyStore, migration 0010, keys.go) come from
//     the sequence entity_keys_seq, so two nodes never hand out the same
//     key; (kind, id) is unique, and a key is added only when the entity
//     has none (INSERT … SELECT … WHERE NOT EXISTS … ON CONFLICT DO
//     NOTHING), so rewriting an entity keeps its key.
//
// A group commit (CommitSteps) is two round trips: BEGIN and every
// statement of its steps in one pipelined batch, then COMMIT (commit.go).
//
// # Several nodes
//
// The store is also a store.ClusterStore (cluster.go, migration 0004):
// nodes register and heart-beat in cluster_nodes on the database's clock;
// due timers and outbox rows are claimed by one node (claimed_by, picked
// FOR UPDATE SKIP LOCKED), a claim holding while its node is registered;
// a step's outbox rows are claimed at insert by the node that commits it
// (Options.NodeID); once a commit that made jobs activatable or armed
// timers is durable, a wake-up goes out with pg_notify (wake.go), which
// Listen receives on the other nodes. A stale revision is store.ErrStale (and
// ErrConflict), so the runtime re-runs the step. Each step's commit makes
// its node the instance's home (instances.home_node, migration 0020);
// activation and timer claims leave a job or timer of an instance homed on
// another registered node to that node for Options.HomeGrace.
//
// # Encoding
//
// Times are BIGINT unix nanoseconds, exactly as in SQLite, so a time
// round-trips to the nanosecond. Ids are TEXT; ordered text columns use
// the "C" collation (byte order, as SQLite compares). JSON the store keeps
// verbatim (outbox payloads, idempotency answers) is TEXT; candidate
// lists are JSONB so task filters can test membership.
//
// # Example
//
//	db, err := postgres.Open(ctx, "postgres://gobpm@db.internal/gobpm", postgres.Options{MaxConns: 32})
//	if err != nil {
//		return err
//	}
//	defer db.Close()
package postgres
