// Command gobpm-web runs the gobpm server: the JSON API under /api/v1 over
// an embedded SQLite store.
//
//	gobpm-web --addr 127.0.0.1:8080 --db ./data/gobpm.db
//
// GOBPM_ADDR and GOBPM_DB set the same options; flags win. With
// --auth builtin, "gobpm-web admin create --user NAME" creates the first
// admin (password on standard input) and "gobpm-web admin token" mints API
// tokens. "gobpm-web backup --db FILE --to FILE" copies the database while
// the server runs (or not).
//
// --history-ttl 30d deletes ended instances 30 days after their end (a
// model's gobpm:historyTimeToLive wins); --backup-dir DIR lets admins take
// backups with POST /api/v1/admin/backup; --dev --clock=manual runs the
// engine on a clock that only POST /api/v1/clock moves (tests, demos).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	logger := slog.New(slog.NewTextHandler(os.Stderr, nil))
	if len(os.Args) > 1 && os.Args[1] == "backup" {
		if err := runBackup(ctx, os.Args[2:], os.Getenv, os.Stdout); err != nil {
			if !errors.Is(err, flag.ErrHelp) {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(2)
			}
		}
		return
	}
	if len(os.Args) > 1 && os.Args[1] == "admin" {
		if err := runAdmin(ctx, os.Args[2:], os.Getenv, os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		return
	}
	cfg, err := ParseConfig(os.Args[1:], os.Getenv, os.Stdout)
	if errors.Is(err, flag.ErrHelp) {
		return // the usage is printed; asking for it is no error
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	if cfg.ShowVersion {
		return
	}
	tuneGC(logger)
	m := NewMain(cfg, logger)
	if err := m.Run(ctx); err != nil {
		logger.Error("start failed", "error", err)
		os.Exit(1)
	}
	logger.Info("listening", "addr", m.Addr())
	<-ctx.Done()
	logger.Info("shutting down")
	if err := m.Close(); err != nil {
		logger.Error("shutdown failed", "error", err)
		os.Exit(1)
	}
}
