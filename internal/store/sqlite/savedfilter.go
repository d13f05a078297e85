package sqlite

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/gobpm/gobpm/internal/store"
)

var _ store.SavedFilterStore = (*DB)(nil)

// The saved filters (migration 0028).
const (
	savedFilterCountSQL  = `SELECT COUNT(*) FROM saved_filters WHERE user_id = ? AND name <> ?`
	upsertSavedFilterSQL = `INSERT INTO saved_filters (user_id, name, query, created_at) VALUES (?, ?, ?, ?)
		ON CONFLICT (user_id, name) DO UPDATE SET query = excluded.query, created_at = excluded.created_at`
	savedFiltersSQL      = `SELECT name, query, created_at FROM saved_filters WHERE user_id = ? ORDER BY name`
	deleteSavedFilterSQL = `DELETE FROM saved_filters WHERE user_id = ? AND name = ?`
)

// SaveFilter stores f, replacing the user's filter of the same name
// (store.SavedFilterStore).
func (db *DB) SaveFilter(ctx context.Context, f store.SavedFilter) error {
	if err := store.CheckSavedFilter(f); err != nil {
		return fmt.Errorf("store: save filter: %w", err)
	}
	err := db.writeTx(ctx, func(tx *sql.Tx) error {
		var n int
		if err := tx.QueryRowContext(ctx, savedFilterCountSQL, f.User, f.Name).Scan(&n); err != nil {
			return err
		}
		if n >= store.MaxSavedFilters {
			return store.Errorf(store.ECONFLICT, "%s has %d saved filters already", f.User, n)
		}
		_, err := tx.ExecContext(ctx, upsertSavedFilterSQL, f.User, f.Name, f.Query, encodeTime(f.CreatedAt))
		return err
	})
	if err != nil {
		return fmt.Errorf("store: save filter %q: %w", f.Name, err)
	}
	return nil
}

// SavedFilters lists a user's filters by name (store.SavedFilterStore).
func (db *DB) SavedFilters(ctx context.Context, user string) ([]store.SavedFilter, error) {
	var out []store.SavedFilter
	err := db.readTx(ctx, func(tx *sql.Tx) error {
		rows, err := tx.QueryContext(ctx, savedFiltersSQL, user)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			f := store.SavedFilter{User: user}
			var at int64
			if err := rows.Scan(&f.Name, &f.Query, &at); err != nil {
				return err
			}
			f.CreatedAt = decodeTime(at)
			out = append(out, f)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("store: saved filters of %s: %w", user, err)
	}
	return out, nil
}

// DeleteSavedFilter deletes a user's filter (store.SavedFilterStore).
func (db *DB) DeleteSavedFilter(ctx context.Context, user, name string) error {
	err := db.writeTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, deleteSavedFilterSQL, user, name)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			return store.ErrNotFound
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("store: delete saved filter %q: %w", name, err)
	}
	return nil
}
