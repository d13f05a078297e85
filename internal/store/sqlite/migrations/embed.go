// Package migrations holds the SQL schema migrations of the SQLite store.
//
// # Rules
//
// Each file is named NNNN_description.sql, where NNNN is a zero-padded,
// strictly increasing version. Migrations are forward-only: a shipped file is
// never edited; a change to the schema is a new file. The runner in
// internal/store/sqlite applies every pending file at start-up, each in its own
// transaction, and records it in the schema_migrations table.
//
// This package only embeds the files; it imports nothing else.
package migrations

import "embed"

// FS holds every migration file, *.sql at the root of the package.
//
//go:embed *.sql
var FS embed.FS
