package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/gobpm/gobpm/internal/store"
	"github.com/gobpm/gobpm/internal/store/sqlquery"
)

// The statements of history retention (runtime retention.go, migration
// 0002), with the SQLite store's rules: an instance may be deleted when it
// is completed or terminated, its parent (if any) is neither running nor
// failed, and it has no outbox rows left.
const (
	deletable = `i.status IN ('completed', 'terminated')
		AND (i.parent_id = '' OR NOT EXISTS (SELECT 1 FROM instances p WHERE p.id = i.parent_id AND p.status IN ('running', 'failed')))
		AND NOT EXISTS (SELECT 1 FROM outbox o WHERE o.instance_id = i.id)`

	// expiredSQL picks and locks a batch of deletable instances of one
	// process version that ended before a time, earliest end first; rows
	// another node's cleaner holds are skipped. Arguments: key, version,
	// ended-before, limit.
	expiredSQL = `SELECT i.seq, i.id FROM instances i
		WHERE i.process_key = $1 AND i.process_version = $2 AND i.ended_at < $3 AND ` + deletable + `
		ORDER BY i.ended_at LIMIT $4 FOR UPDATE SKIP LOCKED`

	// deleteCheckSQL reads (and locks) why an instance may not be deleted:
	// its seq, status, whether its parent still runs and how many outbox
	// rows it has. Argument: id.
	deleteCheckSQL = `SELECT i.seq, i.status,
		    i.parent_id <> '' AND EXISTS (SELECT 1 FROM instances p WHERE p.id = i.parent_id AND p.status IN ('running', 'failed')),
		    (SELECT COUNT(*) FROM outbox o WHERE o.instance_id = i.id)
		FROM instances i WHERE i.id = $1 FOR UPDATE OF i`

	// The deletes of one instance, children first (foreign keys).
	deleteFactsSQL         = `DELETE FROM facts WHERE instance_seq = $1`
	deleteIncidentsSQL     = `DELETE FROM incidents WHERE instance_id = $1`
	deleteEndedInstanceSQL = `DELETE FROM instances WHERE seq = $1 AND status IN ('completed', 'terminated')`
)

// DeleteEndedInstances deletes, in one transaction, at most f.Limit
// instances of f's process version that are completed or terminated and
// ended before f.EndedBefore (earliest end first) with their parts, facts,
// incidents and waits, and returns their ids. An instance whose parent is
// running or failed, or that has outbox rows left, is skipped.
func (db *DB) DeleteEndedInstances(ctx context.Context, f store.RetentionFilter) ([]store.InstanceID, error) {
	if f.Limit <= 0 {
		return nil, fmt.Errorf("postgres store: delete ended instances: limit %d must be positive", f.Limit)
	}
	var ids []store.InstanceID
	err := db.writeTx(ctx, func(tx pgx.Tx) error {
		ids = nil
		rows, err := tx.Query(ctx, expiredSQL, f.ProcessKey, f.ProcessVersion, encodeTime(f.EndedBefore), f.Limit)
		if err != nil {
			return err
		}
		var seqs []int64
		for rows.Next() {
			var seq int64
			var id string
			if err := rows.Scan(&seq, &id); err != nil {
				rows.Close()
				return err
			}
			seqs, ids = append(seqs, seq), append(ids, store.InstanceID(id))
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		for i, seq := range seqs {
			if err := deleteInstance(ctx, tx, seq, ids[i]); err != nil {
				return fmt.Errorf("instance %s: %w", ids[i], err)
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("postgres store: delete ended instances of %s version %d: %w", f.ProcessKey, f.ProcessVersion, err)
	}
	return ids, nil
}

// DeleteInstance deletes one ended instance with its parts, facts,
// incidents and waits: a wrapped store.ErrNotFound for an unknown id, an
// ECONFLICT *store.Error saying why for one that is running or failed,
// whose parent is running or failed, or that has outbox rows left.
func (db *DB) DeleteInstance(ctx context.Context, id store.InstanceID) error {
	err := db.writeTx(ctx, func(tx pgx.Tx) error {
		var (
			seq           int64
			status        string
			parentRunning bool
			outbox        int64
		)
		err := tx.QueryRow(ctx, deleteCheckSQL, string(id)).Scan(&seq, &status, &parentRunning, &outbox)
		switch {
		case errors.Is(err, pgx.ErrNoRows):
			return store.ErrNotFound
		case err != nil:
			return err
		}
		if err := sqlquery.DeleteRefusal(id, status, parentRunning, int64(outbox)); err != nil {
			return err
		}
		return deleteInstance(ctx, tx, seq, id)
	})
	if err != nil {
		return fmt.Errorf("postgres store: delete instance %s: %w", id, err)
	}
	return nil
}

// deleteInstance deletes the rows of ended instance seq (whose id is id),
// children first; the instance row goes last, and only if it is still
// completed or terminated.
func deleteInstance(ctx context.Context, tx pgx.Tx, seq int64, id store.InstanceID) error {
	for _, del := range []struct {
		sql string
		arg any
	}{
		{deleteFactsSQL, seq},
		{deletePartsSQL, seq},
		{deleteVariablesSQL, seq},
		{deleteCompletedTasksSQL, seq},
		{deleteIncidentKeysSQL, string(id)},
		{deleteIncidentsSQL, string(id)},
		{deleteInstanceWaitKeysSQL, string(id)},
		{deleteInstanceWaitsSQL, string(id)},
	} {
		if _, err := tx.Exec(ctx, del.sql, del.arg); err != nil {
			return err
		}
	}
	tag, err := tx.Exec(ctx, deleteEndedInstanceSQL, seq)
	if err != nil {
		return err
	}
	if tag.RowsAffected() != 1 {
		return fmt.Errorf("instance %s is no longer ended: %w", id, store.ErrConflict)
	}
	if _, err := tx.Exec(ctx, deleteKeySQL, int16(store.KeyInstance), string(id)); err != nil {
		return fmt.Errorf("delete numeric key: %w", err)
	}
	return nil
}

// Backup refuses: a PostgreSQL database is copied with PostgreSQL's own
// tools, consistently while gobpm runs.
func (db *DB) Backup(context.Context, string) error {
	return &store.Error{Code: store.EINVALID, Message: "this server stores its data in PostgreSQL: back it up with pg_dump " +
		"(e.g. pg_dump -Fc -d \"$GOBPM_DB\" -f gobpm.dump) or continuous archiving, not with gobpm"}
}
