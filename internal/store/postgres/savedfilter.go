package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/gobpm/gobpm/internal/store"
)

var _ store.SavedFilterStore = (*DB)(nil)

// The saved filters (migration 0021).
const (
	savedFilterCountSQL  = `SELECT COUNT(*) FROM saved_filters WHERE user_id = $1 AND name <> $2`
	upsertSavedFilterSQL = `INSERT INTO saved_filters (user_id, name, query, created_at) VALUES ($1, $2, $3, $4)
		ON CONFLICT (user_id, name) DO UPDATE SET query = excluded.query, created_at = excluded.created_at`
	savedFiltersSQL      = `SELECT name, query, created_at FROM saved_filters WHERE user_id = $1 ORDER BY name`
	deleteSavedFilterSQL = `DELETE FROM saved_filters WHERE user_id = $1 AND name = $2`
)

// SaveFilter stores f, replacing the user's filter of the same name
// (store.SavedFilterStore).
func (db *DB) SaveFilter(ctx context.Context, f store.SavedFilter) error {
	if err := store.CheckSavedFilter(f); err != nil {
		return fmt.Errorf("postgres store: save filter: %w", err)
	}
	err := db.writeTx(ctx, func(tx pgx.Tx) error {
		var n int
		if err := tx.QueryRow(ctx, savedFilterCountSQL, f.User, f.Name).Scan(&n); err != nil {
			return err
		}
		if n >= store.MaxSavedFilters {
			return store.Errorf(store.ECONFLICT, "%s has %d saved filters already", f.User, n)
		}
		_, err := tx.Exec(ctx, upsertSavedFilterSQL, f.User, f.Name, f.Query, encodeTime(f.CreatedAt))
		return err
	})
	if err != nil {
		return fmt.Errorf("postgres store: save filter %q: %w", f.Name, err)
	}
	return nil
}

// SavedFilters lists a user's filters by name (store.SavedFilterStore).
func (db *DB) SavedFilters(ctx context.Context, user string) ([]store.SavedFilter, error) {
	var out []store.SavedFilter
	err := db.readTx(ctx, func(tx pgx.Tx) error {
		var (
			f  = store.SavedFilter{User: user}
			at int64
		)
		rows, err := tx.Query(ctx, savedFiltersSQL, user)
		if err != nil {
			return err
		}
		_, err = pgx.ForEachRow(rows, []any{&f.Name, &f.Query, &at}, func() error {
			out = append(out, store.SavedFilter{User: user, Name: f.Name, Query: f.Query, CreatedAt: decodeTime(at)})
			return nil
		})
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("postgres store: saved filters of %s: %w", user, err)
	}
	return out, nil
}

// DeleteSavedFilter deletes a user's filter (store.SavedFilterStore).
func (db *DB) DeleteSavedFilter(ctx context.Context, user, name string) error {
	err := db.writeTx(ctx, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, deleteSavedFilterSQL, user, name)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			return store.ErrNotFound
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("postgres store: delete saved filter %q: %w", name, err)
	}
	return nil
}
