// Package sqlquery holds the SQL that gobpm's two drivers share whatever
// their dialect, and the rules that shape it: the page limits of the lists,
// the sort keys and task orders, the walk up a call tree, how element counts
// are gathered, the order in which created instances take their numbers,
// when an instance may be deleted, and the naming rule of migration files.
//
// # Who uses it
//
// internal/store/sqlite and internal/store/postgres both implement
// store.Store and access.Store with the same semantics; what their queries
// share lives here once, so the two cannot drift apart. How a value becomes
// a column is internal/store/sqlcodec's. It imports store and access for
// their record types, and no database driver.
//
// # Placeholders
//
// A query that takes arguments leaves its filter to the caller, written in
// the caller's placeholder style (? or $1): see IncidentAncestryQuery.
package sqlquery

import (
	"fmt"
	"io/fs"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/gobpm/gobpm/internal/access"
	"github.com/gobpm/gobpm/internal/store"
)

// Limits of the paged lists, the same in every store.
const (
	// DefaultListLimit is the page size of ListInstances, Tasks and Users
	// when the filter sets none.
	DefaultListLimit = 50
	// MaxListLimit caps the page size of those lists.
	MaxListLimit = 500
	// DefaultAuditLimit is the page size of Audit when the filter sets none.
	DefaultAuditLimit = 100
	// MaxAuditLimit caps the page size of Audit.
	MaxAuditLimit = 1000
)

// ListLimit returns the page size for a requested limit: the default for
// 0 or less, capped at MaxListLimit.
func ListLimit(limit int) int {
	switch {
	case limit <= 0:
		return DefaultListLimit
	case limit > MaxListLimit:
		return MaxListLimit
	}
	return limit
}

// AuditLimit checks an audit filter's paging and returns its page size.
func AuditLimit(f access.AuditFilter) (int, error) {
	switch {
	case f.Limit < 0:
		return 0, fmt.Errorf("negative limit %d", f.Limit)
	case f.Before < 0:
		return 0, fmt.Errorf("negative before %d", f.Before)
	case f.Limit == 0:
		return DefaultAuditLimit, nil
	case f.Limit > MaxAuditLimit:
		return MaxAuditLimit, nil
	}
	return f.Limit, nil
}

// ErrExists is the error of creating a record whose id is taken.
var ErrExists = fmt.Errorf("already exists: %w", store.ErrConflict)

// Migration is one NNNN_description.sql file.
type Migration struct {
	// Version is NNNN, unique and positive.
	Version int
	// Name is the file name.
	Name string
	// SQL is the file's content.
	SQL string
}

// LoadMigrations reads the *.sql files at the root of fsys, sorted by
// version. Every file must be named NNNN_description.sql with a unique
// version.
func LoadMigrations(fsys fs.FS) ([]Migration, error) {
	names, err := fs.Glob(fsys, "*.sql")
	if err != nil {
		return nil, fmt.Errorf("migrate: list: %w", err)
	}
	seen := make(map[int]string, len(names))
	ms := make([]Migration, 0, len(names))
	for _, name := range names {
		prefix, _, ok := strings.Cut(name, "_")
		v, err := strconv.Atoi(prefix)
		if !ok || err != nil || len(prefix) != 4 || v <= 0 {
			return nil, fmt.Errorf("migrate: %s: name must be NNNN_description.sql", name)
		}
		if other, dup := seen[v]; dup {
			return nil, fmt.Errorf("migrate: %s and %s share version %d", other, name, v)
		}
		seen[v] = name
		b, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, fmt.Errorf("migrate: %s: %w", name, err)
		}
		ms = append(ms, Migration{Version: v, Name: name, SQL: string(b)})
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i].Version < ms[j].Version })
	return ms, nil
}

// DeleteRefusal says why an instance may not be deleted (history
// retention's rules, the same in every store), or nil when it may: it
// must be completed or terminated, its caller must not be running or
// failed, and no after-commit delivery of it may be pending.
func DeleteRefusal(id store.InstanceID, status string, callerRuns bool, pending int64) error {
	switch {
	case status != store.StatusCompleted && status != store.StatusTerminated:
		return &store.Error{Code: store.ECONFLICT, Message: fmt.Sprintf(
			"instance %s is %s: only a completed or terminated instance can be deleted (cancel it first)", id, status)}
	case callerRuns:
		return &store.Error{Code: store.ECONFLICT, Message: fmt.Sprintf(
			"instance %s was called by an instance that still runs: it can be deleted once its caller has ended", id)}
	case pending > 0:
		return &store.Error{Code: store.ECONFLICT, Message: fmt.Sprintf(
			"instance %s still has %d after-commit deliveries pending (e.g. its outcome to its caller): try again shortly", id, pending)}
	}
	return nil
}

// MaxCallDepth bounds the walk up a call tree (IncidentAncestryQuery), so
// that a parent link that loops (which the runtime never writes) cannot
// keep a query running.
const MaxCallDepth = 1000

// IncidentAncestryQuery is the query both stores answer
// store.Store.IncidentAncestry with: it walks up from every instance with
// an open incident through parent_id, one index lookup per level, and
// yields (start, ancestor id, ancestor process key, depth); filter, in the
// store's placeholder style, selects the ancestors ("" for all).
func IncidentAncestryQuery(filter string) string {
	return `WITH RECURSIVE up(start, id, key, parent, depth) AS (
		SELECT i.id, i.id, i.process_key, i.parent_id, 0
		FROM instances i WHERE i.id IN (SELECT instance_id FROM incidents WHERE resolved_at IS NULL)
		UNION ALL
		SELECT up.start, p.id, p.process_key, p.parent_id, up.depth + 1
		FROM up JOIN instances p ON p.id = up.parent
		WHERE up.parent <> '' AND up.depth < ` + strconv.Itoa(MaxCallDepth) + `
	)
	SELECT start, id, key, depth FROM up` + filter
}

// NumberOrder returns the indexes of the steps that create their instance
// (PrevRevision 0) in the order they take their numbers (instances.number):
// a caller before the children it calls in the same batch, else batch
// order. The runtime lists a start's records with its children after
// their own children (it launches depth first), so batch order alone
// would number a grandchild before its parent.
func NumberOrder(steps []store.StepRecord) []int {
	var (
		order []int
		at    map[store.InstanceID]int
	)
	for i := range steps {
		if steps[i].PrevRevision == 0 {
			order = append(order, i)
		}
	}
	if len(order) < 2 {
		return order
	}
	at = make(map[store.InstanceID]int, len(order))
	for _, i := range order {
		at[steps[i].Instance.ID] = i
	}
	depth := make(map[int]int, len(order))
	for _, i := range order {
		d := 0
		for p, ok := at[steps[i].Instance.ParentID]; ok && d < len(order); p, ok = at[steps[p].Instance.ParentID] {
			d++
		}
		depth[i] = d
	}
	slices.SortStableFunc(order, func(a, b int) int { return depth[a] - depth[b] })
	return order
}

// TaskOrderBy is the ORDER BY list of a task list's order over the waits
// table (the same in both stores): ties broken by creation time, then id.
func TaskOrderBy(o store.TaskOrder) string {
	switch o {
	case store.TaskOrderNewest:
		return "created_at DESC, id DESC"
	case store.TaskOrderDue:
		return "due_at IS NULL, due_at, created_at, id"
	}
	return "created_at, id"
}

// ElementCounts gathers the per-element counts of ElementCounts from the
// rows of its two GROUP BY queries, tokens then incidents (each row: an
// element id and a count), by element id.
type ElementCounts struct {
	at  map[string]int
	out []store.ElementCount
}

// Add adds n tokens (incidents false) or open incidents at node.
func (c *ElementCounts) Add(node string, n int, incidents bool) {
	if c.at == nil {
		c.at = map[string]int{}
	}
	i, ok := c.at[node]
	if !ok {
		i = len(c.out)
		c.at[node] = i
		c.out = append(c.out, store.ElementCount{NodeID: node})
	}
	if incidents {
		c.out[i].Incidents += n
	} else {
		c.out[i].Tokens += n
	}
}

// List returns the counts by element id.
func (c *ElementCounts) List() []store.ElementCount {
	slices.SortFunc(c.out, func(a, b store.ElementCount) int { return strings.Compare(a.NodeID, b.NodeID) })
	return c.out
}

// SortKey is the SQL expression an instance list sorts by for
// store.InstanceFilter.SortBy, the same in both stores' dialects: a
// number never given sorts as 0, an instance not ended as 0 too. ok is
// false for a column it does not know.
func SortKey(sortBy string) (expr string, ok bool) {
	switch sortBy {
	case "", store.SortCreated:
		return "created_at", true
	case store.SortNumber:
		return "COALESCE(number, 0)", true
	case store.SortProcess:
		return "process_key", true
	case store.SortStatus:
		return "status", true
	case store.SortEnded:
		return "COALESCE(ended_at, 0)", true
	}
	return "", false
}
