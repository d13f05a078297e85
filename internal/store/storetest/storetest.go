// Package storetest is the conformance suite every implementation of
// gobpm's stores passes: the SQLite store (internal/store/sqlite) and the
// PostgreSQL store (internal/store/postgres) run the same tests through Run,
// as riverqueue/river runs one suite per database driver.
//
// # What belongs here
//
// Every test of behaviour a caller of store.Store or access.Store can
// observe: ordering, paging and cursors, ErrNotFound and ErrConflict,
// revisions, group commit, waits and job locks, outbox, idempotency keys,
// definitions, audit, users, groups, grants, tokens and sessions. Tests of
// one store's internals (SQLite's file, pragmas, id encodings, query plans,
// legacy upgrades) stay beside that store, with a comment saying why.
//
// # Example
//
//	func TestConformance(t *testing.T) {
//		storetest.Run(t, func(tb testing.TB) *storetest.Harness {
//			db := MustOpen(tb)
//			return &storetest.Harness{Store: db, Exec: …, Query: …, Reopen: …}
//		})
//	}
package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/gobpm/gobpm/internal/access"
	"github.com/gobpm/gobpm/internal/store"
)

// Store is what the suite tests: the runtime's store and the access
// store, plus two inspection methods every store offers for tools.
type Store interface {
	store.Store
	store.StatisticsStore
	store.SavedFilterStore
	access.Store
	// Parts returns at most limit parts (limit <= 0: all) of one kind of an
	// instance with Ord > afterOrd, by Ord then key; ErrNotFound for an
	// unknown instance.
	Parts(ctx context.Context, id store.InstanceID, kind string, afterOrd int64, limit int) ([]store.Part, error)
	// PartCounts returns how many parts of each kind an instance has.
	PartCounts(ctx context.Context, id store.InstanceID) (map[string]int, error)
}

// Harness is one fresh store of one test, with raw access to its database
// for the few tests that must set up or inspect what no method exposes.
type Harness struct {
	Store
	// Exec runs one statement written with ? placeholders.
	Exec func(query string, args ...any) error
	// Query runs one query written with ? placeholders and returns the
	// values of every row (integers as int64, blobs as []byte).
	Query func(query string, args ...any) ([][]any, error)
	// Reopen opens another store on the same database (after a Close of
	// this one, or beside it, like a restart or a second node); it is
	// closed when the test ends.
	Reopen func(tb testing.TB) *Harness
}

// Opener opens a fresh, empty store for one test; the store is closed
// when the test ends.
type Opener func(tb testing.TB) *Harness

// tests is the suite, by name; Run runs each as a subtest.
var tests = []struct {
	name string
	fn   func(t *testing.T, open Opener)
}{
	{"Users", testUsers},
	{"Statistics", testStatistics},
	{"StatisticsOpenItems", testStatisticsOpenItems},
	{"GroupsAndMembers", testGroupsAndMembers},
	{"AddGrant", testAddGrant},
	{"GrantsAndRemoveGrant", testGrantsAndRemoveGrant},
	{"StoredGrantOutlivesItsRule", testStoredGrantOutlivesItsRule},
	{"GrantsFor", testGrantsFor},
	{"DeleteUserCascades", testDeleteUserCascades},
	{"DeleteGroupCascades", testDeleteGroupCascades},
	{"Tokens", testTokens},
	{"TokenSecretsStayOut", testTokenSecretsStayOut},
	{"Sessions", testSessions},
	{"AppendAudit", testAppendAudit},
	{"AuditFilters", testAuditFilters},
	{"AuditPaging", testAuditPaging},
	{"AuditLimits", testAuditLimits},
	{"DeployVersioning", testDeployVersioning},
	{"DeployDuplicateIDConflicts", testDeployDuplicateIDConflicts},
	{"DefinitionLookups", testDefinitionLookups},
	{"DeployRollsBackDecisions", testDeployRollsBackDecisions},
	{"DecisionLookups", testDecisionLookups},
	{"CommitSteps", testCommitSteps},
	{"InstanceNumbers", testInstanceNumbers},
	{"InstanceNumbersConcurrent", testInstanceNumbersConcurrent},
	{"CommitStepsRace", testCommitStepsRace},
	{"CallWaitIDs", testCallWaitIDs},
	{"ListInstances", testListInstances},
	{"ListInstancesTotalIsCapped", testListInstancesTotalIsCapped},
	{"History", testHistory},
	{"HistoryExport", testHistoryExport},
	{"Incidents", testIncidents},
	{"IncidentAncestry", testIncidentAncestry},
	{"ElementCounts", testElementCounts},
	{"IndexTokens", testIndexTokens},
	{"VariableIndex", testVariableIndex},
	{"VariableSearch", testVariableSearch},
	{"SavedFilters", testSavedFilters},
	{"ListFilters", testListFilters},
	{"ListSort", testListSort},
	{"InstanceRows", testInstanceRows},
	{"RunningInstances", testRunningInstances},
	{"Outbox", testOutbox},
	{"ServerSecret", testServerSecret},
	{"ServerSecretRace", testServerSecretRace},
	{"WaitRoundTrip", testWaitRoundTrip},
	{"CommitStepsWaits", testCommitStepsWaits},
	{"DeleteEndedInstances", testDeleteEndedInstances},
	{"DeleteInstance", testDeleteInstance},
	{"ActivateJobs", testActivateJobs},
	{"ActivateJobsTokens", testActivateJobsTokens},
	{"LockGuard", testLockGuard},
	{"ActivateJobsConcurrent", testActivateJobsConcurrent},
	{"NextJobAvailable", testNextJobAvailable},
	{"ExtendJobLock", testExtendJobLock},
	{"Tasks", testTasks},
	{"CompletedTasks", testCompletedTasks},
	{"Timers", testTimers},
	{"MessageSubscriptions", testMessageSubscriptions},
	{"MessageBuffer", testMessageBuffer},
	{"MessageSubscribers", testMessageSubscribers},
	{"SignalSubscriptions", testSignalSubscriptions},
	{"StartTimers", testStartTimers},
	{"InstanceWaits", testInstanceWaits},
	{"WaitCounts", testWaitCounts},
	{"InstanceWaitsPage", testInstanceWaitsPage},
	{"WaitsPage", testWaitsPage},
	{"JobErrorDetails", testJobErrorDetails},
	{"JobErrorDetailsInStep", testJobErrorDetailsInStep},
	{"JobTraceContext", testJobTraceContext},
	{"Restart", testRestart},
	{"ConcurrentReadersAndWriter", testConcurrentReadersAndWriter},
	{"StepParts", testStepParts},
	{"PartsPaging", testPartsPaging},
	{"RemoveManyPartsBesideBigPart", testRemoveManyPartsBesideBigPart},
	{"PartsAllOrNothing", testPartsAllOrNothing},
	{"Migrations", testMigrations},
	{"Batches", testBatches},
	{"BatchLease", testBatchLease},
	{"CommitStepsMigratesVersion", testCommitStepsMigratesVersion},
	{"DeployedBy", testDeployedBy},
	{"NumericKeys", testNumericKeys},
	{"NumericKeysDeleted", testNumericKeysDeleted},
	{"NumericKeysConcurrent", testNumericKeysConcurrent},
}

// Run runs the whole suite against the stores open returns.
func Run(t *testing.T, open Opener) {
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { tt.fn(t, open) })
	}
}

// t0 is the base time of fixtures; it has nanoseconds to prove exact round trips.
var t0 = time.Date(2025, 3, 14, 15, 9, 26, 535897932, time.UTC)
