package postgres

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/gobpm/gobpm/internal/store"
	"github.com/gobpm/gobpm/internal/store/sqlquery"
)

// The completed user tasks (migration 0009): a row per task a person
// completed, written by the step that completed it.
const (
	stepInsertCompletedTaskSQL = `INSERT INTO completed_tasks (instance_seq, task_id, node_id, name, completed_by, created_at, completed_at)
		VALUES (` + seqOf + `, $2, $3, $4, $5, $6, $7) ON CONFLICT (instance_seq, task_id) DO NOTHING`
	deleteCompletedTasksSQL = `DELETE FROM completed_tasks WHERE instance_seq = $1`
	completedTaskColumns    = `c.task_id, i.id, c.node_id, c.name, c.completed_by, c.created_at, c.completed_at,
		i.process_key, i.business_key, COALESCE(i.number, 0)`
)

// queueCompletedTasks queues the rows of the tasks a step of instance in
// completed.
func queueCompletedTasks(sb *stepBatch, i int, in *store.InstanceRow, tasks []store.CompletedTaskRow) {
	for _, t := range tasks {
		sb.exec(i, nil, stepInsertCompletedTaskSQL, string(in.ID), t.TaskID, t.NodeID, t.Name, t.CompletedBy,
			encodeTime(t.CreatedAt), encodeTime(t.CompletedAt))
	}
}

// completedTasksWhere is the condition of CompletedTasks, with its
// arguments in a.
func completedTasksWhere(f store.CompletedTaskFilter, a *args) string {
	var where []string
	if f.CompletedBy != "" {
		where = append(where, "c.completed_by = "+a.add(f.CompletedBy))
	}
	if f.ProcessKey != "" {
		where = append(where, "i.process_key = "+a.add(f.ProcessKey))
	}
	if len(where) == 0 {
		return ""
	}
	return " WHERE " + strings.Join(where, " AND ")
}

// CompletedTasks lists the completed user tasks matching f, the latest
// completion first (ties: task id descending), and the total number of
// matches. Limit 0 means sqlquery.DefaultListLimit; larger than
// sqlquery.MaxListLimit is capped.
func (db *DB) CompletedTasks(ctx context.Context, f store.CompletedTaskFilter) ([]store.CompletedTaskRow, int, error) {
	var a args
	from := ` FROM completed_tasks c JOIN instances i ON i.seq = c.instance_seq` + completedTasksWhere(f, &a)
	var (
		out   []store.CompletedTaskRow
		total int
	)
	err := db.readTx(ctx, func(tx pgx.Tx) error {
		if err := tx.QueryRow(ctx, `SELECT COUNT(*)`+from, a...).Scan(&total); err != nil {
			return err
		}
		page := a
		query := `SELECT ` + completedTaskColumns + from + ` ORDER BY c.completed_at DESC, c.task_id DESC LIMIT ` +
			page.add(sqlquery.ListLimit(f.Limit)) + ` OFFSET ` + page.add(max(f.Offset, 0))
		var err error
		out, err = queryRows(ctx, tx, scanCompletedTask, query, page...)
		return err
	})
	if err != nil {
		return nil, 0, fmt.Errorf("postgres store: completed tasks: %w", err)
	}
	if out == nil {
		out = []store.CompletedTaskRow{}
	}
	return out, total, nil
}

// scanCompletedTask reads one row of completedTaskColumns.
func scanCompletedTask(row pgx.Row) (store.CompletedTaskRow, error) {
	var t store.CompletedTaskRow
	var id string
	var created, completed int64
	err := row.Scan(&t.TaskID, &id, &t.NodeID, &t.Name, &t.CompletedBy, &created, &completed,
		&t.ProcessKey, &t.BusinessKey, &t.InstanceNumber)
	t.InstanceID, t.CreatedAt, t.CompletedAt = store.InstanceID(id), decodeTime(created), decodeTime(completed)
	return t, err
}
