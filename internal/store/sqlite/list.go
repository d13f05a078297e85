package sqlite

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/gobpm/gobpm/internal/store"
	"github.com/gobpm/gobpm/internal/store/sqlquery"
)

// Page sizes and counting of ListInstances.
const (
	// DefaultListLimit is the page size when InstanceFilter.Limit is 0.
	DefaultListLimit = sqlquery.DefaultListLimit
	// MaxListLimit caps InstanceFilter.Limit.
	MaxListLimit = sqlquery.MaxListLimit
	// MaxListTotal caps the total ListInstances counts (store.MaxListTotal:
	// a count reads every match, so it stops at MaxListTotal+1).
	MaxListTotal = store.MaxListTotal
)

// instanceStatuses is the closed set of statuses (the CHECK of
// instances.status). A list without a status filter reads one index range
// per status and merges them, so every range is already in list order.
var instanceStatuses = []string{store.StatusRunning, store.StatusCompleted, store.StatusTerminated, store.StatusFailed}

// listOrder is the order of instance lists, newest first; seq (the
// rowid every index ends with) breaks ties.
const listOrder = ` ORDER BY created_at DESC, seq DESC`

// listQuery is the SQL of one ListInstances call.
type listQuery struct {
	// page selects the page; its arguments are pageArgs.
	page     string
	pageArgs []any
	// count counts the matches up to MaxListTotal+1.
	count     string
	countArgs []any
}

// buildList builds the queries of f for a page of limit rows after offset
// rows, after the row at (afterAt, afterSeq) if hasAfter.
//
// Each filter reads one index whose equality prefix it fills and whose
// next column is created_at, so the page comes out of the index in order
// and costs limit+offset entries, never the number of matches:
//
//	number            instances_number (number, process_key): a few rows
//	parentId          instances_parent (parent_id, created_at)
//	businessKey       instances_business_key (business_key, created_at)
//	processKey+version instances_process_version (key, version, status, created_at)
//	processKey        instances_process (key, status, created_at)
//	otherwise         instances_status (status, created_at)
//
// The last three have status before created_at; without a status filter
// the page merges one range per status (each at most limit+offset rows).
// The other filters of f apply to the rows the index yields (a rare
// businessKey or parent has few rows; a version without a key is a scan).
func buildList(f store.InstanceFilter, limit, offset int, hasAfter bool, afterAt, afterSeq int64) listQuery {
	return buildListPlan(f, varPlan{}, limit, offset, hasAfter, afterAt, afterSeq)
}

// buildListPlan is buildList with the plan p of f's variable filters
// (planVariables): a driving filter's matches are the rows the page and
// the count read (instances by rowid, sorted: fewer than
// sqlquery.DriveVariableLimit); a counting one is read to count the
// matches, each joined with its instance row.
func buildListPlan(f store.InstanceFilter, p varPlan, limit, offset int, hasAfter bool, afterAt, afterSeq int64) listQuery {
	vars := f.Variables // the driving or counting filter among them
	cf := f             // the other conditions of what the variable index reads
	if p.drive || p.count {
		cf = p.rest(f)
	}
	if p.drive {
		f = cf
	}
	index, byStatus, where, whereArgs := listConds(f)
	add := func(cond string, args ...any) {
		where = append(where, cond)
		whereArgs = append(whereArgs, args...)
	}

	var q listQuery
	// The count ignores paging; an unfiltered count is left to the planner.
	countFrom := ` FROM instances INDEXED BY ` + index
	if len(where) == 0 {
		countFrom = ` FROM instances`
	}
	switch {
	case p.drive:
		sub, subArgs := variableSeqs(vars, p.index)
		where = append([]string{"seq IN (" + sub + ")"}, where...)
		whereArgs = append(subArgs, whereArgs...)
		// NOT INDEXED: the rowids of the matches, never a range of
		// another index (the INTEGER PRIMARY KEY stays usable).
		countFrom = ` FROM instances NOT INDEXED`
	case p.count:
		// CROSS JOIN keeps the variable index outermost, so the count
		// stops after MaxListTotal+1 matches of it.
		vfrom, cond, subArgs := variableRange(vars, p.index)
		_, _, rest, restArgs := listConds(cf)
		countFrom = ` FROM ` + vfrom + ` CROSS JOIN instances NOT INDEXED ON instances.seq = d.instance_seq`
		q.count = `SELECT COUNT(*) FROM (SELECT 1` + countFrom + whereClause(append([]string{cond}, rest...)) + ` LIMIT ?)`
		q.countArgs = append(append(subArgs, restArgs...), MaxListTotal+1)
	}
	if !p.count {
		q.count = `SELECT COUNT(*) FROM (SELECT 1` + countFrom + whereClause(where) + ` LIMIT ?)`
		q.countArgs = append(append([]any{}, whereArgs...), MaxListTotal+1)
	}

	if hasAfter {
		add("created_at <= ? AND (created_at < ? OR seq < ?)", afterAt, afterAt, afterSeq)
	}
	if p.drive {
		q.page = `SELECT ` + instanceColumns + ` FROM instances NOT INDEXED` + whereClause(where) + listOrder + ` LIMIT ? OFFSET ?`
		q.pageArgs = append(whereArgs, limit, offset)
		return q
	}
	from := ` FROM instances INDEXED BY ` + index
	if !byStatus || f.Status != "" {
		q.page = `SELECT ` + instanceColumns + from + whereClause(where) + listOrder + ` LIMIT ? OFFSET ?`
		q.pageArgs = append(whereArgs, limit, offset)
		return q
	}
	// One range of the index per status, merged. The arms carry only the
	// keys (created_at and seq, both in the index: no table reads for the
	// rows an offset skips); the page's rows are read by seq at the end.
	arms := make([]string, len(instanceStatuses))
	for i, s := range instanceStatuses {
		// s is one of the constant statuses, never input.
		arms[i] = `SELECT * FROM (SELECT created_at, seq` + from +
			whereClause(append(where[:len(where):len(where)], "status = '"+s+"'")) + listOrder + ` LIMIT ?)`
		q.pageArgs = append(q.pageArgs, whereArgs...)
		q.pageArgs = append(q.pageArgs, limit+offset)
	}
	q.page = `SELECT ` + instanceColumns + ` FROM instances WHERE seq IN (SELECT seq FROM (` + strings.Join(arms, ` UNION ALL `) + `)` +
		listOrder + ` LIMIT ? OFFSET ?)` + listOrder
	q.pageArgs = append(q.pageArgs, limit, offset)
	return q
}

// sortedPage is the page query of a list sorted by the column expression
// key (sqlquery.SortKey), after the row whose key, created_at and seq are
// after if hasAfter. Its ties fall back to created_at and seq in the same
// direction, so a row-value comparison is the keyset cursor. The matches
// are read in full and sorted (top limit+offset): a sort by a column no
// index orders.
func sortedPage(f store.InstanceFilter, p varPlan, key string, limit, offset int, hasAfter bool, after []any) (string, []any) {
	_, _, where, args := listConds(f)
	from := ` FROM instances`
	if p.drive {
		sub, subArgs := variableSeqs(f.Variables, p.index)
		_, _, where, args = listConds(p.rest(f))
		where = append([]string{"seq IN (" + sub + ")"}, where...)
		args = append(subArgs, args...)
		from = ` FROM instances NOT INDEXED`
	}
	dir, cmp := " DESC", "<"
	if f.Ascending {
		dir, cmp = " ASC", ">"
	}
	if hasAfter {
		where = append(where, "("+key+", created_at, seq) "+cmp+" (?, ?, ?)")
		args = append(args, after...)
	}
	order := " ORDER BY " + key + dir + ", created_at" + dir + ", seq" + dir
	return `SELECT ` + instanceColumns + from + whereClause(where) + order + ` LIMIT ? OFFSET ?`, append(args, limit, offset)
}

// isSorted reports whether f asks for another order than newest first.
func isSorted(f store.InstanceFilter) bool {
	return (f.SortBy != "" && f.SortBy != store.SortCreated) || f.Ascending
}

// listConds returns the index of f's list (see buildList), whether it has
// status right before created_at, and f's conditions with their arguments.
func listConds(f store.InstanceFilter) (index string, byStatus bool, where []string, whereArgs []any) {
	add := func(cond string, args ...any) {
		where = append(where, cond)
		whereArgs = append(whereArgs, args...)
	}
	switch {
	case f.Number != 0:
		index = "instances_number"
		add("number = ?", f.Number)
	case f.ParentID != "":
		index = "instances_parent"
		add("parent_id = ? AND parent_id <> ''", dbID(f.ParentID))
	case f.BusinessKey != "":
		index = "instances_business_key"
		add("business_key = ? AND business_key <> ''", f.BusinessKey)
	case f.ProcessKey != "" && f.ProcessVersion != 0:
		index, byStatus = "instances_process_version", true
	case f.ProcessKey != "":
		index, byStatus = "instances_process", true
	default:
		index, byStatus = "instances_status", true
	}
	if f.ProcessKey != "" {
		add("process_key = ?", f.ProcessKey)
	}
	if f.ProcessVersion != 0 {
		add("process_version = ?", f.ProcessVersion)
	}
	if f.ParentID != "" && index != "instances_parent" {
		add("parent_id = ?", dbID(f.ParentID))
	}
	if f.BusinessKey != "" && index != "instances_business_key" {
		add("business_key = ?", f.BusinessKey)
	}
	if f.Status != "" {
		add("status = ?", f.Status)
	}
	for _, clause := range f.ProcessKeyPatterns {
		if len(clause) == 0 {
			add("0")
			continue
		}
		ors := make([]string, len(clause))
		args := make([]any, len(clause))
		for i, p := range clause {
			ors[i], args[i] = "process_key GLOB ?", globOf(p)
		}
		add("("+strings.Join(ors, " OR ")+")", args...)
	}
	addRowFilters(f, add)
	return index, byStatus, where, whereArgs
}

// Row filters of ListInstances: each looks up one instance's rows by an
// index keyed by that instance (the token index's primary key,
// incidents_instance), never a scan.
const (
	// elementCond: a token at the element, or an open incident there.
	elementCond = `(EXISTS (SELECT 1 FROM instance_tokens t WHERE t.instance_seq = instances.seq AND t.node_id = ?)
		OR EXISTS (SELECT 1 FROM incidents c INDEXED BY incidents_instance
			WHERE c.instance_id = instances.id AND c.node_id = ? AND c.resolved_at IS NULL))`
	// incidentMessageCond: an open incident with exactly that message.
	incidentMessageCond = `EXISTS (SELECT 1 FROM incidents c INDEXED BY incidents_instance
		WHERE c.instance_id = instances.id AND c.resolved_at IS NULL AND c.message = ?)`
	// incidentPrefixCond: an open incident whose message starts with the
	// text (arguments: its length in characters, the text).
	incidentPrefixCond = `EXISTS (SELECT 1 FROM incidents c INDEXED BY incidents_instance
		WHERE c.instance_id = instances.id AND c.resolved_at IS NULL AND substr(c.message, 1, ?) = ?)`
)

// addRowFilters adds the conditions of f's element, incident and time
// filters. The creation bounds narrow the range of the list's index
// (created_at follows its equality prefix); the rest apply to the rows it
// yields.
func addRowFilters(f store.InstanceFilter, add func(cond string, args ...any)) {
	if f.Element != "" {
		add(elementCond, f.Element, f.Element)
	}
	switch {
	case f.IncidentMessagePrefix:
		add(incidentPrefixCond, utf8.RuneCountInString(f.IncidentMessage), f.IncidentMessage)
	case f.IncidentMessage != "":
		add(incidentMessageCond, f.IncidentMessage)
	}
	for _, v := range f.Variables {
		cond, args := variableCondOf(v)
		add(cond, args...)
	}
	if !f.CreatedAfter.IsZero() {
		add("created_at >= ?", encodeTime(f.CreatedAfter))
	}
	if !f.CreatedBefore.IsZero() {
		add("created_at < ?", encodeTime(f.CreatedBefore))
	}
	if !f.EndedAfter.IsZero() {
		add("ended_at >= ?", encodeTime(f.EndedAfter))
	}
	if !f.EndedBefore.IsZero() {
		add("ended_at < ?", encodeTime(f.EndedBefore))
	}
}

// globOf turns a key pattern ('*' matches any run of characters, every
// other character itself) into a GLOB pattern: the characters GLOB treats
// specially are put in brackets.
func globOf(pattern string) string {
	var b strings.Builder
	for _, r := range pattern {
		switch r {
		case '?', '[', ']':
			b.WriteByte('[')
			b.WriteRune(r)
			b.WriteByte(']')
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// whereClause joins conditions with AND.
func whereClause(conds []string) string {
	if len(conds) == 0 {
		return ""
	}
	return " WHERE " + strings.Join(conds, " AND ")
}

// cursorSQL finds the list position of an instance (ListInstances' After).
const cursorSQL = `SELECT created_at, seq FROM instances WHERE id = ?`

// ListInstances returns the instance rows matching f, newest first (by
// creation time; instances created at the same instant in the reverse of
// the order the store received them), and the number of matches regardless
// of paging, counted up to MaxListTotal: a total of MaxListTotal+1 means
// "more than MaxListTotal". Limit 0 means DefaultListLimit; larger than
// MaxListLimit is capped.
//
// f.After (the ID of the last row of the previous page) makes it a keyset
// page: the rows after that instance in the list's order; Offset then
// skips rows after it. A page costs what it returns plus Offset, never the
// number of matches (see buildList for the index of each filter). It
// returns a wrapped store.ErrNotFound if f.After names no instance.
func (db *DB) ListInstances(ctx context.Context, f store.InstanceFilter) ([]store.InstanceRow, int, error) {
	limit := sqlquery.ListLimit(f.Limit)
	offset := max(f.Offset, 0)
	key, ok := sqlquery.SortKey(f.SortBy)
	if !ok {
		return nil, 0, store.Errorf(store.EINVALID, "store: list instances: unknown sort %q", f.SortBy)
	}
	if err := sqlquery.CheckVariableFilters(f.Variables); err != nil {
		return nil, 0, fmt.Errorf("store: list instances: %w", err)
	}
	plan, err := db.planVariables(ctx, f)
	if err != nil {
		return nil, 0, fmt.Errorf("store: list instances: %w", err)
	}
	if isSorted(f) {
		return db.listSorted(ctx, f, plan, key, limit, offset)
	}
	// The statements' text depends on the filter's shape, not its values:
	// prepare them (once per shape) before the transaction takes a reader.
	shape := buildListPlan(f, plan, limit, offset, f.After != "", 0, 0)
	for _, query := range []string{shape.count, shape.page} {
		if err := db.rstmts.warm(ctx, query); err != nil {
			return nil, 0, fmt.Errorf("store: list instances: %w", err)
		}
	}
	var (
		rows  []store.InstanceRow
		total int
	)
	err = db.readWith(ctx, func(st *txStmts) error {
		var afterAt, afterSeq int64
		if f.After != "" {
			if err := st.queryRow(cursorSQL, dbID(f.After)).Scan(&afterAt, &afterSeq); err != nil {
				return fmt.Errorf("cursor %s: %w", f.After, notFound(err))
			}
		}
		q := buildListPlan(f, plan, limit, offset, f.After != "", afterAt, afterSeq)
		if err := st.queryRow(q.count, q.countArgs...).Scan(&total); err != nil {
			return err
		}
		var err error
		rows, err = queryInstances(st, q.page, q.pageArgs...)
		return err
	})
	if err != nil {
		return nil, 0, fmt.Errorf("store: list instances: %w", err)
	}
	return rows, total, nil
}

// listSorted is ListInstances for a sorted list (isSorted).
func (db *DB) listSorted(ctx context.Context, f store.InstanceFilter, plan varPlan, key string, limit, offset int) ([]store.InstanceRow, int, error) {
	count := buildListPlan(f, plan, limit, offset, false, 0, 0)
	page, _ := sortedPage(f, plan, key, limit, offset, f.After != "", nil)
	cursor := `SELECT ` + key + `, created_at, seq FROM instances WHERE id = ?`
	for _, query := range []string{count.count, page, cursor} {
		if err := db.rstmts.warm(ctx, query); err != nil {
			return nil, 0, fmt.Errorf("store: list instances: %w", err)
		}
	}
	var (
		rows  []store.InstanceRow
		total int
	)
	err := db.readWith(ctx, func(st *txStmts) error {
		var after []any
		if f.After != "" {
			var (
				k       any
				at, seq int64
			)
			err := st.queryRow(cursor, dbID(f.After)).Scan(&k, &at, &seq)
			if err != nil {
				return fmt.Errorf("cursor %s: %w", f.After, notFound(err))
			}
			after = []any{k, at, seq}
		}
		if err := st.queryRow(count.count, count.countArgs...).Scan(&total); err != nil {
			return err
		}
		query, args := sortedPage(f, plan, key, limit, offset, f.After != "", after)
		var err error
		rows, err = queryInstances(st, query, args...)
		return err
	})
	if err != nil {
		return nil, 0, fmt.Errorf("store: list instances: %w", err)
	}
	return rows, total, nil
}
