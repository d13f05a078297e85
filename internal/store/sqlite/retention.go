package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/gobpm/gobpm/internal/store"
	"github.com/gobpm/gobpm/internal/store/sqlquery"
)

// The statements of history retention (runtime retention.go, migration
// 0010). An instance may be deleted when it is completed or terminated,
// its parent (if any) is neither running nor failed, and it has no outbox
// rows left; deletable spells that condition for an instance i.
const (
	deletable = `i.status IN ('completed', 'terminated')
		AND (i.parent_id = '' OR NOT EXISTS (SELECT 1 FROM instances p WHERE p.id = i.parent_id AND p.status IN ('running', 'failed')))
		AND NOT EXISTS (SELECT 1 FROM outbox o WHERE o.instance_id = i.id)`

	// expiredSQL picks a batch of deletable instances of one process
	// version that ended before a time, earliest end first, from
	// instances_ended (whose condition the status term repeats exactly).
	// Arguments: key, version, ended-before, limit.
	expiredSQL = `SELECT i.seq, i.id FROM instances i INDEXED BY instances_ended
		WHERE i.process_key = ? AND i.process_version = ? AND i.ended_at < ? AND ` + deletable + `
		ORDER BY i.ended_at LIMIT ?`

	// deleteCheckSQL reads why an instance may not be deleted: its seq,
	// status, whether its parent still runs and how many outbox rows it
	// has. Argument: id.
	deleteCheckSQL = `SELECT i.seq, i.status,
		    i.parent_id <> '' AND EXISTS (SELECT 1 FROM instances p WHERE p.id = i.parent_id AND p.status IN ('running', 'failed')),
		    (SELECT COUNT(*) FROM outbox o WHERE o.instance_id = i.id)
		FROM instances i WHERE i.id = ?`

	// The deletes of one instance, children first (foreign keys). Argument: seq or id.
	deleteFactsSQL     = `DELETE FROM facts WHERE instance_seq = ?`
	deleteIncidentsSQL = `DELETE FROM incidents WHERE instance_id = ?`
	deleteInstanceSQL  = `DELETE FROM instances WHERE seq = ? AND status IN ('completed', 'terminated')`
)

func init() {
	writeQueries = append(writeQueries, expiredSQL, deleteCheckSQL, deleteFactsSQL, deleteIncidentsSQL, deleteInstanceSQL)
}

// DeleteEndedInstances deletes, in one write transaction, at most f.Limit
// instances of f's process version that are completed or terminated and
// ended before f.EndedBefore (earliest end first) with their parts, facts,
// incidents and waits, and returns their ids. An instance whose parent is
// running or failed, or that has outbox rows left, is skipped; running
// and failed instances are not in the index it reads.
func (db *DB) DeleteEndedInstances(ctx context.Context, f store.RetentionFilter) ([]store.InstanceID, error) {
	if f.Limit <= 0 {
		return nil, fmt.Errorf("store: delete ended instances: limit %d must be positive", f.Limit)
	}
	var ids []store.InstanceID
	err := db.writeWith(ctx, func(st *txStmts) error {
		rows, err := st.query(expiredSQL, f.ProcessKey, f.ProcessVersion, encodeTime(f.EndedBefore), f.Limit)
		if err != nil {
			return err
		}
		var seqs []int64
		for rows.Next() {
			var seq int64
			var id store.InstanceID
			if err := rows.Scan(&seq, idDest(&id)); err != nil {
				rows.Close()
				return err
			}
			seqs, ids = append(seqs, seq), append(ids, id)
		}
		if err := rows.Close(); err != nil {
			return err
		}
		if err := rows.Err(); err != nil {
			return err
		}
		for i, seq := range seqs {
			if err := deleteInstance(st, seq, ids[i]); err != nil {
				return fmt.Errorf("instance %s: %w", ids[i], err)
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("store: delete ended instances of %s version %d: %w", f.ProcessKey, f.ProcessVersion, err)
	}
	return ids, nil
}

// DeleteInstance deletes one ended instance with its parts, facts,
// incidents and waits: a wrapped store.ErrNotFound for an unknown id, an
// ECONFLICT *store.Error saying why for one that is running or failed,
// whose parent is running or failed, or that has outbox rows left.
func (db *DB) DeleteInstance(ctx context.Context, id store.InstanceID) error {
	err := db.writeWith(ctx, func(st *txStmts) error {
		var (
			seq           int64
			status        string
			parentRunning bool
			outbox        int
		)
		err := st.queryRow(deleteCheckSQL, dbID(id)).Scan(&seq, &status, &parentRunning, &outbox)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			return store.ErrNotFound
		case err != nil:
			return err
		}
		if err := sqlquery.DeleteRefusal(id, status, parentRunning, int64(outbox)); err != nil {
			return err
		}
		return deleteInstance(st, seq, id)
	})
	if err != nil {
		return fmt.Errorf("store: delete instance %s: %w", id, err)
	}
	return nil
}

// deleteInstance deletes the rows of ended instance seq (whose id is id),
// children first. The instance row goes last, and only if it is still
// completed or terminated: nothing running is ever deleted.
func deleteInstance(st *txStmts, seq int64, id store.InstanceID) error {
	if _, err := st.exec(deleteFactsSQL, seq); err != nil {
		return fmt.Errorf("delete facts: %w", err)
	}
	if _, err := st.exec(deletePartsSQL, seq); err != nil {
		return fmt.Errorf("delete parts: %w", err)
	}
	if _, err := st.exec(deleteInstanceVariablesSQL, seq); err != nil {
		return fmt.Errorf("delete indexed variables: %w", err)
	}
	if _, err := st.exec(deleteCompletedTasksSQL, seq); err != nil {
		return fmt.Errorf("delete completed tasks: %w", err)
	}
	if _, err := st.exec(deleteIncidentKeysSQL, dbID(id)); err != nil {
		return fmt.Errorf("delete numeric keys of incidents: %w", err)
	}
	if _, err := st.exec(deleteIncidentsSQL, dbID(id)); err != nil {
		return fmt.Errorf("delete incidents: %w", err)
	}
	if _, err := st.exec(deleteInstanceWaitKeysSQL, instanceArgs(id)...); err != nil {
		return fmt.Errorf("delete numeric keys of waits: %w", err)
	}
	if _, err := st.exec(deleteInstanceWaitsSQL, instanceArgs(id)...); err != nil {
		return fmt.Errorf("delete waits: %w", err)
	}
	res, err := st.exec(deleteInstanceSQL, seq)
	if err != nil {
		return fmt.Errorf("delete instance row: %w", err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return err
	} else if n != 1 {
		return fmt.Errorf("instance row is not ended: %w", store.ErrConflict)
	}
	if _, err := st.exec(deleteKeySQL, int(store.KeyInstance), dbID(id)); err != nil {
		return fmt.Errorf("delete numeric key: %w", err)
	}
	return nil
}
