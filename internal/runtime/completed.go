package runtime

import (
	"context"
	"slices"
	"time"

	"github.com/gobpm/gobpm/internal/engine"
)

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
