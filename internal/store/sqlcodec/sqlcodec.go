// Package sqlcodec holds how gobpm's SQL drivers turn record fields into
// column values and back, and the checks a record passes before either
// driver writes it.
//
// # Who uses it
//
// internal/store/sqlite and internal/store/postgres store the same records
// in the same column forms; the encodings live here once, so a database
// written by one reads the same as the other. The queries they share are
// internal/store/sqlquery's. It imports access and auth for their record
// types, and no database driver.
//
// # Encoding
//
// Times are unix nanoseconds in a 64-bit integer column, read back in
// UTC; a zero time.Time is NULL where a column may be "not yet"
// (EncodeOptTime). Candidate lists, groups and restrictions are JSON, NULL
// when empty (EncodeList). Grants are six text columns (GrantColumns).
package sqlcodec

import (
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/gobpm/gobpm/internal/access"
	"github.com/gobpm/gobpm/internal/auth"
)

// TokenHashSize is the length of a job lock token's hash (SHA-256).
const TokenHashSize = 32

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
