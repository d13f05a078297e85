package postgres

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/gobpm/gobpm/internal/store"
	"github.com/gobpm/gobpm/internal/store/sqlcodec"
	"github.com/gobpm/gobpm/internal/store/sqlquery"
)

// The statements of migration batches (runtime migrate.go, migration 0003),
// as the SQLite store's.
const (
	insertMigrationSQL = `INSERT INTO migrations (id, process_key, source_version, target_version, mapping, status,
		    created_by, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (id) DO NOTHING`
	insertMigrationItemSQL = `INSERT INTO migration_items (migration_id, ord, instance_id, status, reason)
		VALUES ($1, $2, $3, 'pending', '')`
	selectMigrationSQL = `SELECT process_key, source_version, target_version, mapping, status, created_by,
		    created_at, finished_at FROM migrations WHERE id = $1`
	selectMigrationItemsSQL = `SELECT instance_id, status, reason FROM migration_items
		WHERE migration_id = $1 ORDER BY ord`
	runningMigrationsSQL = `SELECT id FROM migrations WHERE status = 'running' ORDER BY created_at, id`
	setMigrationItemSQL  = `UPDATE migration_items SET status = $1, reason = $2 WHERE migration_id = $3 AND instance_id = $4`
	finishMigrationSQL   = `UPDATE migrations SET status = 'completed', finished_at = $1 WHERE id = $2`
)

// CreateMigration stores a running batch with its instances, in order,
// each pending, in one transaction; a wrapped store.ErrConflict when the
// id exists.
func (db *DB) CreateMigration(ctx context.Context, rec store.MigrationRecord, instances []store.InstanceID) error {
	m := rec.Mapping
	if m == nil {
		m = map[string]string{}
	}
	mapping, err := json.Marshal(m)
	if err == nil {
		err = db.writeTx(ctx, func(tx pgx.Tx) error {
			if err := execOne(ctx, tx, sqlquery.ErrExists, insertMigrationSQL, rec.ID, rec.ProcessKey, rec.SourceVersion,
				rec.TargetVersion, string(mapping), store.MigrationRunning, rec.CreatedBy, encodeTime(rec.CreatedAt)); err != nil {
				return err
			}
			for i, id := range instances {
				if _, err := tx.Exec(ctx, insertMigrationItemSQL, rec.ID, i, string(id)); err != nil {
					return fmt.Errorf("item %s: %w", id, err)
				}
			}
			return nil
		})
	}
	if err != nil {
		return fmt.Errorf("postgres store: create migration %s: %w", rec.ID, err)
	}
	return nil
}

// Migration returns a batch and its items in order; a wrapped
// store.ErrNotFound for an unknown id.
func (db *DB) Migration(ctx context.Context, id string) (store.MigrationRecord, []store.MigrationItem, error) {
	rec := store.MigrationRecord{ID: id}
	var items []store.MigrationItem
	err := db.readTx(ctx, func(tx pgx.Tx) error {
		items = nil
		var mapping string
		var created int64
		var finished sql.NullInt64
		if err := tx.QueryRow(ctx, selectMigrationSQL, id).Scan(&rec.ProcessKey, &rec.SourceVersion, &rec.TargetVersion,
			&mapping, &rec.Status, &rec.CreatedBy, &created, &finished); err != nil {
			return notFound(err)
		}
		rec.CreatedAt, rec.FinishedAt = decodeTime(created), sqlcodec.DecodeOptTime(finished)
		if err := json.Unmarshal([]byte(mapping), &rec.Mapping); err != nil {
			return fmt.Errorf("mapping: %w", err)
		}
		rows, err := tx.Query(ctx, selectMigrationItemsSQL, id)
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
		return store.MigrationRecord{}, nil, fmt.Errorf("postgres store: migration %s: %w", id, err)
	}
	return rec, items, nil
}

// RunningMigrations returns the ids of the batches still running, oldest
// first.
func (db *DB) RunningMigrations(ctx context.Context) ([]string, error) {
	rows, err := db.pool.Query(ctx, runningMigrationsSQL)
	if err != nil {
		return nil, fmt.Errorf("postgres store: running migrations: %w", err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("postgres store: running migrations: %w", err)
	}
	return ids, nil
}

// SetMigrationItem records the outcome of one instance of a batch; a
// wrapped store.ErrNotFound when the batch has no such instance.
func (db *DB) SetMigrationItem(ctx context.Context, id string, item store.MigrationItem) error {
	if err := execOne(ctx, db.pool, store.ErrNotFound, setMigrationItemSQL, item.Status, item.Reason, id, string(item.InstanceID)); err != nil {
		return fmt.Errorf("postgres store: migration %s item %s: %w", id, item.InstanceID, err)
	}
	return nil
}

// FinishMigration marks a batch completed; a wrapped store.ErrNotFound
// for an unknown id.
func (db *DB) FinishMigration(ctx context.Context, id string, at time.Time) error {
	if err := execOne(ctx, db.pool, store.ErrNotFound, finishMigrationSQL, encodeTime(at), id); err != nil {
		return fmt.Errorf("postgres store: finish migration %s: %w", id, err)
	}
	return nil
}
