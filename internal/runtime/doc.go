// Package runtime is gobpm's service layer (docs/architecture.md): it deploys models
// into the versioned registry, starts and drives instances, and answers the
// reads of the API and the cockpit.
//
// # Processing model
//
// Every change to an instance is a step: the runtime takes the instance's
// lock (one writer per instance), loads its checkpoint, applies the pure
// engine.Step, and commits the new checkpoint with its history facts and
// incidents in one store transaction before it answers. Steps of different
// instances that are ready together share one transaction and one fsync
// (group commit, see committer.go), each still all or nothing.
//
// # After-commit work
//
// What a step asks to happen once it is durable (broadcast a thrown signal,
// hand an ended child's outcome to its caller, terminate a child whose call
// was withdrawn) is written as outbox rows in the step's transaction and
// performed from them after the commit; rows left by a crash or a failed
// attempt are performed by Resume and retried by the scheduler. Delivery is
// at least once: a crash between the work and the delete of its row may
// deliver a signal twice (see outbox.go).
//
// # Jobs
//
// A job belongs to the worker that activated it (jobs.go, jobkeys.go): the
// runtime mints a random lock token per activated job (the store keeps its
// hash with the lock, in the activation's one statement) and hands out the
// job under a public key, "<wait id>.<mac>", signed with a secret kept in
// the store. Complete, fail, error and extend verify the key, the token
// (against the lock, again in the acting step's transaction) and the
// caller's identity. The engine knows none of this: it names jobs by wait
// id, and so do facts and the history.
//
// # Housekeeping
//
// The clock is Options.Now, or a manual clock (clock.Manual, clock.go) that only SetClock
// and AdvanceClock move: they fire the timers due at the new time before
// they return and wake the scheduler and job long polls. The history
// cleaner (retention.go) deletes ended instances past their process
// version's time to live in small transactions, never a running or failed
// instance nor the child of a running caller; DeleteInstance does the same
// for one instance at once. Backup (backup.go) has the store copy the
// database into Options.BackupDir.
//
// # Migrations
//
// StartMigration (migrate.go) validates a plan — source and target
// version, element mapping — against both models and every selected
// instance (engine.CheckMigration), stores the batch (MigrationStore) and
// migrates its instances one by one in a goroutine, each in one step of
// its own (engine.Migrate) whose record carries the target version, so
// the instance row and its waits move with the state. Close stops a batch
// after the instance in hand; ResumeInstances resumes it from its pending
// items.
//
// # Several nodes
//
// A store that several processes share implements ClusterStore (the
// PostgreSQL store does); the runtime is then one node of a cluster
// (cluster.go): a step another node's commit overtook (ErrStale) is re-run
// on the new state, due timers and outbox rows are claimed by one
// registered node, the node heart-beats and takes over the claims of
// silent nodes, and commits wake the other nodes' long polls and
// schedulers. On any other store none of this runs and no step pays for
// it.
//
// The Store interface it needs is the storage contract in package store
// (internal/store), re-exported here under the runtime's names
// (contract.go); the drivers beneath it (internal/store/sqlite,
// internal/store/postgres) implement it, and cmd/ or a test hands one to
// New. The runtime imports store but no driver, and no HTTP.
package runtime
