package runtime

import "github.com/gobpm/gobpm/internal/store"

// The storage contract — the records the runtime persists, the Store
// interface and its parts, the error codes and sentinels — lives in the
// leaf package internal/store, which the drivers (internal/store/sqlite,
// internal/store/postgres) implement without importing the runtime. The
// names below keep the runtime's callers reading runtime.X: each is the
// store's own type, constant or value, not a copy.

// Error codes, the error type and the stores' sentinels: the same values as
// the store package's, so errors.Is matches either name.
type (
	// Error is store.Error.
	Error = store.Error
)

const (
	// ENOTFOUND is store.ENOTFOUND.
	ENOTFOUND = store.ENOTFOUND
	// ECONFLICT is store.ECONFLICT.
	ECONFLICT = store.ECONFLICT
	// EINVALID is store.EINVALID.
	EINVALID = store.EINVALID
	// EFORBIDDEN is store.EFORBIDDEN.
	EFORBIDDEN = store.EFORBIDDEN
	// EINTERNAL is store.EINTERNAL.
	EINTERNAL = store.EINTERNAL
)

var (
	// ErrNotFound is store.ErrNotFound.
	ErrNotFound = store.ErrNotFound
	// ErrConflict is store.ErrConflict.
	ErrConflict = store.ErrConflict
	// ErrLockLost is store.ErrLockLost.
	ErrLockLost = store.ErrLockLost
)

// ErrorCode returns the code of err, EINTERNAL for anything unknown (store.ErrorCode).
func ErrorCode(err error) string { return store.ErrorCode(err) }

// Errorf builds an *Error with a formatted message (store.Errorf).
func Errorf(code, format string, args ...any) *Error { return store.Errorf(code, format, args...) }

// The records a step writes and the Store interface.
type (
	// InstanceID is store.InstanceID.
	InstanceID = store.InstanceID
	// Resource is store.Resource.
	Resource = store.Resource
	// ProcessDecl is store.ProcessDecl.
	ProcessDecl = store.ProcessDecl
	// DeploymentRecord is store.DeploymentRecord.
	DeploymentRecord = store.DeploymentRecord
	// DefinitionRef is store.DefinitionRef.
	DefinitionRef = store.DefinitionRef
	// DefinitionRecord is store.DefinitionRecord.
	DefinitionRecord = store.DefinitionRecord
	// InstanceRow is store.InstanceRow.
	InstanceRow = store.InstanceRow
	// FactRow is store.FactRow.
	FactRow = store.FactRow
	// IncidentFilter is store.IncidentFilter.
	IncidentFilter = store.IncidentFilter
	// IncidentRow is store.IncidentRow.
	IncidentRow = store.IncidentRow
	// StepRecord is store.StepRecord.
	StepRecord = store.StepRecord
	// JobErrorDetails is store.JobErrorDetails.
	JobErrorDetails = store.JobErrorDetails
	// TokenRow is store.TokenRow.
	TokenRow = store.TokenRow
	// ElementCount is store.ElementCount.
	ElementCount = store.ElementCount
	// LockGuard is store.LockGuard.
	LockGuard = store.LockGuard
	// IdempotencyRow is store.IdempotencyRow.
	IdempotencyRow = store.IdempotencyRow
	// Part is store.Part.
	Part = store.Part
	// PartRef is store.PartRef.
	PartRef = store.PartRef
	// OutboxRow is store.OutboxRow.
	OutboxRow = store.OutboxRow
	// StoredInstance is store.StoredInstance.
	StoredInstance = store.StoredInstance
	// LegacyInstance is store.LegacyInstance.
	LegacyInstance = store.LegacyInstance
	// InstanceFilter is store.InstanceFilter.
	InstanceFilter = store.InstanceFilter
	// Store is store.Store.
	Store = store.Store
)

const (
	// StatusRunning is store.StatusRunning.
	StatusRunning = store.StatusRunning
	// StatusCompleted is store.StatusCompleted.
	StatusCompleted = store.StatusCompleted
	// StatusTerminated is store.StatusTerminated.
	StatusTerminated = store.StatusTerminated
	// StatusFailed is store.StatusFailed.
	StatusFailed = store.StatusFailed
	// OutboxSignal is store.OutboxSignal.
	OutboxSignal = store.OutboxSignal
	// OutboxChildEnded is store.OutboxChildEnded.
	OutboxChildEnded = store.OutboxChildEnded
	// OutboxCancelChild is store.OutboxCancelChild.
	OutboxCancelChild = store.OutboxCancelChild
	// MaxListTotal is store.MaxListTotal.
	MaxListTotal = store.MaxListTotal
	// SortCreated is store.SortCreated.
	SortCreated = store.SortCreated
	// SortNumber is store.SortNumber.
	SortNumber = store.SortNumber
	// SortProcess is store.SortProcess.
	SortProcess = store.SortProcess
	// SortStatus is store.SortStatus.
	SortStatus = store.SortStatus
	// SortEnded is store.SortEnded.
	SortEnded = store.SortEnded
)

// Waits, task lists and job locks.
type (
	// WaitRow is store.WaitRow.
	WaitRow = store.WaitRow
	// TaskFilter is store.TaskFilter.
	TaskFilter = store.TaskFilter
	// TaskOrder is store.TaskOrder.
	TaskOrder = store.TaskOrder
	// Actor is store.Actor.
	Actor = store.Actor
	// JobLock is store.JobLock.
	JobLock = store.JobLock
	// WaitPageFilter is store.WaitPageFilter.
	WaitPageFilter = store.WaitPageFilter
	// WaitCursor is store.WaitCursor.
	WaitCursor = store.WaitCursor
)

const (
	// WaitJob is store.WaitJob.
	WaitJob = store.WaitJob
	// WaitTask is store.WaitTask.
	WaitTask = store.WaitTask
	// WaitTimer is store.WaitTimer.
	WaitTimer = store.WaitTimer
	// WaitMessage is store.WaitMessage.
	WaitMessage = store.WaitMessage
	// WaitSignal is store.WaitSignal.
	WaitSignal = store.WaitSignal
	// WaitStartTimer is store.WaitStartTimer.
	WaitStartTimer = store.WaitStartTimer
	// TaskOrderOldest is store.TaskOrderOldest.
	TaskOrderOldest = store.TaskOrderOldest
	// TaskOrderNewest is store.TaskOrderNewest.
	TaskOrderNewest = store.TaskOrderNewest
	// TaskOrderDue is store.TaskOrderDue.
	TaskOrderDue = store.TaskOrderDue
)

// Completed user tasks.
type (
	// CompletedTaskRow is store.CompletedTaskRow.
	CompletedTaskRow = store.CompletedTaskRow
	// CompletedTaskFilter is store.CompletedTaskFilter.
	CompletedTaskFilter = store.CompletedTaskFilter
)

// Incident ancestry.
type (
	// IncidentAncestor is store.IncidentAncestor.
	IncidentAncestor = store.IncidentAncestor
)

// Deployers.
type (
	// Deployer is store.Deployer.
	Deployer = store.Deployer
)

// Several nodes on one database.
type (
	// NodeInfo is store.NodeInfo.
	NodeInfo = store.NodeInfo
	// NodeRow is store.NodeRow.
	NodeRow = store.NodeRow
	// Wake is store.Wake.
	Wake = store.Wake
	// ClusterStore is store.ClusterStore.
	ClusterStore = store.ClusterStore
)

var (
	// ErrStale is store.ErrStale.
	ErrStale = store.ErrStale
)

// History retention and backups.
type (
	// RetentionFilter is store.RetentionFilter.
	RetentionFilter = store.RetentionFilter
	// HousekeepingStore is store.HousekeepingStore.
	HousekeepingStore = store.HousekeepingStore
)

// Migration batches.
type (
	// MigrationRecord is store.MigrationRecord.
	MigrationRecord = store.MigrationRecord
	// MigrationItem is store.MigrationItem.
	MigrationItem = store.MigrationItem
	// MigrationStore is store.MigrationStore.
	MigrationStore = store.MigrationStore
)

const (
	// MigrationRunning is store.MigrationRunning.
	MigrationRunning = store.MigrationRunning
	// MigrationCompleted is store.MigrationCompleted.
	MigrationCompleted = store.MigrationCompleted
	// MigrationPending is store.MigrationPending.
	MigrationPending = store.MigrationPending
	// MigrationMigrated is store.MigrationMigrated.
	MigrationMigrated = store.MigrationMigrated
	// MigrationFailed is store.MigrationFailed.
	MigrationFailed = store.MigrationFailed
)

// Batch operations by filter.
type (
	// BatchRecord is store.BatchRecord.
	BatchRecord = store.BatchRecord
	// BatchItem is store.BatchItem.
	BatchItem = store.BatchItem
	// BatchFilter is store.BatchFilter.
	BatchFilter = store.BatchFilter
	// BatchItemFilter is store.BatchItemFilter.
	BatchItemFilter = store.BatchItemFilter
	// BatchStore is store.BatchStore.
	BatchStore = store.BatchStore
)

const (
	// BatchPreparing is store.BatchPreparing.
	BatchPreparing = store.BatchPreparing
	// BatchRunning is store.BatchRunning.
	BatchRunning = store.BatchRunning
	// BatchPaused is store.BatchPaused.
	BatchPaused = store.BatchPaused
	// BatchCompleted is store.BatchCompleted.
	BatchCompleted = store.BatchCompleted
	// BatchCancelled is store.BatchCancelled.
	BatchCancelled = store.BatchCancelled
	// BatchItemPending is store.BatchItemPending.
	BatchItemPending = store.BatchItemPending
	// BatchItemDone is store.BatchItemDone.
	BatchItemDone = store.BatchItemDone
	// BatchItemFailed is store.BatchItemFailed.
	BatchItemFailed = store.BatchItemFailed
)

// The variable index.
type (
	// IndexedVariable is store.IndexedVariable.
	IndexedVariable = store.IndexedVariable
	// VariableFilter is store.VariableFilter.
	VariableFilter = store.VariableFilter
	// SavedFilter is store.SavedFilter.
	SavedFilter = store.SavedFilter
)

const (
	// MaxIndexedValue is store.MaxIndexedValue.
	MaxIndexedValue = store.MaxIndexedValue
	// RootScopeKind is store.RootScopeKind.
	RootScopeKind = store.RootScopeKind
	// RootScopeKey is store.RootScopeKey.
	RootScopeKey = store.RootScopeKey
)

// VariableValueKey returns the key under which the variable index holds the
// JSON value raw (store.VariableValueKey).
func VariableValueKey(raw []byte) (string, error) { return store.VariableValueKey(raw) }

// Numeric keys, Camunda 8's names of entities (numerickeys.go).
type (
	// KeyKind is store.KeyKind.
	KeyKind = store.KeyKind
	// KeyStore is store.KeyStore.
	KeyStore = store.KeyStore
)

const (
	// KeyInstance is store.KeyInstance.
	KeyInstance = store.KeyInstance
	// KeyJob is store.KeyJob.
	KeyJob = store.KeyJob
	// KeyUserTask is store.KeyUserTask.
	KeyUserTask = store.KeyUserTask
	// KeyIncident is store.KeyIncident.
	KeyIncident = store.KeyIncident
	// KeyDeployment is store.KeyDeployment.
	KeyDeployment = store.KeyDeployment
	// KeyProcessVersion is store.KeyProcessVersion.
	KeyProcessVersion = store.KeyProcessVersion
	// FirstKey is store.FirstKey.
	FirstKey = store.FirstKey
)

// ProcessVersionID is store.ProcessVersionID.
func ProcessVersionID(key string, version int) string { return store.ProcessVersionID(key, version) }

// ParseProcessVersionID is store.ParseProcessVersionID.
func ParseProcessVersionID(id string) (key string, version int, ok bool) {
	return store.ParseProcessVersionID(id)
}

// MaxWaitsPage is store.MaxWaitsPage.
const MaxWaitsPage = store.MaxWaitsPage

// CursorOf is store.CursorOf.
func CursorOf(row WaitRow) WaitCursor { return store.CursorOf(row) }

// MaxJobErrorDetails is store.MaxJobErrorDetails.
const MaxJobErrorDetails = store.MaxJobErrorDetails
