package runtime

import (
	"context"
	"slices"
	"time"

	"github.com/gobpm/gobpm/internal/engine"
)

// CompletedTaskRow is a user task someone completed, as the store keeps it
// after its wait is gone. ProcessKey, BusinessKey and InstanceNumber are
// the instance's, read with the row (a step's record leaves them empty).
type CompletedTaskRow struct {
	TaskID         string
	InstanceID     InstanceID
	NodeID         string
	Name           string
	CompletedBy    string
	CreatedAt      time.Time
	CompletedAt    time.Time
	ProcessKey     string
	BusinessKey    string
	InstanceNumber int64
}

// CompletedTaskFilter selects completed tasks, newest completion first.
// Empty fields match all.
type CompletedTaskFilter struct {
	// CompletedBy keeps the tasks this user completed.
	CompletedBy string
	// ProcessKey keeps the tasks of instances of this process key.
	ProcessKey string
	Limit      int
	Offset     int
}

// completionKey carries the task a CompleteTask step completes to the
// step's record.
type completionKey struct{}

// withCompletion marks ctx as the context of a step that completes task t
// for user.
func withCompletion(ctx context.Context, t TaskView, user string) context.Context {
	return context.WithValue(ctx, completionKey{}, CompletedTaskRow{TaskID: t.ID, InstanceID: t.InstanceID,
		NodeID: t.NodeID, Name: t.Name, CompletedBy: user, CreatedAt: t.CreatedAt})
}

// completedTasks is the completed-task row of a step that completed the
// task its context names (withCompletion), completed at now: only when
// the step is the task's instance's and removed the task's wait.
func completedTasks(ctx context.Context, id InstanceID, fx engine.Effects, now time.Time) []CompletedTaskRow {
	c, ok := ctx.Value(completionKey{}).(CompletedTaskRow)
	if !ok || c.InstanceID != id || !slices.Contains(fx.RemovedWaits, c.TaskID) {
		return nil
	}
	c.CompletedAt = now
	return []CompletedTaskRow{c}
}

// CompletedTasks lists the completed user tasks matching f, the latest
// completion first, and the total count.
func (r *Runtime) CompletedTasks(ctx context.Context, f CompletedTaskFilter) ([]CompletedTaskRow, int, error) {
	return r.store.CompletedTasks(ctx, f)
}
