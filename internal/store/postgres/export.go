package postgres

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/gobpm/gobpm/internal/store"
)

// The history export (migration 0015) reads facts in (tx, pos) order
// through facts_export: tx is the transaction that wrote a fact, pos its
// number from the sequence facts_pos. A position is (tx, pos). Only the
// facts of transactions older than the oldest one of this database still
// running when the read's snapshot was taken are read (exportHorizonSQL):
// every transaction below that horizon has ended, so none can still add a
// fact that sorts before one this read returns. A transaction running for
// long (a batch migration, a stuck session) holds the export back until it
// ends.

// exportSQL is the head of the export query; HistoryExport adds the
// filters, the order and the limit. Arguments: the position's tx and pos.
const exportSQL = `SELECT f.tx::text::bigint, f.pos, i.id, i.process_key, i.process_version,
		f.seq, f.at, f.kind, f.node_id, f.scope_path, f.detail
	FROM facts f JOIN instances i ON i.seq = f.instance_seq
	WHERE (f.tx, f.pos) > ($1::bigint::text::xid8, $2::bigint)
	AND f.tx < (` + exportHorizonSQL + `)`

// exportHorizonSQL is the first transaction id whose facts the export must
// not read yet: the oldest transaction running when the statement's
// snapshot was taken, else the snapshot's xmax. A running transaction of a
// backend connected to another database of the server cannot write these
// facts, so it does not hold the export back (pg_stat_activity shows the
// transaction ids of the sessions the role may see; an unknown one holds
// the export back, the safe side). Transaction ids are compared in their
// 32-bit form there, which is exact among running transactions.
const exportHorizonSQL = `SELECT COALESCE(
		(SELECT x FROM pg_snapshot_xip(pg_current_snapshot()) AS x
		  WHERE (x::text::bigint % 4294967296) NOT IN (
		        SELECT a.backend_xid::text::bigint FROM pg_stat_activity a
		         WHERE a.backend_xid IS NOT NULL
		           AND a.datid IS DISTINCT FROM (SELECT oid FROM pg_database WHERE datname = current_database()))
		  ORDER BY x LIMIT 1),
		pg_snapshot_xmax(pg_current_snapshot()))`

// HistoryExport returns at most f.Limit facts after f.After matching f,
// in (tx, pos) order (store.ExportStore), reading facts_export from f.After
// on; facts of instances or periods left out are read and skipped.
func (db *DB) HistoryExport(ctx context.Context, f store.ExportFilter) ([]store.ExportedFact, error) {
	if f.Limit < 1 || f.Limit > store.MaxExportPage {
		return nil, store.Errorf(store.EINVALID, "postgres store: history export: limit %d is not from 1 to %d", f.Limit, store.MaxExportPage)
	}
	a := args{f.After.Major, f.After.Minor}
	var b strings.Builder
	b.WriteString(exportSQL)
	if !f.From.IsZero() {
		b.WriteString(" AND f.at >= " + a.add(encodeTime(f.From)))
	}
	if !f.To.IsZero() {
		b.WriteString(" AND f.at < " + a.add(encodeTime(f.To)))
	}
	if f.ProcessKeys != nil {
		b.WriteString(" AND i.process_key = ANY(" + a.add(f.ProcessKeys) + "::text[])")
	}
	for _, clause := range f.ProcessKeyPatterns {
		if len(clause) == 0 {
			b.WriteString(" AND FALSE")
			continue
		}
		ors := make([]string, len(clause))
		for i, p := range clause {
			ors[i] = "i.process_key LIKE " + a.add(likeOf(p))
		}
		b.WriteString(" AND (" + strings.Join(ors, " OR ") + ")")
	}
	b.WriteString(" ORDER BY f.tx, f.pos LIMIT " + a.add(f.Limit))
	var out []store.ExportedFact
	err := db.readTx(ctx, func(tx pgx.Tx) error {
		var err error
		out, err = queryRows(ctx, tx, scanExported, b.String(), a...)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("postgres store: history export after %d/%d: %w", f.After.Major, f.After.Minor, err)
	}
	return out, nil
}

// scanExported scans one row of the export query.
func scanExported(row pgx.Row) (store.ExportedFact, error) {
	var (
		e      store.ExportedFact
		id     string
		at     int64
		detail []byte
	)
	err := row.Scan(&e.Position.Major, &e.Position.Minor, &id, &e.ProcessKey, &e.ProcessVersion,
		&e.Fact.Seq, &at, &e.Fact.Kind, &e.Fact.NodeID, &e.Fact.ScopePath, &detail)
	e.InstanceID = store.InstanceID(id)
	e.Fact.At = decodeTime(at)
	if len(detail) > 0 {
		e.Fact.Detail = detail
	}
	return e, err
}
