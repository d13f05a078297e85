// Package sqlite is the SQLite implementation of store.Store and
// access.Store, gobpm's default store. Its PostgreSQL sibling is
// internal/store/postgres; both pass the conformance suite in
// internal/store/storetest and share the column encoding
// (internal/store/sqlcodec) and the queries that do not depend on the
// dialect (internal/store/sqlquery).
//
// # What it owns
//
// The store owns the database file, its pragmas, the schema migrations and
// every SQL statement of the engine. It imports store (for the record types
// it persists and the ErrNotFound/ErrConflict sentinels), sqlcodec, sqlquery
// and its migrations (internal/store/sqlite/migrations), and nothing above
// them: no runtime, no api, no HTTP.
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
// Statements are prepared once per pool and reused (stmtCache): Open
// prepares the known ones, and a method whose SQL depends on its filter
// prepares that shape before its transaction begins. Inside a transaction
// they are bound with Tx.StmtContext, so SQLite parses each query once per
// connection, not per call.
//
// # Instance state
//
// An instance's state is a small header (instances.state) plus parts in
// instance_parts keyed by (instance, kind, key) (migration 0005): a step
// writes only the parts it created, changed or removed, so its cost follows
// the change, not the instance's size. Parts are opaque to the store;
// their kinds, like fact kinds, are named once in the kinds table. Rows
// written before 0005 hold a whole format-1 checkpoint (state_format 1)
// until the runtime upgrades them with ReplaceState (LegacyInstances lists
// them); a step never updates such a row.
//
// instance_parts is a rowid table with a unique index on (instance, kind,
// key) (migration 0024), not a WITHOUT ROWID table: there, rows were the
// cells of the key's B-tree, and a part of several MB became a cell every
// seek past it read whole, so a step removing thousands of parts beside it
// held the writer for minutes. Now a seek reads index cells of a few bytes
// and then the one row it wants. A step that removes many parts deletes
// each kind's keys in batches (removeParts).
//
// Facts and parts refer to their instance by an integer surrogate key
// (instances.seq), so the instance id is stored once. The facts one step
// appends are one row (encodeFacts), their times relative to the
// instance's creation; History decodes the rows after a seq and stops at
// its limit, so a page may start or end inside a step.
//
// # Lists
//
// Every ListInstances filter reads one index whose equality prefix it
// fills and whose next column is created_at, so a page costs what it
// returns (plus Offset), never the number of matches; the total stops
// counting at MaxListTotal. InstanceFilter.After pages by keyset.
//
// # Encoding
//
// Times are stored as INTEGER unix nanoseconds and read back in UTC; a zero
// time.Time is stored as NULL where a column may be "not yet" (ended_at,
// resolved_at). Instance, wait and job ids and part keys that are
// canonical UUIDs are stored as 16-byte BLOBs, the engine's wait ids
// "<UUID>-w000001" as the UUID's bytes and an order-preserving counter,
// others as TEXT (dbID; EncodeID and DecodeID for tools reading the file).
// A part key "<the instance's id>-w000001" is the INTEGER counter
// (partKey). The JSON the store keeps opaque for an instance (its header,
// part data, fact details) is packed: each occurrence of the instance's
// own id and each of a fixed table of phrases every instance repeats
// (keys and their punctuation) is written as one byte (abbreviate, pack,
// expand); everything round-trips exactly. No general-purpose compression
// is applied (small rows would not gain).
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
// The waits table (migrations 0002, 0005) is the queryable copy of the
// waits the engine keeps in its state: jobs, user tasks, timers, message and
// signal subscriptions, plus the start timers of process keys (rows without
// an instance). Steps write it through CommitSteps; only job activation
// (ActivateJobs, ExtendJobLock) writes outside a step, and only the lock
// columns. Activation selects and locks in one IMMEDIATE transaction on the
// single writer, so a job is never handed to two workers under a live lock.
// Since migration 0007 a lock also keeps the activating user and the
// SHA-256 hash of its lock token (never the token); a step that acts on a
// job carries a LockGuard, checked in the step's transaction. The
// server_secrets table (0007) keeps secrets made on a database's first
// start (ServerSecret), such as the key that signs job keys.
// A wait whose id names its instance ("<instance UUID>-w000001", every
// wait the engine creates but a call's) leaves instance_id NULL: the
// instance's waits are then a range of the primary key, and
// waits_instance indexes only the others (start timers, a call activity's
// wait, whose id is its child's fresh UUID, other ids).
//
// # Instance numbers
//
// Every instance has a number among the instances of its process key
// (instances.number, migration 0012), 1, 2, 3… in start order: CommitSteps
// raises the key's counter in instance_numbers once per batch and hands
// the run out (sqlquery.NumberOrder: a caller before the children it
// calls), reporting each number back in the committed StepRecord. A number
// is never reused; instances_number (number, process_key) keeps them
// unique and serves the number filter.
//
// # Numeric keys
//
// entity_keys (migration 0017, keys.go) holds the numeric key of every
// process instance, job, user task, incident, deployment and process
// version (store.KeyStore): the key is the rowid, handed out by
// AUTOINCREMENT from 1<<51 on, so none is ever reused; (kind, id) is
// unique and finds an entity's key. The statement that writes the
// entity's row adds its key in the same transaction, unless it has one,
// and the statements that delete entities (removed and ended waits,
// retention) delete their keys, each by an index probe.
//
// # Outbox
//
// The outbox table (migration 0004) holds the after-commit work of steps
// (store.OutboxRow). CommitSteps inserts a step's rows in the step's
// transaction and sets their ids, which increase in write order; the
// runtime lists them oldest first (Outbox), narrows a partly done row
// (UpdateOutbox) and deletes a row once its work is done (DeleteOutbox).
//
// # Retention and backups
//
// DeleteEndedInstances (retention.go) picks a batch of one process
// version's ended instances from instances_ended (migration 0010, a
// partial index of completed and terminated instances by version and end
// time) and deletes each with its facts, parts, incidents and waits in one
// write transaction; DeleteInstance does it for one, saying why it may
// not. Backup (backup.go) copies the database with VACUUM INTO on a
// read-only connection of its own, so the writer is never blocked; the
// package function Backup does the same for a file no store has open.
//
// # Migration batches
//
// CreateMigration (migration.go, migration 0011) stores a batch and its
// instances, in order, each pending; SetMigrationItem records each
// outcome and FinishMigration completes it. RunningMigrations lists what a
// restart resumes. A step's update writes the instance's process version,
// which changes when it is migrated.
//
// # Example
//
//	db, err := store.Open(ctx, "data/gobpm.db", store.Options{})
//	if err != nil {
//		return err
//	}
//	defer db.Close()
//	procs, decs, err := db.Deploy(ctx, store.DeploymentRecord{ID: id, DeployedAt: now, Resources: res})
package sqlite
