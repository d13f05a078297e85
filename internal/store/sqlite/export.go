package sqlite

import (
	"context"
	"fmt"
	"strings"

	"github.com/gobpm/gobpm/internal/store"
)

// The history export (migration 0022) reads fact_order from a position
// on, joined to the facts rows and their instances, in pos order: the
// order the single writer committed them. A position is (fact_order.pos,
// the fact's seq): a page may end inside a step's row, and the next one
// resumes after that fact's seq in the same row.

// exportRows is how many facts rows one query of HistoryExport reads at
// most (a row holds a step's facts, at least one): the rows are held in
// memory until decoded, so a page costs a few rows' worth of memory
// however large a row is, and no more rows are read than the page needs
// once it is full.
const exportRows = 32

// exportSQL is the head of the export query; HistoryExport adds the
// filters, the order and the limit. CROSS JOIN keeps fact_order the outer
// loop, read by its primary key in pos order: with a process key the
// planner would otherwise start from the instances of that key and sort
// all their facts for every page.
const exportSQL = `SELECT o.pos, i.id, i.process_key, i.process_version, i.created_at, f.seq, f.at, f.data
	FROM fact_order o
	CROSS JOIN facts f ON f.instance_seq = o.instance_seq AND f.seq = o.seq
	CROSS JOIN instances i ON i.seq = o.instance_seq
	WHERE o.pos >= ?`

// HistoryExport returns at most f.Limit facts after f.After matching f,
// in the order their steps were committed (store.ExportStore). It reads
// fact_order by its primary key from f.After on; the period is matched
// first by each step's time (fact_order.at, the time of its first fact:
// the engine gives every fact of a step the step's time), then by each
// fact's. Rows of instances or periods left out are read and skipped,
// never decoded.
func (db *DB) HistoryExport(ctx context.Context, f store.ExportFilter) ([]store.ExportedFact, error) {
	if f.Limit < 1 || f.Limit > store.MaxExportPage {
		return nil, store.Errorf(store.EINVALID, "store: history export: limit %d is not from 1 to %d", f.Limit, store.MaxExportPage)
	}
	q, args := exportQuery(f)
	out := make([]store.ExportedFact, 0, min(f.Limit, 1024))
	pos, afterSeq := f.After.Major, f.After.Minor
	err := db.readWith(ctx, func(st *txStmts) error {
		for len(out) < f.Limit {
			rows := exportRows
			n, last, err := exportPage(st, q, append(append([]any{pos}, args...), rows), func(e exportRow) error {
				return e.decode(st, pos, afterSeq, f, &out)
			})
			if err != nil {
				return err
			}
			if n < rows {
				return nil
			}
			pos, afterSeq = last+1, 0
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("store: history export after %d/%d: %w", f.After.Major, f.After.Minor, err)
	}
	return out, nil
}

// exportQuery returns the export query for f and its arguments after the
// position (the limit follows them).
func exportQuery(f store.ExportFilter) (string, []any) {
	var b strings.Builder
	var args []any
	b.WriteString(exportSQL)
	if !f.From.IsZero() {
		b.WriteString(" AND o.at >= ?")
		args = append(args, encodeTime(f.From))
	}
	if !f.To.IsZero() {
		b.WriteString(" AND o.at < ?")
		args = append(args, encodeTime(f.To))
	}
	if f.ProcessKeys != nil {
		if len(f.ProcessKeys) == 0 {
			b.WriteString(" AND 0")
		} else {
			b.WriteString(" AND i.process_key IN (?" + strings.Repeat(", ?", len(f.ProcessKeys)-1) + ")")
			for _, k := range f.ProcessKeys {
				args = append(args, k)
			}
		}
	}
	for _, clause := range f.ProcessKeyPatterns {
		if len(clause) == 0 {
			b.WriteString(" AND 0")
			continue
		}
		ors := make([]string, len(clause))
		for i, p := range clause {
			ors[i] = "i.process_key GLOB ?"
			args = append(args, globOf(p))
		}
		b.WriteString(" AND (" + strings.Join(ors, " OR ") + ")")
	}
	b.WriteString(" ORDER BY o.pos LIMIT ?")
	return b.String(), args
}

// exportRow is one facts row the export query read.
type exportRow struct {
	pos, created, seq, at int64
	id                    dbID
	key                   string
	version               int
	data                  []byte
}

// exportPage runs the export query and calls fn with each row read; it
// returns how many rows it read and the position of the last one. The
// rows are read to the end before fn runs, so decoding (which may look a
// kind up) does not interleave with an open result.
func exportPage(st *txStmts, q string, args []any, fn func(exportRow) error) (n int, last int64, err error) {
	rs, err := st.tx.QueryContext(st.ctx, q, args...)
	if err != nil {
		return 0, 0, err
	}
	var rows []exportRow
	for rs.Next() {
		var e exportRow
		if err := rs.Scan(&e.pos, &e.id, &e.key, &e.version, &e.created, &e.seq, &e.at, &e.data); err != nil {
			rs.Close()
			return 0, 0, err
		}
		rows = append(rows, e)
	}
	if err := rs.Close(); err != nil {
		return 0, 0, err
	}
	if err := rs.Err(); err != nil {
		return 0, 0, err
	}
	for _, e := range rows {
		if err := fn(e); err != nil {
			return 0, 0, err
		}
		last = e.pos
	}
	return len(rows), last, nil
}

// decode appends the facts of the row that follow the position (pos,
// afterSeq) and fall in f's period to out, until out holds f.Limit.
func (e exportRow) decode(st *txStmts, pos, afterSeq int64, f store.ExportFilter, out *[]store.ExportedFact) error {
	id := store.InstanceID(e.id)
	return decodeFacts(id, e.created, e.seq, e.at, e.data, st.kindName, func(fact store.FactRow) bool {
		if len(*out) >= f.Limit {
			return false
		}
		if e.pos == pos && fact.Seq <= afterSeq {
			return true
		}
		if (!f.From.IsZero() && fact.At.Before(f.From)) || (!f.To.IsZero() && !fact.At.Before(f.To)) {
			return true
		}
		*out = append(*out, store.ExportedFact{
			Position:   store.ExportPosition{Major: e.pos, Minor: fact.Seq},
			InstanceID: id, ProcessKey: e.key, ProcessVersion: e.version, Fact: fact,
		})
		return true
	})
}
