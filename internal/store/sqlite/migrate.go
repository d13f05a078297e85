package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"io/fs"
	"time"

	"github.com/gobpm/gobpm/internal/store/sqlite/migrations"
	"github.com/gobpm/gobpm/internal/store/sqlquery"
)

// createMigrationsTable records applied migrations. It is the only schema the
// runner creates itself.
const createMigrationsTable = `CREATE TABLE IF NOT EXISTS schema_migrations (
    version    INTEGER NOT NULL PRIMARY KEY,
    name       TEXT    NOT NULL,
    applied_at INTEGER NOT NULL
)`

// migrate applies every pending migration of migrations.FS in version order,
// each in its own transaction. Applied versions are skipped. A database that
// records a version this binary does not know is refused: it was migrated by
// a newer gobpm.
func migrate(ctx context.Context, db *sql.DB) error {
	return migrateFS(ctx, db, migrations.FS)
}

// migrateFS is migrate over any file system, for tests.
func migrateFS(ctx context.Context, db *sql.DB, fsys fs.FS) error {
	ms, err := loadMigrations(fsys)
	if err != nil {
		return err
	}
	if _, err := db.ExecContext(ctx, createMigrationsTable); err != nil {
		return fmt.Errorf("migrate: create schema_migrations: %w", err)
	}
	var newest sql.NullInt64
	if err := db.QueryRowContext(ctx, `SELECT MAX(version) FROM schema_migrations`).Scan(&newest); err != nil {
		return fmt.Errorf("migrate: read schema_migrations: %w", err)
	}
	if len(ms) > 0 && newest.Valid && newest.Int64 > int64(ms[len(ms)-1].Version) {
		return fmt.Errorf("migrate: database is at version %d, newer than this binary's %d", newest.Int64, ms[len(ms)-1].Version)
	}
	for _, m := range ms {
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			return fmt.Errorf("migrate: %s: %w", m.Name, err)
		}
		if err := applyMigration(ctx, tx, m); err != nil {
			tx.Rollback()
			return fmt.Errorf("migrate: %s: %w", m.Name, err)
		}
		if err := tx.Commit(); err != nil {
			return fmt.Errorf("migrate: %s: %w", m.Name, err)
		}
	}
	return nil
}

// applyMigration applies m in tx unless it is already recorded.
func applyMigration(ctx context.Context, tx *sql.Tx, m sqlquery.Migration) error {
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM schema_migrations WHERE version = ?`, m.Version).Scan(&n); err != nil {
		return err
	}
	if n > 0 {
		return nil
	}
	if _, err := tx.ExecContext(ctx, m.SQL); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx,
		`INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)`,
		m.Version, m.Name, encodeTime(time.Now()))
	return err
}

// loadMigrations reads the migration files of fsys (sqlquery.LoadMigrations).
func loadMigrations(fsys fs.FS) ([]sqlquery.Migration, error) { return sqlquery.LoadMigrations(fsys) }
