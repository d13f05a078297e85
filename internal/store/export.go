package store

import (
	"context"
	"time"
)

// ExportPosition is a fact's place in the history export's order: the
// order in which the facts became durable, across every instance. The
// stores define its two numbers (SQLite: the position of the step's facts
// row and the fact's seq; PostgreSQL: the writing transaction and the
// fact's position in it); callers only compare it with the zero value and
// hand it back. A position never moves and is never reused: a retention
// delete removes facts before or after it, never renumbers one.
type ExportPosition struct {
	Major, Minor int64
}

// IsZero reports whether p is the position before every fact.
func (p ExportPosition) IsZero() bool { return p == ExportPosition{} }

// ExportFilter selects a page of the history export. Empty fields match
// all.
type ExportFilter struct {
	// After is the position of the last fact of the previous page (the
	// zero position for the first page).
	After ExportPosition
	// From and To bound the facts' times to [From, To); zero for none.
	From, To time.Time
	// ProcessKeys keeps only facts of instances of these process keys.
	ProcessKeys []string
	// ProcessKeyPatterns, when not nil, keeps only facts of instances
	// whose process key matches, in every clause, at least one pattern
	// (as InstanceFilter.ProcessKeyPatterns): authorization fills it with
	// what the caller may read.
	ProcessKeyPatterns [][]string
	// Limit bounds the page: 1 to MaxExportPage.
	Limit int
}

// MaxExportPage is the most facts one HistoryExport call returns.
const MaxExportPage = 10_000

// ExportedFact is one fact of the history export with the instance it
// belongs to.
type ExportedFact struct {
	// Position is the fact's place in the export's order (the cursor
	// after it).
	Position       ExportPosition
	InstanceID     InstanceID
	ProcessKey     string
	ProcessVersion int
	// Fact is the fact as History returns it (TrackID empty).
	Fact FactRow
}

// ExportStore is the read behind the history export (GET
// /api/v1/history/export).
type ExportStore interface {
	// HistoryExport returns at most f.Limit facts after f.After matching
	// f, in export order: the order in which they became durable, so a
	// fact committed later never sorts before one a previous page
	// returned (PostgreSQL holds back the facts of transactions that
	// could still be overtaken by an older one until it ends). It reads
	// an index in that order from f.After on and stops at a full page;
	// fewer than f.Limit facts mean none more matched when it read. It
	// returns EINVALID for a limit out of range.
	HistoryExport(ctx context.Context, f ExportFilter) ([]ExportedFact, error)
}
