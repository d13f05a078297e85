package store

import (
	"context"
	"encoding/json"
	"time"
)

// States of a batch operation (BatchRecord.State). A batch is preparing
// while its filter is resolved into items, running while its items are
// acted on, paused until resumed, and ends completed (every item has its
// outcome) or cancelled (its pending items stay pending).
const (
	BatchPreparing = "preparing"
	BatchRunning   = "running"
	BatchPaused    = "paused"
	BatchCompleted = "completed"
	BatchCancelled = "cancelled"
)

// Statuses of one instance of a batch (BatchItem.Status).
const (
	BatchItemPending = "pending"
	BatchItemDone    = "done"
	BatchItemFailed  = "failed"
)

// BatchRecord is a stored batch operation (runtime/batch.go): what it does
// to which instances, who asked, and how far it got.
type BatchRecord struct {
	ID string
	// Operation names the act (cancel, retry-incidents, migrate, …).
	Operation string
	// Params and Filter are the operation's parameters and the instance
	// filter, as JSON the runtime owns; the store keeps them verbatim.
	Params json.RawMessage
	Filter json.RawMessage
	State  string
	// CreatedBy is the user the batch acts as.
	CreatedBy string
	CreatedAt time.Time
	// FinishedAt is zero until the batch completed or was cancelled.
	FinishedAt time.Time
	// Cursor is the last instance id the filter resolution stored (""
	// before the first page): a batch left preparing resumes after it.
	Cursor InstanceID
	// Total counts the items, Done and Failed those with that outcome;
	// the store keeps them with the items.
	Total, Done, Failed int
	// Owner is the node that holds the batch's lease (ClaimBatch) until
	// LeaseUntil; "" for none.
	Owner      string
	LeaseUntil time.Time
}

// BatchItem is one instance of a batch and its outcome.
type BatchItem struct {
	// Seq is the item's place in the batch, from 0 in resolution order.
	Seq        int64
	InstanceID InstanceID
	Status     string
	// Reason says why a failed item failed, or what a done one found
	// ("already cancelled"); "" otherwise.
	Reason string
}

// BatchFilter selects batches for Batches: those CreatedBy a user (""
// for any), newest first, Offset skipped, at most Limit (a list page: the
// default for 0, capped like the instance list).
type BatchFilter struct {
	CreatedBy     string
	Limit, Offset int
}

// BatchItemFilter selects items of a batch for BatchItems: those with
// Status ("" for any) after AfterSeq (-1 for from the start), in order,
// at most Limit (capped like Batches).
type BatchItemFilter struct {
	Status   string
	AfterSeq int64
	Limit    int
}

// MaxOpenBatches caps the unfinished (preparing, running or paused)
// batches of one creator: each holds a snapshot of up to every instance
// and a runner, so one caller may not start them without bound.
const MaxOpenBatches = 10

// BatchStore persists batch operations so that a batch survives a
// restart and one node of a cluster runs it.
type BatchStore interface {
	// CreateBatch stores a batch without items (Total, Done, Failed,
	// Cursor, Owner and LeaseUntil are ignored); ErrConflict when the id
	// exists, ECONFLICT when its creator has MaxOpenBatches unfinished
	// (preparing, running or paused) batches already.
	CreateBatch(ctx context.Context, rec BatchRecord) error
	// AddBatchItems appends instances to a batch, pending, after its
	// items, and sets its Cursor to cursor, in one transaction; an
	// instance the batch holds already is left out. ErrNotFound for an
	// unknown batch.
	AddBatchItems(ctx context.Context, id string, instances []InstanceID, cursor InstanceID) error
	// Batch returns a batch with its counts; ErrNotFound for an unknown id.
	Batch(ctx context.Context, id string) (BatchRecord, error)
	// Batches lists batches, newest first, and the number f matches
	// without its paging.
	Batches(ctx context.Context, f BatchFilter) ([]BatchRecord, int, error)
	// BatchItems returns items of a batch in order; ErrNotFound for an
	// unknown batch.
	BatchItems(ctx context.Context, id string, f BatchItemFilter) ([]BatchItem, error)
	// SetBatchItem records the outcome of a pending item (by its instance)
	// and counts it; an item that has its outcome already is left alone
	// (false). ErrNotFound when the batch has no such instance.
	SetBatchItem(ctx context.Context, id string, item BatchItem) (bool, error)
	// SetBatchState moves a batch to state when its state is one of from
	// (any with none), setting FinishedAt to finished (zero keeps it
	// unset); it reports whether it moved. ErrNotFound for an unknown id.
	SetBatchState(ctx context.Context, id, state string, finished time.Time, from ...string) (bool, error)
	// ClaimBatch gives owner the lease of a batch until until, when owner
	// holds it already, nobody does, or its lease ended before now; it
	// reports whether owner holds it. ErrNotFound for an unknown id.
	ClaimBatch(ctx context.Context, id, owner string, now, until time.Time) (bool, error)
	// OpenBatches returns the ids of the batches preparing or running,
	// oldest first.
	OpenBatches(ctx context.Context) ([]string, error)
}
