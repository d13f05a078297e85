package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"

	"github.com/gobpm/gobpm/internal/store"
)

// The statements of migration batches (runtime migrate.go, migration 0011).
const (
	insertMigrationSQL = `INSERT INTO migrations (id, process_key, source_version, target_version, mapping, status,
		    created_by, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING`
	insertMigrationItemSQL = `INSERT INTO migration_items (migration_id, ord, instance_id, status, reason)
		VALUES (?, ?, ?, 'pending', '')`
	selectMigrationSQL = `SELECT process_key, source_version, target_version, mapping, status, created_by,
		    created_at, finished_at FROM migrations WHERE id = ?`
	selectMigrationItemsSQL = `SELECT instance_id, status, reason FROM migration_items
		WHERE migration_id = ? ORDER BY ord`
	runningMigrationsSQL = `SELECT id FROM migrations WHERE status = 'running' ORDER BY created_at, id`
	setMigrationItemSQL  = `UPDATE migration_items SET status = ?, reason = ? WHERE migration_id = ? AND instance_id = ?`
	finishMigrationSQL   = `UPDATE migrations SET status = 'completed', finished_at = ? WHERE id = ?`
)

func init() {
	writeQueries = append(writeQueries, insertMigrationSQL, insertMigrationItemSQL, setMigrationItemSQL, finishMigrationSQL)
	readQueries = append(readQueries, selectMigrationSQL, selectMigrationItemsSQL, runningMigrationsSQL)
}

// CreateMigration stores a running batch with its instances, in order,
// each pending, in one transaction; a wrapped store.ErrConflict when the
// id exists.
func (db *DB) CreateMigration(ctx context.Context, rec store.MigrationRecord, instances []store.InstanceID) error {
	mapping, err := json.Marshal(orEmpty(rec.Mapping))
	if err == nil {
		err = db.writeWith(ctx, func(st *txStmts) error {
			if err := execOne(st, errExists, insertMigrationSQL, rec.ID, rec.ProcessKey, rec.SourceVersion, rec.TargetVersion,
				string(mapping), store.MigrationRunning, rec.CreatedBy, encodeTime(rec.CreatedAt)); err != nil {
				return err
			}
			for i, id := range instances {
				if _, err := st.exec(insertMigrationItemSQL, rec.ID, i, string(id)); err != nil {
					return fmt.Errorf("item %s: %w", id, err)
				}
			}
			return nil
		})
	}
	if err != nil {
		return fmt.Errorf("store: create migration %s: %w", rec.ID, err)
	}
	return nil
}

// Migration returns a batch and its items in order; a wrapped
// store.ErrNotFound for an unknown id.
func (db *DB) Migration(ctx context.Context, id string) (store.MigrationRecord, []store.MigrationItem, error) {
	rec := store.MigrationRecord{ID: id}
	var items []store.MigrationItem
	err := db.readWith(ctx, func(st *txStmts) error {
		var mapping string
		var created int64
		var finished sql.NullInt64
		if err := st.queryRow(selectMigrationSQL, id).Scan(&rec.ProcessKey, &rec.SourceVersion, &rec.TargetVersion,
			&mapping, &rec.Status, &rec.CreatedBy, &created, &finished); err != nil {
			return notFound(err)
		}
		rec.CreatedAt, rec.FinishedAt = decodeTime(created), decodeOptTime(finished)
		if err := json.Unmarshal([]byte(mapping), &rec.Mapping); err != nil {
			return fmt.Errorf("mapping: %w", err)
		}
		rows, err := st.query(selectMigrationItemsSQL, id)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var it store.MigrationItem
			var inst string
			if err := rows.Scan(&inst, &it.Status, &it.Reason); err != nil {
				return err
			}
			it.InstanceID = store.InstanceID(inst)
			items = append(items, it)
		}
		return rows.Err()
	})
	if err != nil {
		return store.MigrationRecord{}, nil, fmt.Errorf("store: migration %s: %w", id, err)
	}
	return rec, items, nil
}

// RunningMigrations returns the ids of the batches still running, oldest
// first.
func (db *DB) RunningMigrations(ctx context.Context) ([]string, error) {
	var ids []string
	err := db.readWith(ctx, func(st *txStmts) error {
		rows, err := st.query(runningMigrationsSQL)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var id string
			if err := rows.Scan(&id); err != nil {
				return err
			}
			ids = append(ids, id)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("store: running migrations: %w", err)
	}
	return ids, nil
}

// SetMigrationItem records the outcome of one instance of a batch; a
// wrapped store.ErrNotFound when the batch has no such instance.
func (db *DB) SetMigrationItem(ctx context.Context, id string, item store.MigrationItem) error {
	err := db.writeWith(ctx, func(st *txStmts) error {
		return execOne(st, store.ErrNotFound, setMigrationItemSQL, item.Status, item.Reason, id, string(item.InstanceID))
	})
	if err != nil {
		return fmt.Errorf("store: migration %s item %s: %w", id, item.InstanceID, err)
	}
	return nil
}

// FinishMigration marks a batch completed; a wrapped store.ErrNotFound
// for an unknown id.
func (db *DB) FinishMigration(ctx context.Context, id string, at time.Time) error {
	err := db.writeWith(ctx, func(st *txStmts) error {
		return execOne(st, store.ErrNotFound, finishMigrationSQL, encodeTime(at), id)
	})
	if err != nil {
		return fmt.Errorf("store: finish migration %s: %w", id, err)
	}
	return nil
}

// orEmpty returns m, or an empty map for nil (stored as {}).
func orEmpty(m map[string]string) map[string]string {
	if m == nil {
		return map[string]string{}
	}
	return m
}
