package store

import (
	"context"
	"time"
)

// RetentionFilter selects a batch of ended instances of one process
// version for deletion (HousekeepingStore.DeleteEndedInstances).
type RetentionFilter struct {
	ProcessKey     string
	ProcessVersion int
	// EndedBefore: only instances that ended strictly before it.
	EndedBefore time.Time
	// Limit bounds the batch (> 0).
	Limit int
}

// HousekeepingStore is the part of Store that removes history and copies
// the database.
type HousekeepingStore interface {
	// DeleteEndedInstances deletes, in one transaction, at most f.Limit
	// instances of f's process version that are completed or terminated
	// and ended before f.EndedBefore, earliest end first, with their
	// parts, facts, incidents and waits, and returns their ids. It skips
	// (never deletes) an instance whose parent instance is running or
	// failed, and one that still has outbox rows; running and failed
	// instances are never selected.
	DeleteEndedInstances(ctx context.Context, f RetentionFilter) ([]InstanceID, error)
	// DeleteInstance deletes one ended instance the same way, at once:
	// ErrNotFound for an unknown id, an ECONFLICT *Error saying why for an
	// instance that is running or failed, whose parent runs, or that has
	// outbox rows left.
	DeleteInstance(ctx context.Context, id InstanceID) error
	// Backup writes a consistent copy of the whole database into the file
	// path, which must not exist, while writes go on (sqlite/backup.go). A store
	// that cannot (a server database) returns an EINVALID *Error naming
	// the tool to use instead.
	Backup(ctx context.Context, path string) error
}
