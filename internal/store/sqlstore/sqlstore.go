// Package sqlstore holds what gobpm's SQL stores share whatever their
// dialect: how times and lists become column values and back, the checks
// a record passes before any store writes it, the list limits, and the
// rules of migration files.
//
// # Who uses it
//
// internal/store (SQLite) and internal/store/pgstore (PostgreSQL) both
// implement store.Store and access.Store with the same semantics; what
// does not depend on SQL lives here once, so the two cannot drift apart.
// It imports runtime, access and auth for their record types, and no
// database driver.
//
// # Encoding
//
// Times are unix nanoseconds in a 64-bit integer column, read back in
// UTC; a zero time.Time is NULL where a column may be "not yet"
// (EncodeOptTime). Candidate lists are JSON arrays, NULL when empty
// (EncodeList).
package sqlstore

import (
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/gobpm/gobpm/internal/access"
	"github.com/gobpm/gobpm/internal/auth"
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
	// TokenHashSize is the length of a job lock token's hash (SHA-256).
	TokenHashSize = 32
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

// EncodeTime encodes t as unix nanoseconds.
func EncodeTime(t time.Time) int64 { return t.UnixNano() }

// EncodeOptTime encodes t as unix nanoseconds, the zero time as NULL.
func EncodeOptTime(t time.Time) sql.NullInt64 {
	if t.IsZero() {
		return sql.NullInt64{}
	}
	return sql.NullInt64{Int64: t.UnixNano(), Valid: true}
}

// DecodeTime decodes unix nanoseconds into a UTC time.
func DecodeTime(n int64) time.Time { return time.Unix(0, n).UTC() }

// DecodeOptTime decodes a nullable unix-nanoseconds column; NULL is the zero time.
func DecodeOptTime(n sql.NullInt64) time.Time {
	if !n.Valid {
		return time.Time{}
	}
	return DecodeTime(n.Int64)
}

// BoundTime encodes a filter bound, clamping times outside the range of
// unix nanoseconds to its ends (a bound far in the past or future still
// means "unbounded on that side", never a wrapped-around number).
func BoundTime(t time.Time) int64 {
	switch {
	case t.Before(time.Unix(0, math.MinInt64)):
		return math.MinInt64
	case t.After(time.Unix(0, math.MaxInt64)):
		return math.MaxInt64
	}
	return EncodeTime(t)
}

// RequireTime fails when a required time is zero.
func RequireTime(column string, t time.Time) error {
	if t.IsZero() {
		return fmt.Errorf("%s is required", column)
	}
	return nil
}

// EncodeList encodes a candidate list as a JSON array, an empty one as NULL.
func EncodeList(list []string) (sql.NullString, error) {
	if len(list) == 0 {
		return sql.NullString{}, nil
	}
	b, err := json.Marshal(list)
	return sql.NullString{String: string(b), Valid: true}, err
}

// DecodeList decodes EncodeList's column; NULL and [] are nil.
func DecodeList(s sql.NullString) ([]string, error) {
	if !s.Valid {
		return nil, nil
	}
	var list []string
	if err := json.Unmarshal([]byte(s.String), &list); err != nil {
		return nil, err
	}
	if len(list) == 0 {
		return nil, nil
	}
	return list, nil
}

// TokenHashIndex checks the lock token hashes of an activation (each
// TokenHashSize bytes, no repeats) and returns each hash's position, by
// which the activated jobs are ordered.
func TokenHashIndex(hashes [][]byte) (map[string]int, error) {
	index := make(map[string]int, len(hashes))
	for i, h := range hashes {
		if len(h) != TokenHashSize {
			return nil, fmt.Errorf("token hash %d has %d bytes, want %d", i, len(h), TokenHashSize)
		}
		if _, dup := index[string(h)]; dup {
			return nil, fmt.Errorf("token hash %d repeats an earlier one", i)
		}
		index[string(h)] = i
	}
	return index, nil
}

// ErrExists is the error of creating a record whose id is taken.
var ErrExists = fmt.Errorf("already exists: %w", store.ErrConflict)

// GrantColumns are the columns of a grant: its subject and either a role
// or a permission on a resource pattern (the others "").
type GrantColumns struct {
	SubjectKind, SubjectID, Role, Permission, ResourceKind, Pattern string
}

// Args returns the columns in table order, for a statement's arguments.
func (k GrantColumns) Args() []any {
	return []any{k.SubjectKind, k.SubjectID, k.Role, k.Permission, k.ResourceKind, k.Pattern}
}

// EncodeGrant checks a grant (a known subject kind; exactly one of a
// valid role or a valid grant) and returns its columns.
func EncodeGrant(g access.GrantRecord) (GrantColumns, error) {
	k := GrantColumns{SubjectKind: string(g.Subject.Kind), SubjectID: g.Subject.ID}
	switch g.Subject.Kind {
	case access.SubjectUser, access.SubjectGroup:
	default:
		return k, fmt.Errorf("unknown subject kind %q", g.Subject.Kind)
	}
	switch {
	case g.Role != "" && g.Grant != nil:
		return k, errors.New("both a role and a grant are set; give one")
	case g.Role != "":
		if _, err := auth.ParseRole(string(g.Role)); err != nil {
			return k, err
		}
		k.Role = string(g.Role)
	case g.Grant != nil:
		if err := g.Grant.Validate(); err != nil {
			return k, err
		}
		k.Permission, k.ResourceKind, k.Pattern = string(g.Grant.Permission), string(g.Grant.Kind), g.Grant.Pattern.String()
	default:
		return k, errors.New("neither a role nor a grant is set")
	}
	return k, nil
}

// DecodeGrant builds the grant record of a stored row.
func DecodeGrant(id int64, k GrantColumns, created int64, createdBy string) (access.GrantRecord, error) {
	g := access.GrantRecord{
		ID:        id,
		Subject:   access.Subject{Kind: access.SubjectKind(k.SubjectKind), ID: k.SubjectID},
		Role:      auth.Role(k.Role),
		CreatedAt: DecodeTime(created),
		CreatedBy: auth.UserID(createdBy),
	}
	if k.Permission != "" {
		p, err := auth.ParsePattern(k.Pattern)
		if err != nil {
			return g, fmt.Errorf("grant %d: %w", id, err)
		}
		g.Grant = &auth.Grant{Permission: auth.Permission(k.Permission), Kind: auth.ResourceKind(k.ResourceKind), Pattern: p}
	}
	return g, nil
}

// AddedGrant is the record AddGrant returns for a grant it inserted as id:
// g with its time as stored and its own copy of the grant.
func AddedGrant(g access.GrantRecord, id int64) access.GrantRecord {
	out := g
	out.ID = id
	out.CreatedAt = DecodeTime(EncodeTime(g.CreatedAt))
	if g.Grant != nil {
		gr := *g.Grant
		out.Grant = &gr
	}
	return out
}

// EncodeRestriction encodes a token's restriction as JSON (NULL for none).
func EncodeRestriction(r *auth.Restriction) (sql.NullString, error) {
	if r == nil {
		return sql.NullString{}, nil
	}
	b, err := json.Marshal(r)
	return sql.NullString{String: string(b), Valid: err == nil}, err
}

// DecodeRestriction decodes EncodeRestriction's column.
func DecodeRestriction(s sql.NullString) (*auth.Restriction, error) {
	if !s.Valid {
		return nil, nil
	}
	r := new(auth.Restriction)
	if err := json.Unmarshal([]byte(s.String), r); err != nil {
		return nil, fmt.Errorf("restriction: %w", err)
	}
	return r, nil
}

// CheckSession checks a session before it is stored.
func CheckSession(s auth.Session) error {
	switch {
	case s.IDHash.IsZero():
		return errors.New("no id hash")
	case s.User == "":
		return errors.New("no user")
	}
	return errors.Join(RequireTime("created at", s.CreatedAt), RequireTime("expires at", s.ExpiresAt),
		RequireTime("last seen at", s.LastSeenAt))
}

// EncodeGroups encodes a session's groups as JSON (NULL for none).
func EncodeGroups(groups []auth.GroupID) (sql.NullString, error) {
	if len(groups) == 0 {
		return sql.NullString{}, nil
	}
	b, err := json.Marshal(groups)
	return sql.NullString{String: string(b), Valid: err == nil}, err
}

// DecodeGroups decodes EncodeGroups's column.
func DecodeGroups(s sql.NullString) ([]auth.GroupID, error) {
	if !s.Valid {
		return nil, nil
	}
	var groups []auth.GroupID
	if err := json.Unmarshal([]byte(s.String), &groups); err != nil {
		return nil, err
	}
	return groups, nil
}

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
