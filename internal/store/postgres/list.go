package postgres

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/gobpm/gobpm/internal/store"
	"github.com/gobpm/gobpm/internal/store/sqlquery"
)

// listWhere is the condition of ListInstances without its cursor, with
// its arguments in a.
func listWhere(f store.InstanceFilter, a *args) []string {
	var where []string
	if f.Number != 0 {
		where = append(where, "number = "+a.add(f.Number))
	}
	if f.ParentID != "" {
		where = append(where, "parent_id = "+a.add(string(f.ParentID))+" AND parent_id <> ''")
	}
	if f.BusinessKey != "" {
		where = append(where, "business_key = "+a.add(f.BusinessKey)+" AND business_key <> ''")
	}
	if f.ProcessKey != "" {
		where = append(where, "process_key = "+a.add(f.ProcessKey))
	}
	if f.ProcessVersion != 0 {
		where = append(where, "process_version = "+a.add(f.ProcessVersion))
	}
	if f.Status != "" {
		where = append(where, "status = "+a.add(f.Status))
	}
	for _, clause := range f.ProcessKeyPatterns {
		if len(clause) == 0 {
			where = append(where, "FALSE")
			continue
		}
		ors := make([]string, len(clause))
		for i, p := range clause {
			ors[i] = "process_key LIKE " + a.add(likeOf(p))
		}
		where = append(where, "("+strings.Join(ors, " OR ")+")")
	}
	return append(where, rowFilters(f, a)...)
}

// rowFilters are the conditions of f's element, incident and time filters.
// The element and incident ones look up one instance's rows by the token
// index's primary key and incidents_instance.
func rowFilters(f store.InstanceFilter, a *args) []string {
	var where []string
	if f.Element != "" {
		el := a.add(f.Element)
		where = append(where, `(EXISTS (SELECT 1 FROM instance_tokens t WHERE t.instance_seq = instances.seq AND t.node_id = `+el+`)
			OR EXISTS (SELECT 1 FROM incidents c WHERE c.instance_id = instances.id AND c.node_id = `+el+` AND c.resolved_at IS NULL))`)
	}
	if f.IncidentMessage != "" || f.IncidentMessagePrefix {
		msg := a.add(f.IncidentMessage)
		match := "c.message = " + msg
		if f.IncidentMessagePrefix {
			match = "starts_with(c.message, " + msg + "::text)"
		}
		where = append(where, `EXISTS (SELECT 1 FROM incidents c WHERE c.instance_id = instances.id AND c.resolved_at IS NULL AND `+match+`)`)
	}
	for _, v := range f.Variables {
		where = append(where, variableCond(v, a))
	}
	for _, b := range []struct {
		cond string
		at   time.Time
	}{{"created_at >= ", f.CreatedAfter}, {"created_at < ", f.CreatedBefore}, {"ended_at >= ", f.EndedAfter}, {"ended_at < ", f.EndedBefore}} {
		if !b.at.IsZero() {
			where = append(where, b.cond+a.add(encodeTime(b.at)))
		}
	}
	return where
}

// likeOf turns a key pattern ('*' any run of characters) into a LIKE
// pattern: '*' becomes '%', and LIKE's own '%', '_' and '\' match
// themselves.
func likeOf(pattern string) string {
	var b strings.Builder
	for _, r := range pattern {
		switch r {
		case '%', '_', '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case '*':
			b.WriteByte('%')
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// ListInstances returns instance rows matching f, newest first (creation
// time, then the reverse of the order the store received them), and the
// number of matches counted up to store.MaxListTotal+1. f.After is a
// keyset cursor (a wrapped store.ErrNotFound if it names no instance).
// Limit 0 means sqlquery.DefaultListLimit; larger than
// sqlquery.MaxListLimit is capped.
func (db *DB) ListInstances(ctx context.Context, f store.InstanceFilter) ([]store.InstanceRow, int, error) {
	var (
		rows  []store.InstanceRow
		total int
	)
	key, ok := sqlquery.SortKey(f.SortBy)
	if !ok {
		return nil, 0, store.Errorf(store.EINVALID, "postgres store: list instances: unknown sort %q", f.SortBy)
	}
	dir, cmp := " DESC", "<"
	if f.Ascending {
		dir, cmp = " ASC", ">"
	}
	if err := sqlquery.CheckVariableFilters(f.Variables); err != nil {
		return nil, 0, fmt.Errorf("postgres store: list instances: %w", err)
	}
	err := db.readTx(ctx, func(tx pgx.Tx) error {
		var a args
		where := listWhere(f, &a)
		count := `SELECT COUNT(*) FROM (SELECT 1 FROM instances` + whereClause(where) + ` LIMIT ` +
			a.add(store.MaxListTotal+1) + `) m`
		if err := tx.QueryRow(ctx, count, a...).Scan(&total); err != nil {
			return err
		}
		a = a[:len(a)-1]
		if f.After != "" {
			var (
				k       any
				at, seq int64
			)
			if err := tx.QueryRow(ctx, `SELECT `+key+`, created_at, seq FROM instances WHERE id = $1`, string(f.After)).Scan(&k, &at, &seq); err != nil {
				return fmt.Errorf("cursor %s: %w", f.After, notFound(err))
			}
			// Ties on the key fall back to created_at and seq in the
			// same direction: a row-value comparison is the cursor.
			where = append(where, "("+key+", created_at, seq) "+cmp+" ("+a.add(k)+", "+a.add(at)+", "+a.add(seq)+")")
		}
		page := `SELECT ` + instanceColumns + ` FROM instances` + whereClause(where) +
			` ORDER BY ` + key + dir + `, created_at` + dir + `, seq` + dir +
			` LIMIT ` + a.add(sqlquery.ListLimit(f.Limit)) + ` OFFSET ` + a.add(max(f.Offset, 0))
		var err error
		rows, err = queryRows(ctx, tx, func(row pgx.Row) (store.InstanceRow, error) { return scanInstance(row) }, page, a...)
		return err
	})
	if err != nil {
		return nil, 0, fmt.Errorf("postgres store: list instances: %w", err)
	}
	return rows, total, nil
}
