package sqlite

import (
	"context"
	"fmt"

	"github.com/gobpm/gobpm/internal/access"
	"github.com/gobpm/gobpm/internal/store/sqlcodec"
	"github.com/gobpm/gobpm/internal/store/sqlquery"
)

// Page sizes of Audit.
const (
	// DefaultAuditLimit is the page size when AuditFilter.Limit is 0.
	DefaultAuditLimit = sqlquery.DefaultAuditLimit
	// MaxAuditLimit caps AuditFilter.Limit.
	MaxAuditLimit = sqlquery.MaxAuditLimit
)

const (
	auditColumns = `seq, at, actor, on_behalf_of, via, action, resource, outcome, status, request_id, addr`
	// insertAuditSQL appends an entry; its seq is the new rowid.
	insertAuditSQL = `INSERT INTO audit (at, actor, on_behalf_of, via, action, resource, outcome, status, request_id, addr)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
)

// AppendAudit appends entries to the audit trail in one transaction and,
// once it committed, sets each entry's Seq in place (entries shares its
// array with the caller). Seqs increase in the order of entries and are
// never reused. Every entry needs At and Action, and Outcome must be one
// of "ok", "denied", "failed" and "error" (the schema's CHECK); one bad
// entry fails the call and appends nothing.
//
// The transaction does not wait for its own fsync (writeRelaxed): the next
// durable commit carries it, so an act never costs two fsyncs, and a power
// cut may lose the entries of the last moments before it.
func (db *DB) AppendAudit(ctx context.Context, entries []access.AuditEntry) error {
	if len(entries) == 0 {
		return nil
	}
	for i, e := range entries {
		if e.At.IsZero() {
			return fmt.Errorf("store: append audit: entry %d (%s): at is required", i, e.Action)
		}
	}
	seqs := make([]int64, len(entries))
	err := db.writeRelaxed(ctx, func(st *txStmts) error {
		for i, e := range entries {
			res, err := st.exec(insertAuditSQL, encodeTime(e.At), string(e.Actor), string(e.OnBehalfOf), e.Via,
				e.Action, e.Resource, e.Outcome, e.Status, e.RequestID, e.Addr)
			if err == nil {
				seqs[i], err = res.LastInsertId()
			}
			if err != nil {
				return fmt.Errorf("entry %d (%s): %w", i, e.Action, err)
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("store: append audit: %w", err)
	}
	for i := range entries {
		entries[i].Seq = seqs[i]
	}
	return nil
}

// auditQuery builds the statement of f (its text depends on which fields
// are set, not on their values) and its arguments.
//
// Every index of audit ends with seq, so with an Actor, Action or Outcome
// filter the page comes out of that index newest first and costs what it
// returns; without one it is a range of the primary key below Before. A
// Resource prefix is the index range [prefix, prefixEnd(prefix)) and a time
// bound a range of audit_at; those ranges are sorted, so they cost their
// matches (SQLite keeps only the page while sorting). An Outcome other than
// "ok" repeats the condition of the partial index audit_outcome.
func auditQuery(f access.AuditFilter, limit int) (string, []any) {
	var (
		where []string
		args  []any
	)
	add := func(cond string, a ...any) {
		where = append(where, cond)
		args = append(args, a...)
	}
	if f.Before > 0 {
		add("seq < ?", f.Before)
	}
	if f.Actor != "" {
		add("actor = ?", string(f.Actor))
	}
	if f.Action != "" {
		add("action = ?", f.Action)
	}
	if f.Resource != "" {
		add("resource >= ?", f.Resource)
		if end, ok := prefixEnd(f.Resource); ok {
			add("resource < ?", end)
		}
	}
	if f.Outcome != "" {
		add("outcome = ?", f.Outcome)
		if f.Outcome != "ok" {
			add("outcome <> 'ok'")
		}
	}
	if !f.From.IsZero() {
		add("at >= ?", sqlcodec.BoundTime(f.From))
	}
	if !f.To.IsZero() {
		add("at < ?", sqlcodec.BoundTime(f.To))
	}
	return `SELECT ` + auditColumns + ` FROM audit` + whereClause(where) + ` ORDER BY seq DESC LIMIT ?`, append(args, limit)
}

// prefixEnd returns the least string above every string that starts with
// p, as SQLite's BINARY collation compares them (bytewise): p without its
// trailing 0xff bytes, with its last byte incremented. ok is false if there
// is none (p is empty or all 0xff). The bound need not be valid UTF-8; the
// driver binds its bytes as they are.
func prefixEnd(p string) (string, bool) {
	b := []byte(p)
	for i := len(b) - 1; i >= 0; i-- {
		if b[i] < 0xff {
			b[i]++
			return string(b[:i+1]), true
		}
	}
	return "", false
}

// Audit lists the audit entries matching f, newest first (by Seq). Filters
// combine with AND; f.Before pages backwards from the Seq of the last entry
// of the previous page. Limit 0 means DefaultAuditLimit, more than
// MaxAuditLimit is capped; a negative Limit or Before is refused.
func (db *DB) Audit(ctx context.Context, f access.AuditFilter) ([]access.AuditEntry, error) {
	limit, err := sqlquery.AuditLimit(f)
	if err != nil {
		return nil, fmt.Errorf("store: audit: %w", err)
	}
	query, args := auditQuery(f, limit)
	// One statement per shape of filter, prepared once, outside any
	// transaction (stmtCache.warm).
	if err := db.rstmts.warm(ctx, query); err != nil {
		return nil, fmt.Errorf("store: audit: %w", err)
	}
	out, err := queryRows(db.readOne(ctx), scanAudit, query, args...)
	if err != nil {
		return nil, fmt.Errorf("store: audit: %w", err)
	}
	return out, nil
}

// scanAudit reads the auditColumns of a row.
func scanAudit(row interface{ Scan(...any) error }) (access.AuditEntry, error) {
	var (
		e  access.AuditEntry
		at int64
	)
	err := row.Scan(&e.Seq, &at, &e.Actor, &e.OnBehalfOf, &e.Via, &e.Action, &e.Resource, &e.Outcome,
		&e.Status, &e.RequestID, &e.Addr)
	e.At = decodeTime(at)
	return e, err
}
