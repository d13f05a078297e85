package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/gobpm/gobpm/internal/access"
	"github.com/gobpm/gobpm/internal/auth"
	"github.com/gobpm/gobpm/internal/store/sqlcodec"
	"github.com/gobpm/gobpm/internal/store/sqlquery"
)

const (
	auditColumns   = `seq, at, actor, on_behalf_of, via, action, resource, outcome, status, request_id, addr`
	insertAuditSQL = `INSERT INTO audit (at, actor, on_behalf_of, via, action, resource, outcome, status, request_id, addr)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING seq`
)

// AppendAudit appends entries to the audit trail in one transaction and,
// once it committed, sets each entry's Seq in place. Seqs increase in the
// order of entries. Every entry needs its At.
func (db *DB) AppendAudit(ctx context.Context, entries []access.AuditEntry) error {
	if len(entries) == 0 {
		return nil
	}
	for i, e := range entries {
		if e.At.IsZero() {
			return fmt.Errorf("postgres store: append audit: entry %d (%s): at is required", i, e.Action)
		}
	}
	seqs := make([]int64, len(entries))
	err := db.writeTx(ctx, func(tx pgx.Tx) error {
		for i, e := range entries {
			if err := tx.QueryRow(ctx, insertAuditSQL, encodeTime(e.At), string(e.Actor), string(e.OnBehalfOf), e.Via,
				e.Action, e.Resource, e.Outcome, e.Status, e.RequestID, e.Addr).Scan(&seqs[i]); err != nil {
				return fmt.Errorf("entry %d (%s): %w", i, e.Action, err)
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("postgres store: append audit: %w", err)
	}
	for i := range entries {
		entries[i].Seq = seqs[i]
	}
	return nil
}

// Audit lists the audit entries matching f, newest first (by Seq). Limit
// 0 means sqlquery.DefaultAuditLimit, more than sqlquery.MaxAuditLimit is
// capped; a negative Limit or Before is refused.
func (db *DB) Audit(ctx context.Context, f access.AuditFilter) ([]access.AuditEntry, error) {
	limit, err := sqlquery.AuditLimit(f)
	if err != nil {
		return nil, fmt.Errorf("postgres store: audit: %w", err)
	}
	var (
		a     args
		where []string
	)
	if f.Before > 0 {
		where = append(where, "seq < "+a.add(f.Before))
	}
	if f.Actor != "" {
		where = append(where, "actor = "+a.add(string(f.Actor)))
	}
	if f.Action != "" {
		where = append(where, "action = "+a.add(f.Action))
	}
	if f.Resource != "" {
		where = append(where, "starts_with(resource, "+a.add(f.Resource)+")")
	}
	if f.Outcome != "" {
		where = append(where, "outcome = "+a.add(f.Outcome))
	}
	if !f.From.IsZero() {
		where = append(where, "at >= "+a.add(sqlcodec.BoundTime(f.From)))
	}
	if !f.To.IsZero() {
		where = append(where, "at < "+a.add(sqlcodec.BoundTime(f.To)))
	}
	query := `SELECT ` + auditColumns + ` FROM audit` + whereClause(where) + ` ORDER BY seq DESC LIMIT ` + a.add(limit)
	out, err := queryRows(ctx, db.pool, func(row pgx.Row) (access.AuditEntry, error) {
		var (
			e                 access.AuditEntry
			at                int64
			actor, onBehalfOf string
		)
		err := row.Scan(&e.Seq, &at, &actor, &onBehalfOf, &e.Via, &e.Action, &e.Resource, &e.Outcome,
			&e.Status, &e.RequestID, &e.Addr)
		e.At = decodeTime(at)
		e.Actor, e.OnBehalfOf = auth.UserID(actor), auth.UserID(onBehalfOf)
		return e, err
	}, query, a...)
	if err != nil {
		return nil, fmt.Errorf("postgres store: audit: %w", err)
	}
	return out, nil
}
