package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/gobpm/gobpm/internal/store/sqlite"
)

// backupUsage is the help of the backup subcommand.
const backupUsage = `usage:
  gobpm-web backup --to FILE [--db FILE]
      write a consistent copy of the database (default GOBPM_DB or
      ./data/gobpm.db) into FILE, which must not exist; safe while the server
      runs (SQLite VACUUM INTO: one snapshot, writes go on), checked and
      synced before FILE appears. Restore: stop the server, move the copy to
      the --db path (removing any -wal and -shm files beside it), start.`

// runBackup runs "gobpm-web backup …": a copy of the database file, taken
// from outside the server (cron, a sidecar), whether or not it runs.
func runBackup(ctx context.Context, args []string, getenv func(string) string, out io.Writer) error {
	fs := flag.NewFlagSet("gobpm-web backup", flag.ContinueOnError)
	fs.SetOutput(out)
	fs.Usage = func() { fmt.Fprintln(out, backupUsage) }
	db := fs.String("db", def0(getenv("GOBPM_DB"), "./data/gobpm.db"), "SQLite database file (GOBPM_DB)")
	to := fs.String("to", "", "the backup file to write (must not exist)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q\n%s", fs.Arg(0), backupUsage)
	}
	if *to == "" {
		//lint:ignore ST1005 the usage text follows the message, as the command prints it
		return errors.New("--to is required\n" + backupUsage)
	}
	if _, err := os.Stat(*db); err != nil {
		return fmt.Errorf("database %s: %w", *db, err)
	}
	started := time.Now()
	if err := sqlite.Backup(ctx, *db, *to); err != nil {
		return err
	}
	info, err := os.Stat(*to)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "backup of %s written to %s (%d bytes, %s)\n", *db, *to, info.Size(), time.Since(started).Round(time.Millisecond))
	return nil
}
