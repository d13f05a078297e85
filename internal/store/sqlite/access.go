package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/gobpm/gobpm/internal/access"
	"github.com/gobpm/gobpm/internal/auth"
	"github.com/gobpm/gobpm/internal/store"
	"github.com/gobpm/gobpm/internal/store/sqlcodec"
	"github.com/gobpm/gobpm/internal/store/sqlquery"
)

// DB implements access.Store in the tables of migration 0006: built-in
// identities, grants, tokens and sessions here, the audit trail in audit.go.
var _ access.Store = (*DB)(nil)

// The statements of users, groups, grants, tokens and sessions. A write
// that must not overwrite (a create) inserts ON CONFLICT DO NOTHING and
// reads a conflict from the rows it affected; a write of one row by key
// reads "not found" the same way.
const (
	userColumns   = `id, name, password_hash, disabled, created_at`
	insertUserSQL = `INSERT INTO users (` + userColumns + `) VALUES (?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING`
	// updateUserSQL arguments: name, password hash, disabled, id.
	updateUserSQL = `UPDATE users SET name = ?, password_hash = ?, disabled = ? WHERE id = ?`
	selectUserSQL = `SELECT ` + userColumns + ` FROM users WHERE id = ?`
	// usersSQL arguments: after, limit.
	usersSQL      = `SELECT ` + userColumns + ` FROM users WHERE id > ? ORDER BY id LIMIT ?`
	countUsersSQL = `SELECT COUNT(*) FROM users`
	userExistsSQL = `SELECT 1 FROM users WHERE id = ?`
	// deleteUserSQL deletes a user; the foreign keys take their memberships
	// and tokens along.
	deleteUserSQL         = `DELETE FROM users WHERE id = ?`
	deleteUserSessionsSQL = `DELETE FROM sessions WHERE user_id = ?`

	insertGroupSQL = `INSERT INTO groups (id, name, created_at) VALUES (?, ?, ?) ON CONFLICT (id) DO NOTHING`
	groupsSQL      = `SELECT id, name, created_at FROM groups ORDER BY id`
	groupExistsSQL = `SELECT 1 FROM groups WHERE id = ?`
	// deleteGroupSQL deletes a group; the foreign key takes its memberships
	// along.
	deleteGroupSQL = `DELETE FROM groups WHERE id = ?`

	// addMemberSQL and removeMemberSQL arguments: group, user.
	addMemberSQL    = `INSERT INTO memberships (group_id, user_id) VALUES (?, ?) ON CONFLICT DO NOTHING`
	removeMemberSQL = `DELETE FROM memberships WHERE group_id = ? AND user_id = ?`
	// groupsOfSQL and membersSQL answer a list and whether its owner
	// exists in one statement: no row for an unknown user or group, one NULL
	// row for one without memberships.
	groupsOfSQL = `SELECT m.group_id FROM users u LEFT JOIN memberships m ON m.user_id = u.id
		WHERE u.id = ? ORDER BY m.group_id`
	membersSQL = `SELECT m.user_id FROM groups g LEFT JOIN memberships m ON m.group_id = g.id
		WHERE g.id = ? ORDER BY m.user_id`

	grantColumns   = `id, subject_kind, subject_id, role, permission, resource_kind, pattern, created_at, created_by`
	insertGrantSQL = `INSERT INTO grants (subject_kind, subject_id, role, permission, resource_kind, pattern, created_at, created_by)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)`
	// findGrantSQL finds a grant by what it gives to whom (the unique index
	// grants_subject). Arguments: subject kind, subject id, role,
	// permission, resource kind, pattern.
	findGrantSQL = `SELECT ` + grantColumns + ` FROM grants
		WHERE subject_kind = ? AND subject_id = ? AND role = ? AND permission = ? AND resource_kind = ? AND pattern = ?`
	removeGrantSQL        = `DELETE FROM grants WHERE id = ?`
	deleteSubjectGrantSQL = `DELETE FROM grants WHERE subject_kind = ? AND subject_id = ?`
	allGrantsSQL          = `SELECT ` + grantColumns + ` FROM grants ORDER BY id`
	subjectGrantsSQL      = `SELECT ` + grantColumns + ` FROM grants WHERE subject_kind = ? AND subject_id = ? ORDER BY id`
	// grantsForSQL reads the grants of a user and a JSON array of groups in
	// one statement (two ranges of grants_subject). Arguments: user, groups.
	grantsForSQL = `SELECT ` + grantColumns + ` FROM grants
		WHERE (subject_kind = 'user' AND subject_id = ?)
		   OR (subject_kind = 'group' AND subject_id IN (SELECT value FROM json_each(?)))
		ORDER BY id`

	tokenColumns   = `id, owner, name, restriction, hash, created_at, expires_at, last_used_at, revoked_at`
	insertTokenSQL = `INSERT INTO tokens (` + tokenColumns + `) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING`
	selectTokenSQL = `SELECT ` + tokenColumns + ` FROM tokens WHERE id = ?`
	ownerTokensSQL = `SELECT ` + tokenColumns + ` FROM tokens WHERE owner = ? ORDER BY created_at DESC, id DESC`
	allTokensSQL   = `SELECT ` + tokenColumns + ` FROM tokens ORDER BY created_at DESC, id DESC`
	// revokeTokenSQL keeps the first revocation. Arguments: at, id.
	revokeTokenSQL = `UPDATE tokens SET revoked_at = COALESCE(revoked_at, ?) WHERE id = ?`
	// touchTokenSQL never moves last use back (concurrent requests touch
	// in any order). Arguments: at, id.
	touchTokenSQL = `UPDATE tokens SET last_used_at = MAX(COALESCE(last_used_at, ?1), ?1) WHERE id = ?2`

	sessionColumns   = `id_hash, user_id, groups, created_at, expires_at, last_seen_at`
	insertSessionSQL = `INSERT INTO sessions (` + sessionColumns + `) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (id_hash) DO NOTHING`
	selectSessionSQL = `SELECT ` + sessionColumns + ` FROM sessions WHERE id_hash = ?`
	// touchSessionSQL never moves last use back. Arguments: at, hash.
	touchSessionSQL          = `UPDATE sessions SET last_seen_at = MAX(last_seen_at, ?) WHERE id_hash = ?`
	deleteSessionSQL         = `DELETE FROM sessions WHERE id_hash = ?`
	deleteExpiredSessionsSQL = `DELETE FROM sessions WHERE expires_at <= ?`
)

// init adds the statements of this file and audit.go to those Open
// prepares (stmt.go), by the pool that runs them: every one is fixed text
// and most serve each authenticated request.
func init() {
	writeQueries = append(writeQueries,
		insertUserSQL, updateUserSQL, userExistsSQL, deleteUserSQL, deleteUserSessionsSQL,
		insertGroupSQL, groupExistsSQL, deleteGroupSQL, addMemberSQL, removeMemberSQL,
		insertGrantSQL, findGrantSQL, removeGrantSQL, deleteSubjectGrantSQL,
		insertTokenSQL, revokeTokenSQL, touchTokenSQL,
		insertSessionSQL, touchSessionSQL, deleteSessionSQL, deleteExpiredSessionsSQL,
		insertAuditSQL)
	readQueries = append(readQueries,
		selectUserSQL, usersSQL, countUsersSQL, userExistsSQL, groupsSQL, groupExistsSQL, groupsOfSQL, membersSQL,
		allGrantsSQL, subjectGrantsSQL, grantsForSQL,
		selectTokenSQL, ownerTokensSQL, allTokensSQL, selectSessionSQL)
}

// requireTime fails when a required time is zero (sqlcodec.RequireTime).
func requireTime(column string, t time.Time) error { return sqlcodec.RequireTime(column, t) }

// execOne runs query and returns errNone if it changed no row: a create
// that found the key taken, or a write by key that found no row.
func execOne(st *txStmts, errNone error, query string, args ...any) error {
	res, err := st.exec(query, args...)
	if err != nil {
		return err
	}
	n, err := res.RowsAffected()
	if err != nil {
		return err
	}
	if n == 0 {
		return errNone
	}
	return nil
}

// exists returns a wrapped store.ErrNotFound unless query (userExistsSQL
// or groupExistsSQL) finds id.
func exists(st *txStmts, query, what, id string) error {
	var one int
	if err := st.queryRow(query, id).Scan(&one); err != nil {
		return fmt.Errorf("%s %s: %w", what, id, notFound(err))
	}
	return nil
}

// errExists is the error of creating a record whose id is taken.
var errExists = sqlquery.ErrExists

// CreateUser adds a user. It returns a wrapped store.ErrConflict if a
// user with that id exists. CreatedAt is required.
func (db *DB) CreateUser(ctx context.Context, u access.User) error {
	err := requireTime("created at", u.CreatedAt)
	if err == nil {
		err = db.writeWith(ctx, func(st *txStmts) error {
			return execOne(st, errExists, insertUserSQL,
				string(u.ID), u.Name, u.PasswordHash, u.Disabled, encodeTime(u.CreatedAt))
		})
	}
	if err != nil {
		return fmt.Errorf("store: create user %s: %w", u.ID, err)
	}
	return nil
}

// UpdateUser replaces a user's name, password hash and disabled flag (its
// CreatedAt stays). It returns a wrapped store.ErrNotFound if there is no
// such user.
func (db *DB) UpdateUser(ctx context.Context, u access.User) error {
	err := db.writeWith(ctx, func(st *txStmts) error {
		return execOne(st, store.ErrNotFound, updateUserSQL, u.Name, u.PasswordHash, u.Disabled, string(u.ID))
	})
	if err != nil {
		return fmt.Errorf("store: update user %s: %w", u.ID, err)
	}
	return nil
}

// scanUser reads the userColumns of a row.
func scanUser(row interface{ Scan(...any) error }) (access.User, error) {
	var (
		u       access.User
		created int64
	)
	if err := row.Scan(&u.ID, &u.Name, &u.PasswordHash, &u.Disabled, &created); err != nil {
		return access.User{}, err
	}
	u.CreatedAt = decodeTime(created)
	return u, nil
}

// User returns one user. It returns a wrapped store.ErrNotFound if there
// is none.
func (db *DB) User(ctx context.Context, id auth.UserID) (access.User, error) {
	u, err := scanUser(db.readOne(ctx).queryRow(selectUserSQL, string(id)))
	if err != nil {
		return access.User{}, fmt.Errorf("store: user %s: %w", id, notFound(err))
	}
	return u, nil
}

// Users lists users by id, after the given id (exclusive; "" from the
// first), at most limit of them: 0 or less means DefaultListLimit, more
// than MaxListLimit is capped.
func (db *DB) Users(ctx context.Context, after auth.UserID, limit int) ([]access.User, error) {
	switch {
	case limit <= 0:
		limit = DefaultListLimit
	case limit > MaxListLimit:
		limit = MaxListLimit
	}
	out, err := queryRows(db.readOne(ctx), scanUser, usersSQL, string(after), limit)
	if err != nil {
		return nil, fmt.Errorf("store: users after %q: %w", after, err)
	}
	return out, nil
}

// CountUsers returns how many users exist.
func (db *DB) CountUsers(ctx context.Context) (int, error) {
	var n int
	if err := db.readOne(ctx).queryRow(countUsersSQL).Scan(&n); err != nil {
		return 0, fmt.Errorf("store: count users: %w", err)
	}
	return n, nil
}

// DeleteUser removes a user with their memberships, grants, tokens and
// sessions in one transaction. It returns a wrapped store.ErrNotFound if
// there is no such user.
func (db *DB) DeleteUser(ctx context.Context, id auth.UserID) error {
	err := db.writeWith(ctx, func(st *txStmts) error {
		if err := execOne(st, store.ErrNotFound, deleteUserSQL, string(id)); err != nil {
			return err
		}
		if _, err := st.exec(deleteSubjectGrantSQL, string(access.SubjectUser), string(id)); err != nil {
			return fmt.Errorf("delete grants: %w", err)
		}
		if _, err := st.exec(deleteUserSessionsSQL, string(id)); err != nil {
			return fmt.Errorf("delete sessions: %w", err)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("store: delete user %s: %w", id, err)
	}
	return nil
}

// CreateGroup adds a group. It returns a wrapped store.ErrConflict if a
// group with that id exists. CreatedAt is required.
func (db *DB) CreateGroup(ctx context.Context, g access.Group) error {
	err := requireTime("created at", g.CreatedAt)
	if err == nil {
		err = db.writeWith(ctx, func(st *txStmts) error {
			return execOne(st, errExists, insertGroupSQL, string(g.ID), g.Name, encodeTime(g.CreatedAt))
		})
	}
	if err != nil {
		return fmt.Errorf("store: create group %s: %w", g.ID, err)
	}
	return nil
}

// Groups lists every group by id.
func (db *DB) Groups(ctx context.Context) ([]access.Group, error) {
	out, err := queryRows(db.readOne(ctx), func(row interface{ Scan(...any) error }) (access.Group, error) {
		var (
			g       access.Group
			created int64
		)
		err := row.Scan(&g.ID, &g.Name, &created)
		g.CreatedAt = decodeTime(created)
		return g, err
	}, groupsSQL)
	if err != nil {
		return nil, fmt.Errorf("store: groups: %w", err)
	}
	return out, nil
}

// DeleteGroup removes a group with its memberships and grants in one
// transaction. It returns a wrapped store.ErrNotFound if there is no such
// group.
func (db *DB) DeleteGroup(ctx context.Context, id auth.GroupID) error {
	err := db.writeWith(ctx, func(st *txStmts) error {
		if err := execOne(st, store.ErrNotFound, deleteGroupSQL, string(id)); err != nil {
			return err
		}
		if _, err := st.exec(deleteSubjectGrantSQL, string(access.SubjectGroup), string(id)); err != nil {
			return fmt.Errorf("delete grants: %w", err)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("store: delete group %s: %w", id, err)
	}
	return nil
}

// SetMember adds user to group (member true) or removes them. Both must
// exist (else a wrapped store.ErrNotFound naming the missing one); adding
// a member twice or removing a non-member changes nothing.
func (db *DB) SetMember(ctx context.Context, group auth.GroupID, user auth.UserID, member bool) error {
	err := db.writeWith(ctx, func(st *txStmts) error {
		if err := exists(st, groupExistsSQL, "group", string(group)); err != nil {
			return err
		}
		if err := exists(st, userExistsSQL, "user", string(user)); err != nil {
			return err
		}
		query := removeMemberSQL
		if member {
			query = addMemberSQL
		}
		_, err := st.exec(query, string(group), string(user))
		return err
	})
	if err != nil {
		return fmt.Errorf("store: set member %s of group %s to %t: %w", user, group, member, err)
	}
	return nil
}

// memberList runs groupsOfSQL or membersSQL for owner: the ids, sorted, or
// store.ErrNotFound if the owner does not exist.
func memberList[ID ~string](q querier, query, owner string) ([]ID, error) {
	rs, err := q.query(query, owner)
	if err != nil {
		return nil, err
	}
	defer rs.Close()
	var (
		out   []ID
		found bool
	)
	for rs.Next() {
		found = true
		var id sql.NullString
		if err := rs.Scan(&id); err != nil {
			return nil, err
		}
		if id.Valid {
			out = append(out, ID(id.String))
		}
	}
	if err := rs.Err(); err != nil {
		return nil, err
	}
	if !found {
		return nil, store.ErrNotFound
	}
	return out, nil
}

// GroupsOf returns the groups of a user, sorted (nil for none). It returns
// a wrapped store.ErrNotFound if there is no such user.
func (db *DB) GroupsOf(ctx context.Context, user auth.UserID) ([]auth.GroupID, error) {
	out, err := memberList[auth.GroupID](db.readOne(ctx), groupsOfSQL, string(user))
	if err != nil {
		return nil, fmt.Errorf("store: groups of user %s: %w", user, err)
	}
	return out, nil
}

// Members returns the users of a group, sorted (nil for none). It returns a
// wrapped store.ErrNotFound if there is no such group.
func (db *DB) Members(ctx context.Context, group auth.GroupID) ([]auth.UserID, error) {
	out, err := memberList[auth.UserID](db.readOne(ctx), membersSQL, string(group))
	if err != nil {
		return nil, fmt.Errorf("store: members of group %s: %w", group, err)
	}
	return out, nil
}

// scanGrant reads the grantColumns of a row. A stored grant is read back
// with its pattern parsed but not validated: a grant that a later version
// no longer accepts covers nothing (auth.Grant.Covers), but must not stop
// the other grants of its subject from loading.
func scanGrant(row interface{ Scan(...any) error }) (access.GrantRecord, error) {
	var (
		id        int64
		k         sqlcodec.GrantColumns
		created   int64
		createdBy string
	)
	if err := row.Scan(&id, &k.SubjectKind, &k.SubjectID, &k.Role, &k.Permission, &k.ResourceKind, &k.Pattern,
		&created, &createdBy); err != nil {
		return access.GrantRecord{}, err
	}
	return sqlcodec.DecodeGrant(id, k, created, createdBy)
}

// AddGrant stores g (its ID is ignored) and returns it with its ID; exactly
// one of Role (a built-in role) and Grant (a valid grant) must be set, and
// CreatedAt. The subject must exist (else a wrapped store.ErrNotFound).
// Giving the same role or grant to the same subject again returns the
// existing record, with its own CreatedAt and CreatedBy.
func (db *DB) AddGrant(ctx context.Context, g access.GrantRecord) (access.GrantRecord, error) {
	k, err := sqlcodec.EncodeGrant(g)
	if err == nil {
		err = requireTime("created at", g.CreatedAt)
	}
	var out access.GrantRecord
	if err == nil {
		err = db.writeWith(ctx, func(st *txStmts) error {
			query, what := userExistsSQL, "user"
			if g.Subject.Kind == access.SubjectGroup {
				query, what = groupExistsSQL, "group"
			}
			if err := exists(st, query, what, g.Subject.ID); err != nil {
				return err
			}
			args := k.Args()
			var err error
			out, err = scanGrant(st.queryRow(findGrantSQL, args...))
			if !errors.Is(err, sql.ErrNoRows) {
				return err
			}
			res, err := st.exec(insertGrantSQL, append(args, encodeTime(g.CreatedAt), string(g.CreatedBy))...)
			if err != nil {
				return err
			}
			// The record as a read would return it: its own grant, the
			// time in UTC.
			id, err := res.LastInsertId()
			out = sqlcodec.AddedGrant(g, id)
			return err
		})
	}
	if err != nil {
		return access.GrantRecord{}, fmt.Errorf("store: add grant to %s %s: %w", g.Subject.Kind, g.Subject.ID, err)
	}
	return out, nil
}

// RemoveGrant deletes a grant by ID. It returns a wrapped
// store.ErrNotFound if there is no such grant.
func (db *DB) RemoveGrant(ctx context.Context, id int64) error {
	err := db.writeWith(ctx, func(st *txStmts) error {
		return execOne(st, store.ErrNotFound, removeGrantSQL, id)
	})
	if err != nil {
		return fmt.Errorf("store: remove grant %d: %w", id, err)
	}
	return nil
}

// Grants lists the grants given to subject, or every grant when subject is
// the zero Subject, ordered by ID. It returns a wrapped store.ErrNotFound
// if the subject does not exist.
func (db *DB) Grants(ctx context.Context, subject access.Subject) ([]access.GrantRecord, error) {
	var out []access.GrantRecord
	err := db.readWith(ctx, func(st *txStmts) error {
		if subject == (access.Subject{}) {
			var err error
			out, err = queryRows(st, scanGrant, allGrantsSQL)
			return err
		}
		query := userExistsSQL
		switch subject.Kind {
		case access.SubjectUser:
		case access.SubjectGroup:
			query = groupExistsSQL
		default:
			return fmt.Errorf("unknown subject kind %q", subject.Kind)
		}
		var err error
		out, err = queryRows(st, scanGrant, subjectGrantsSQL, string(subject.Kind), subject.ID)
		if err == nil && len(out) == 0 {
			return exists(st, query, string(subject.Kind), subject.ID)
		}
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("store: grants of %s %s: %w", subject.Kind, subject.ID, err)
	}
	return out, nil
}

// GrantsFor returns the grants given to user or to any of groups, ordered
// by ID, in one statement. Neither the user nor the groups need exist (an
// OIDC user is not stored): what is not stored has no grants.
func (db *DB) GrantsFor(ctx context.Context, user auth.UserID, groups []auth.GroupID) ([]access.GrantRecord, error) {
	gs := []byte("[]")
	if len(groups) > 0 {
		var err error
		if gs, err = json.Marshal(groups); err != nil {
			return nil, fmt.Errorf("store: grants for user %s: %w", user, err)
		}
	}
	out, err := queryRows(db.readOne(ctx), scanGrant, grantsForSQL, string(user), string(gs))
	if err != nil {
		return nil, fmt.Errorf("store: grants for user %s: %w", user, err)
	}
	return out, nil
}

// CreateToken stores a minted token: its metadata and the hash of its
// secret. The owner must exist (else a wrapped store.ErrNotFound); an id
// that exists is a wrapped store.ErrConflict. A token needs its hash and
// CreatedAt.
func (db *DB) CreateToken(ctx context.Context, t auth.Token) error {
	err := requireTime("created at", t.CreatedAt)
	if err == nil && t.Hash.IsZero() {
		err = errors.New("no hash")
	}
	var restriction sql.NullString
	if err == nil {
		restriction, err = sqlcodec.EncodeRestriction(t.Restriction)
	}
	if err == nil {
		err = db.writeWith(ctx, func(st *txStmts) error {
			if err := exists(st, userExistsSQL, "owner", string(t.Owner)); err != nil {
				return err
			}
			return execOne(st, errExists, insertTokenSQL, string(t.ID), string(t.Owner), t.Name, restriction, t.Hash,
				encodeTime(t.CreatedAt), encodeOptTime(t.ExpiresAt), encodeOptTime(t.LastUsedAt), encodeOptTime(t.RevokedAt))
		})
	}
	if err != nil {
		return fmt.Errorf("store: create token %s: %w", t.ID, err)
	}
	return nil
}

// scanToken reads the tokenColumns of a row.
func scanToken(row interface{ Scan(...any) error }) (auth.Token, error) {
	var (
		t                      auth.Token
		restriction            sql.NullString
		created                int64
		expires, used, revoked sql.NullInt64
	)
	if err := row.Scan(&t.ID, &t.Owner, &t.Name, &restriction, &t.Hash, &created, &expires, &used, &revoked); err != nil {
		return auth.Token{}, err
	}
	var err error
	if t.Restriction, err = sqlcodec.DecodeRestriction(restriction); err != nil {
		return auth.Token{}, fmt.Errorf("token %s: %w", t.ID, err)
	}
	t.CreatedAt = decodeTime(created)
	t.ExpiresAt, t.LastUsedAt, t.RevokedAt = decodeOptTime(expires), decodeOptTime(used), decodeOptTime(revoked)
	return t, nil
}

// Token returns one token by its public id. It returns a wrapped
// store.ErrNotFound if there is none.
func (db *DB) Token(ctx context.Context, id auth.TokenID) (auth.Token, error) {
	t, err := scanToken(db.readOne(ctx).queryRow(selectTokenSQL, string(id)))
	if err != nil {
		return auth.Token{}, fmt.Errorf("store: token %s: %w", id, notFound(err))
	}
	return t, nil
}

// Tokens lists the tokens of owner, or every token when owner is "",
// newest first (by CreatedAt, then id). It returns a wrapped
// store.ErrNotFound if owner is not a user.
func (db *DB) Tokens(ctx context.Context, owner auth.UserID) ([]auth.Token, error) {
	var out []auth.Token
	err := db.readWith(ctx, func(st *txStmts) error {
		var err error
		if owner == "" {
			out, err = queryRows(st, scanToken, allTokensSQL)
			return err
		}
		out, err = queryRows(st, scanToken, ownerTokensSQL, string(owner))
		if err == nil && len(out) == 0 {
			return exists(st, userExistsSQL, "user", string(owner))
		}
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("store: tokens of %q: %w", owner, err)
	}
	return out, nil
}

// RevokeToken marks a token revoked at at; revoking it again keeps the
// first time. It returns a wrapped store.ErrNotFound if there is no such
// token. The revocation is durable when RevokeToken returns.
func (db *DB) RevokeToken(ctx context.Context, id auth.TokenID, at time.Time) error {
	err := requireTime("revoked at", at)
	if err == nil {
		err = db.writeWith(ctx, func(st *txStmts) error {
			return execOne(st, store.ErrNotFound, revokeTokenSQL, encodeTime(at), string(id))
		})
	}
	if err != nil {
		return fmt.Errorf("store: revoke token %s: %w", id, err)
	}
	return nil
}

// TouchToken records that a token was used at at (an earlier at than the
// recorded one changes nothing). It returns a wrapped store.ErrNotFound
// if there is no such token. Like a job lock, the write does not wait for
// its own fsync (writeRelaxed): a last use lost in a power cut harms
// nothing, and an fsync per authenticated request would halve what the API
// can serve.
func (db *DB) TouchToken(ctx context.Context, id auth.TokenID, at time.Time) error {
	err := requireTime("used at", at)
	if err == nil {
		err = db.writeRelaxed(ctx, func(st *txStmts) error {
			return execOne(st, store.ErrNotFound, touchTokenSQL, encodeTime(at), string(id))
		})
	}
	if err != nil {
		return fmt.Errorf("store: touch token %s: %w", id, err)
	}
	return nil
}

// CreateSession stores a cockpit session under the hash of its id. A hash
// that exists is a wrapped store.ErrConflict. A session needs its hash,
// user, CreatedAt, ExpiresAt and LastSeenAt.
func (db *DB) CreateSession(ctx context.Context, s auth.Session) error {
	err := sqlcodec.CheckSession(s)
	var groups sql.NullString
	if err == nil {
		groups, err = sqlcodec.EncodeGroups(s.Groups)
	}
	if err == nil {
		err = db.writeWith(ctx, func(st *txStmts) error {
			return execOne(st, errExists, insertSessionSQL, s.IDHash, string(s.User), groups,
				encodeTime(s.CreatedAt), encodeTime(s.ExpiresAt), encodeTime(s.LastSeenAt))
		})
	}
	if err != nil {
		// The hash never prints; the user says whose session it was.
		return fmt.Errorf("store: create session of %s: %w", s.User, err)
	}
	return nil
}

// Session returns the session whose id hashes to h, expired or not (the
// caller checks it: auth.Session.Check). It returns a wrapped
// store.ErrNotFound if there is none.
func (db *DB) Session(ctx context.Context, h auth.SecretHash) (auth.Session, error) {
	var (
		s                      auth.Session
		groups                 sql.NullString
		created, expires, seen int64
	)
	err := db.readOne(ctx).queryRow(selectSessionSQL, h).Scan(&s.IDHash, &s.User, &groups, &created, &expires, &seen)
	if err == nil {
		s.Groups, err = sqlcodec.DecodeGroups(groups)
	}
	if err != nil {
		return auth.Session{}, fmt.Errorf("store: session: %w", notFound(err))
	}
	s.CreatedAt, s.ExpiresAt, s.LastSeenAt = decodeTime(created), decodeTime(expires), decodeTime(seen)
	return s, nil
}

// TouchSession records that the session was used at at (an earlier at than
// the recorded one changes nothing). It returns a wrapped
// store.ErrNotFound if there is no such session. Like TouchToken, it
// does not wait for its own fsync: a last use lost in a power cut at worst
// ends an idle session early.
func (db *DB) TouchSession(ctx context.Context, h auth.SecretHash, at time.Time) error {
	err := requireTime("seen at", at)
	if err == nil {
		err = db.writeRelaxed(ctx, func(st *txStmts) error {
			return execOne(st, store.ErrNotFound, touchSessionSQL, encodeTime(at), h)
		})
	}
	if err != nil {
		return fmt.Errorf("store: touch session: %w", err)
	}
	return nil
}

// DeleteSession ends one session; deleting a missing one is not an error.
func (db *DB) DeleteSession(ctx context.Context, h auth.SecretHash) error {
	err := db.writeWith(ctx, func(st *txStmts) error {
		_, err := st.exec(deleteSessionSQL, h)
		return err
	})
	if err != nil {
		return fmt.Errorf("store: delete session: %w", err)
	}
	return nil
}

// DeleteSessionsOf ends every session of a user (a changed password).
func (db *DB) DeleteSessionsOf(ctx context.Context, user auth.UserID) error {
	err := db.writeWith(ctx, func(st *txStmts) error {
		_, err := st.exec(deleteUserSessionsSQL, string(user))
		return err
	})
	if err != nil {
		return fmt.Errorf("store: delete sessions of %s: %w", user, err)
	}
	return nil
}

// DeleteExpiredSessions removes the sessions that have expired at now
// (ExpiresAt not after now, as auth.Session.Check decides) and returns how
// many.
func (db *DB) DeleteExpiredSessions(ctx context.Context, now time.Time) (int, error) {
	var n int64
	err := requireTime("now", now)
	if err == nil {
		err = db.writeWith(ctx, func(st *txStmts) error {
			res, err := st.exec(deleteExpiredSessionsSQL, encodeTime(now))
			if err != nil {
				return err
			}
			n, err = res.RowsAffected()
			return err
		})
	}
	if err != nil {
		return 0, fmt.Errorf("store: delete expired sessions: %w", err)
	}
	return int(n), nil
}

// queryRows runs query and reads every row with scan.
func queryRows[T any](q querier, scan func(interface{ Scan(...any) error }) (T, error), query string, args ...any) ([]T, error) {
	rs, err := q.query(query, args...)
	if err != nil {
		return nil, err
	}
	defer rs.Close()
	var out []T
	for rs.Next() {
		v, err := scan(rs)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rs.Err()
}
