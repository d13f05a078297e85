// Package migrations embeds the PostgreSQL store's schema migrations:
// NNNN_description.sql files, forward-only, applied in order by
// postgres.Open and recorded in the schema_migrations table. Never edit a
// shipped file; add the next one.
package migrations

import "embed"

// FS holds the *.sql migration files.
//
//go:embed *.sql
var FS embed.FS
