package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/gobpm/gobpm/internal/store"
	"github.com/gobpm/gobpm/internal/store/sqlquery"
)

// The completed user tasks (migration 0016): a row per task a person
// completed, written by the step that completed it.
const (
	insertCompletedTaskSQL = `INSERT INTO completed_tasks (instance_seq, task_id, node_id, name, completed_by, created_at, completed_at)
		VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (instance_seq, task_id) DO NOTHING`
	deleteCompletedTasksSQL = `DELETE FROM completed_tasks WHERE instance_seq = ?`
	completedTaskColumns    = `c.task_id, i.id, c.node_id, c.name, c.completed_by, c.created_at, c.completed_at,
		i.process_key, i.business_key, COALESCE(i.number, 0)`
)

func init() {
	writeQueries = append(writeQueries, insertCompletedTaskSQL, deleteCompletedTasksSQL)
}

// insertCompletedTasks writes the tasks a step of instance seq completed.
func insertCompletedTasks(st *txStmts, seq int64, tasks []store.CompletedTaskRow) error {
	for _, t := range tasks {
		if _, err := st.exec(insertCompletedTaskSQL, seq, t.TaskID, t.NodeID, t.Name, t.CompletedBy,
			encodeTime(t.CreatedAt), encodeTime(t.CompletedAt)); err != nil {
			return fmt.Errorf("write completed task %s: %w", t.TaskID, err)
		}
	}
	return nil
}

// completedTasksWhere is the WHERE clause and arguments of a filter.
func completedTasksWhere(f store.CompletedTaskFilter) (string, []any) {
	var where []string
	var args []any
	if f.CompletedBy != "" {
		where = append(where, "c.completed_by = ?")
		args = append(args, f.CompletedBy)
	}
	if f.ProcessKey != "" {
		where = append(where, "i.process_key = ?")
		args = append(args, f.ProcessKey)
	}
	if len(where) == 0 {
		return "", nil
	}
	return " WHERE " + strings.Join(where, " AND "), args
}

// CompletedTasks lists the completed user tasks matching f, the latest
// completion first (ties: task id descending), and the total number of
// matches regardless of paging. Limit 0 means DefaultListLimit; larger
// than MaxListLimit is capped.
func (db *DB) CompletedTasks(ctx context.Context, f store.CompletedTaskFilter) ([]store.CompletedTaskRow, int, error) {
	cond, args := completedTasksWhere(f)
	from := ` FROM completed_tasks c JOIN instances i ON i.seq = c.instance_seq` + cond
	countQuery := `SELECT COUNT(*)` + from
	pageQuery := `SELECT ` + completedTaskColumns + from + ` ORDER BY c.completed_at DESC, c.task_id DESC LIMIT ? OFFSET ?`
	for _, q := range []string{countQuery, pageQuery} {
		if err := db.rstmts.warm(ctx, q); err != nil {
			return nil, 0, fmt.Errorf("store: completed tasks: %w", err)
		}
	}
	var (
		out   []store.CompletedTaskRow
		total int
	)
	err := db.readWith(ctx, func(st *txStmts) error {
		if err := st.queryRow(countQuery, args...).Scan(&total); err != nil {
			return err
		}
		rows, err := st.query(pageQuery, append(args, sqlquery.ListLimit(f.Limit), max(f.Offset, 0))...)
		if err != nil {
			return err
		}
		out, err = scanCompletedTasks(rows)
		return err
	})
	if err != nil {
		return nil, 0, fmt.Errorf("store: completed tasks: %w", err)
	}
	return out, total, nil
}

// scanCompletedTasks reads and closes rows of completedTaskColumns.
func scanCompletedTasks(rows *sql.Rows) ([]store.CompletedTaskRow, error) {
	defer rows.Close()
	out := []store.CompletedTaskRow{}
	for rows.Next() {
		var t store.CompletedTaskRow
		var created, completed int64
		if err := rows.Scan(&t.TaskID, idDest(&t.InstanceID), &t.NodeID, &t.Name, &t.CompletedBy, &created, &completed,
			&t.ProcessKey, &t.BusinessKey, &t.InstanceNumber); err != nil {
			return nil, err
		}
		t.CreatedAt, t.CompletedAt = decodeTime(created), decodeTime(completed)
		out = append(out, t)
	}
	return out, rows.Err()
}
