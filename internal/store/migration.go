package store

import (
	"context"
	"time"
)

// Statuses of a migration batch (MigrationRecord.Status).
const (
	MigrationRunning   = "running"
	MigrationCompleted = "completed"
)

// Statuses of one instance of a migration batch (MigrationItem.Status).
const (
	MigrationPending  = "pending"
	MigrationMigrated = "migrated"
	MigrationFailed   = "failed"
)

// MigrationRecord is a stored migration batch: which process versions,
// which mapping, who asked and how far it got.
type MigrationRecord struct {
	ID            string
	ProcessKey    string
	SourceVersion int
	TargetVersion int
	// Mapping maps source element ids to target element ids (those it
	// does not name keep their id).
	Mapping   map[string]string
	Status    string
	CreatedBy string
	CreatedAt time.Time
	// FinishedAt is zero while the batch runs.
	FinishedAt time.Time
}

// MigrationItem is one instance of a migration batch and its outcome.
type MigrationItem struct {
	InstanceID InstanceID
	Status     string
	// Reason says why a failed item failed ("" otherwise).
	Reason string
}

// MigrationStore persists migration batches (runtime/migrate.go) so that a batch
// survives a restart.
type MigrationStore interface {
	// CreateMigration stores a running batch with its instances, in order,
	// each pending, in one transaction; ErrConflict when the id exists.
	CreateMigration(ctx context.Context, rec MigrationRecord, instances []InstanceID) error
	// Migration returns a batch and its items in order; ErrNotFound for an
	// unknown id.
	Migration(ctx context.Context, id string) (MigrationRecord, []MigrationItem, error)
	// RunningMigrations returns the ids of the batches still running,
	// oldest first.
	RunningMigrations(ctx context.Context) ([]string, error)
	// SetMigrationItem records the outcome of one instance of a batch;
	// ErrNotFound when the batch has no such instance.
	SetMigrationItem(ctx context.Context, id string, item MigrationItem) error
	// FinishMigration marks a batch completed at at; ErrNotFound for an
	// unknown id.
	FinishMigration(ctx context.Context, id string, at time.Time) error
}
