package postgres

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/gobpm/gobpm/internal/access"
	"github.com/gobpm/gobpm/internal/auth"
	"github.com/gobpm/gobpm/internal/store"
	"github.com/gobpm/gobpm/internal/store/sqlcodec"
	"github.com/gobpm/gobpm/internal/store/sqlquery"
)

// The statements of access.Store.
const (
	userColumns   = `id, name, password_hash, disabled, created_at`
	insertUserSQL = `INSERT INTO users (` + userColumns + `) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (id) DO NOTHING`
	updateUserSQL = `UPDATE users SET name = $1, password_hash = $2, disabled = $3 WHERE id = $4`
	selectUserSQL = `SELECT ` + userColumns + ` FROM users WHERE id = $1`
	usersSQL      = `SELECT ` + userColumns + ` FROM users WHERE id > $1 ORDER BY id LIMIT $2`
	userExistsSQL = `SELECT 1 FROM users WHERE id = $1`

	insertGroupSQL = `INSERT INTO groups (id, name, created_at) VALUES ($1, $2, $3) ON CONFLICT (id) DO NOTHING`
	groupExistsSQL = `SELECT 1 FROM groups WHERE id = $1`

	// groupsOfSQL and membersSQL return one row with NULL for an owner
	// without memberships and no row for an unknown owner.
	groupsOfSQL = `SELECT m.group_id FROM users u LEFT JOIN memberships m ON m.user_id = u.id
		WHERE u.id = $1 ORDER BY m.group_id`
	membersSQL = `SELECT m.user_id FROM groups g LEFT JOIN memberships m ON m.group_id = g.id
		WHERE g.id = $1 ORDER BY m.user_id`

	grantColumns = `id, subject_kind, subject_id, role, permission, resource_kind, pattern, created_at, created_by`
	// insertGrantSQL adds a grant unless the same one exists (no row back).
	insertGrantSQL = `INSERT INTO grants (subject_kind, subject_id, role, permission, resource_kind, pattern, created_at, created_by)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
		ON CONFLICT (subject_kind, subject_id, role, permission, resource_kind, pattern) DO NOTHING
		RETURNING id`
	findGrantSQL = `SELECT ` + grantColumns + ` FROM grants
		WHERE subject_kind = $1 AND subject_id = $2 AND role = $3 AND permission = $4 AND resource_kind = $5 AND pattern = $6`
	deleteSubjectGrantSQL = `DELETE FROM grants WHERE subject_kind = $1 AND subject_id = $2`

	tokenColumns = `id, owner, name, restriction, hash, created_at, expires_at, last_used_at, revoked_at`

	sessionColumns        = `id_hash, user_id, groups, created_at, expires_at, last_seen_at`
	deleteUserSessionsSQL = `DELETE FROM sessions WHERE user_id = $1`
)

// execOne runs query in q and returns errNone if it changed no row.
func execOne(ctx context.Context, q querier, errNone error, query string, args ...any) error {
	tag, err := q.Exec(ctx, query, args...)
	if err != nil {
		return err
	}
	if tag.RowsAffected() == 0 {
		return errNone
	}
	return nil
}

// exists returns a wrapped store.ErrNotFound unless query finds id.
func exists(ctx context.Context, q querier, query, what, id string) error {
	var one int
	if err := q.QueryRow(ctx, query, id).Scan(&one); err != nil {
		return fmt.Errorf("%s %s: %w", what, id, notFound(err))
	}
	return nil
}

// CreateUser adds a user; an existing id is a wrapped store.ErrConflict.
func (db *DB) CreateUser(ctx context.Context, u access.User) error {
	err := sqlcodec.RequireTime("created at", u.CreatedAt)
	if err == nil {
		err = execOne(ctx, db.pool, sqlquery.ErrExists, insertUserSQL,
			string(u.ID), u.Name, u.PasswordHash, u.Disabled, encodeTime(u.CreatedAt))
	}
	if err != nil {
		return fmt.Errorf("postgres store: create user %s: %w", u.ID, err)
	}
	return nil
}

// UpdateUser replaces a user's name, password hash and disabled flag; a
// wrapped store.ErrNotFound for an unknown user.
func (db *DB) UpdateUser(ctx context.Context, u access.User) error {
	if err := execOne(ctx, db.pool, store.ErrNotFound, updateUserSQL, u.Name, u.PasswordHash, u.Disabled, string(u.ID)); err != nil {
		return fmt.Errorf("postgres store: update user %s: %w", u.ID, err)
	}
	return nil
}

// scanUser reads the userColumns of a row.
func scanUser(row pgx.Row) (access.User, error) {
	var (
		u       access.User
		id      string
		created int64
	)
	if err := row.Scan(&id, &u.Name, &u.PasswordHash, &u.Disabled, &created); err != nil {
		return access.User{}, err
	}
	u.ID, u.CreatedAt = auth.UserID(id), decodeTime(created)
	return u, nil
}

// User returns one user; a wrapped store.ErrNotFound if unknown.
func (db *DB) User(ctx context.Context, id auth.UserID) (access.User, error) {
	u, err := scanUser(db.pool.QueryRow(ctx, selectUserSQL, string(id)))
	if err != nil {
		return access.User{}, fmt.Errorf("postgres store: user %s: %w", id, notFound(err))
	}
	return u, nil
}

// Users lists users by id after the given id, at most limit of them (0 or
// less: sqlquery.DefaultListLimit, capped at sqlquery.MaxListLimit).
func (db *DB) Users(ctx context.Context, after auth.UserID, limit int) ([]access.User, error) {
	out, err := queryRows(ctx, db.pool, scanUser, usersSQL, string(after), sqlquery.ListLimit(limit))
	if err != nil {
		return nil, fmt.Errorf("postgres store: users after %q: %w", after, err)
	}
	return out, nil
}

// CountUsers returns how many users exist.
func (db *DB) CountUsers(ctx context.Context) (int, error) {
	var n int
	if err := db.pool.QueryRow(ctx, `SELECT COUNT(*) FROM users`).Scan(&n); err != nil {
		return 0, fmt.Errorf("postgres store: count users: %w", err)
	}
	return n, nil
}

// DeleteUser removes a user with their memberships, grants, tokens and
// sessions in one transaction; a wrapped store.ErrNotFound if unknown.
func (db *DB) DeleteUser(ctx context.Context, id auth.UserID) error {
	err := db.writeTx(ctx, func(tx pgx.Tx) error {
		if err := execOne(ctx, tx, store.ErrNotFound, `DELETE FROM users WHERE id = $1`, string(id)); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, deleteSubjectGrantSQL, string(access.SubjectUser), string(id)); err != nil {
			return fmt.Errorf("delete grants: %w", err)
		}
		if _, err := tx.Exec(ctx, deleteUserSessionsSQL, string(id)); err != nil {
			return fmt.Errorf("delete sessions: %w", err)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("postgres store: delete user %s: %w", id, err)
	}
	return nil
}

// CreateGroup adds a group; an existing id is a wrapped store.ErrConflict.
func (db *DB) CreateGroup(ctx context.Context, g access.Group) error {
	err := sqlcodec.RequireTime("created at", g.CreatedAt)
	if err == nil {
		err = execOne(ctx, db.pool, sqlquery.ErrExists, insertGroupSQL, string(g.ID), g.Name, encodeTime(g.CreatedAt))
	}
	if err != nil {
		return fmt.Errorf("postgres store: create group %s: %w", g.ID, err)
	}
	return nil
}

// Groups lists every group by id.
func (db *DB) Groups(ctx context.Context) ([]access.Group, error) {
	out, err := queryRows(ctx, db.pool, func(row pgx.Row) (access.Group, error) {
		var (
			g       access.Group
			id      string
			created int64
		)
		err := row.Scan(&id, &g.Name, &created)
		g.ID, g.CreatedAt = auth.GroupID(id), decodeTime(created)
		return g, err
	}, `SELECT id, name, created_at FROM groups ORDER BY id`)
	if err != nil {
		return nil, fmt.Errorf("postgres store: groups: %w", err)
	}
	return out, nil
}

// DeleteGroup removes a group with its memberships and grants; a wrapped
// store.ErrNotFound if unknown.
func (db *DB) DeleteGroup(ctx context.Context, id auth.GroupID) error {
	err := db.writeTx(ctx, func(tx pgx.Tx) error {
		if err := execOne(ctx, tx, store.ErrNotFound, `DELETE FROM groups WHERE id = $1`, string(id)); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, deleteSubjectGrantSQL, string(access.SubjectGroup), string(id)); err != nil {
			return fmt.Errorf("delete grants: %w", err)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("postgres store: delete group %s: %w", id, err)
	}
	return nil
}

// SetMember adds user to group (member true) or removes them; both must
// exist (else a wrapped store.ErrNotFound). Repeating either is no error.
func (db *DB) SetMember(ctx context.Context, group auth.GroupID, user auth.UserID, member bool) error {
	err := db.writeTx(ctx, func(tx pgx.Tx) error {
		if err := exists(ctx, tx, groupExistsSQL, "group", string(group)); err != nil {
			return err
		}
		if err := exists(ctx, tx, userExistsSQL, "user", string(user)); err != nil {
			return err
		}
		query := `DELETE FROM memberships WHERE group_id = $1 AND user_id = $2`
		if member {
			query = `INSERT INTO memberships (group_id, user_id) VALUES ($1, $2) ON CONFLICT DO NOTHING`
		}
		_, err := tx.Exec(ctx, query, string(group), string(user))
		return err
	})
	if err != nil {
		return fmt.Errorf("postgres store: set member %s of group %s to %t: %w", user, group, member, err)
	}
	return nil
}

// memberList runs groupsOfSQL or membersSQL: the ids, none for an owner
// without memberships, store.ErrNotFound for an unknown owner.
func memberList[ID ~string](ctx context.Context, q querier, query, owner string) ([]ID, error) {
	ids, err := queryRows(ctx, q, func(row pgx.Row) (*string, error) {
		var id *string
		err := row.Scan(&id)
		return id, err
	}, query, owner)
	if err != nil {
		return nil, err
	}
	if len(ids) == 0 {
		return nil, store.ErrNotFound
	}
	var out []ID
	for _, id := range ids {
		if id != nil {
			out = append(out, ID(*id))
		}
	}
	return out, nil
}

// GroupsOf returns the groups of a user, sorted; a wrapped
// store.ErrNotFound for an unknown user.
func (db *DB) GroupsOf(ctx context.Context, user auth.UserID) ([]auth.GroupID, error) {
	out, err := memberList[auth.GroupID](ctx, db.pool, groupsOfSQL, string(user))
	if err != nil {
		return nil, fmt.Errorf("postgres store: groups of user %s: %w", user, err)
	}
	return out, nil
}

// Members returns the users of a group, sorted; a wrapped
// store.ErrNotFound for an unknown group.
func (db *DB) Members(ctx context.Context, group auth.GroupID) ([]auth.UserID, error) {
	out, err := memberList[auth.UserID](ctx, db.pool, membersSQL, string(group))
	if err != nil {
		return nil, fmt.Errorf("postgres store: members of group %s: %w", group, err)
	}
	return out, nil
}

// scanGrant reads the grantColumns of a row.
func scanGrant(row pgx.Row) (access.GrantRecord, error) {
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

// AddGrant stores g and returns it with its ID; the subject must exist
// (else a wrapped store.ErrNotFound). The same role or grant given to
// the same subject again returns the existing record.
func (db *DB) AddGrant(ctx context.Context, g access.GrantRecord) (access.GrantRecord, error) {
	k, err := sqlcodec.EncodeGrant(g)
	if err == nil {
		err = sqlcodec.RequireTime("created at", g.CreatedAt)
	}
	var out access.GrantRecord
	if err == nil {
		err = db.writeTx(ctx, func(tx pgx.Tx) error {
			query, what := userExistsSQL, "user"
			if g.Subject.Kind == access.SubjectGroup {
				query, what = groupExistsSQL, "group"
			}
			if err := exists(ctx, tx, query, what, g.Subject.ID); err != nil {
				return err
			}
			var id int64
			err := tx.QueryRow(ctx, insertGrantSQL, append(k.Args(), encodeTime(g.CreatedAt), string(g.CreatedBy))...).Scan(&id)
			switch {
			case errors.Is(err, pgx.ErrNoRows):
				out, err = scanGrant(tx.QueryRow(ctx, findGrantSQL, k.Args()...))
				return err
			case err != nil:
				return err
			}
			out = sqlcodec.AddedGrant(g, id)
			return nil
		})
	}
	if err != nil {
		return access.GrantRecord{}, fmt.Errorf("postgres store: add grant to %s %s: %w", g.Subject.Kind, g.Subject.ID, err)
	}
	return out, nil
}

// RemoveGrant deletes a grant by ID; a wrapped store.ErrNotFound if unknown.
func (db *DB) RemoveGrant(ctx context.Context, id int64) error {
	if err := execOne(ctx, db.pool, store.ErrNotFound, `DELETE FROM grants WHERE id = $1`, id); err != nil {
		return fmt.Errorf("postgres store: remove grant %d: %w", id, err)
	}
	return nil
}

// Grants lists the grants of subject (every grant for the zero Subject),
// by ID; a wrapped store.ErrNotFound for an unknown subject.
func (db *DB) Grants(ctx context.Context, subject access.Subject) ([]access.GrantRecord, error) {
	var out []access.GrantRecord
	err := db.readTx(ctx, func(tx pgx.Tx) error {
		var err error
		if subject == (access.Subject{}) {
			out, err = queryRows(ctx, tx, scanGrant, `SELECT `+grantColumns+` FROM grants ORDER BY id`)
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
		out, err = queryRows(ctx, tx, scanGrant, `SELECT `+grantColumns+` FROM grants
			WHERE subject_kind = $1 AND subject_id = $2 ORDER BY id`, string(subject.Kind), subject.ID)
		if err == nil && len(out) == 0 {
			return exists(ctx, tx, query, string(subject.Kind), subject.ID)
		}
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("postgres store: grants of %s %s: %w", subject.Kind, subject.ID, err)
	}
	return out, nil
}

// GrantsFor returns the grants given to user or to any of groups, by ID.
func (db *DB) GrantsFor(ctx context.Context, user auth.UserID, groups []auth.GroupID) ([]access.GrantRecord, error) {
	gs := make([]string, len(groups))
	for i, g := range groups {
		gs[i] = string(g)
	}
	out, err := queryRows(ctx, db.pool, scanGrant, `SELECT `+grantColumns+` FROM grants
		WHERE (subject_kind = 'user' AND subject_id = $1) OR (subject_kind = 'group' AND subject_id = ANY($2::text[]))
		ORDER BY id`, string(user), gs)
	if err != nil {
		return nil, fmt.Errorf("postgres store: grants for user %s: %w", user, err)
	}
	return out, nil
}

// CreateToken stores a minted token (its hash, never its secret); the
// owner must exist.
func (db *DB) CreateToken(ctx context.Context, t auth.Token) error {
	err := sqlcodec.RequireTime("created at", t.CreatedAt)
	if err == nil && t.Hash.IsZero() {
		err = errors.New("no hash")
	}
	var restriction sql.NullString
	if err == nil {
		restriction, err = sqlcodec.EncodeRestriction(t.Restriction)
	}
	if err == nil {
		err = db.writeTx(ctx, func(tx pgx.Tx) error {
			if err := exists(ctx, tx, userExistsSQL, "owner", string(t.Owner)); err != nil {
				return err
			}
			return execOne(ctx, tx, sqlquery.ErrExists, `INSERT INTO tokens (`+tokenColumns+`)
				VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT (id) DO NOTHING`,
				string(t.ID), string(t.Owner), t.Name, restriction, t.Hash[:],
				encodeTime(t.CreatedAt), sqlcodec.EncodeOptTime(t.ExpiresAt), sqlcodec.EncodeOptTime(t.LastUsedAt),
				sqlcodec.EncodeOptTime(t.RevokedAt))
		})
	}
	if err != nil {
		return fmt.Errorf("postgres store: create token %s: %w", t.ID, err)
	}
	return nil
}

// scanToken reads the tokenColumns of a row.
func scanToken(row pgx.Row) (auth.Token, error) {
	var (
		t                      auth.Token
		id, owner              string
		hash                   []byte
		restriction            sql.NullString
		created                int64
		expires, used, revoked sql.NullInt64
	)
	if err := row.Scan(&id, &owner, &t.Name, &restriction, &hash, &created, &expires, &used, &revoked); err != nil {
		return auth.Token{}, err
	}
	t.ID, t.Owner = auth.TokenID(id), auth.UserID(owner)
	if len(hash) != len(t.Hash) {
		return auth.Token{}, fmt.Errorf("token %s: stored hash has %d bytes", id, len(hash))
	}
	copy(t.Hash[:], hash)
	var err error
	if t.Restriction, err = sqlcodec.DecodeRestriction(restriction); err != nil {
		return auth.Token{}, fmt.Errorf("token %s: %w", id, err)
	}
	t.CreatedAt = decodeTime(created)
	t.ExpiresAt, t.LastUsedAt, t.RevokedAt = sqlcodec.DecodeOptTime(expires), sqlcodec.DecodeOptTime(used), sqlcodec.DecodeOptTime(revoked)
	return t, nil
}

// Token returns one token by its public id; a wrapped store.ErrNotFound
// if unknown.
func (db *DB) Token(ctx context.Context, id auth.TokenID) (auth.Token, error) {
	t, err := scanToken(db.pool.QueryRow(ctx, `SELECT `+tokenColumns+` FROM tokens WHERE id = $1`, string(id)))
	if err != nil {
		return auth.Token{}, fmt.Errorf("postgres store: token %s: %w", id, notFound(err))
	}
	return t, nil
}

// Tokens lists the tokens of owner (every token when owner is ""), newest
// first; a wrapped store.ErrNotFound for an unknown owner.
func (db *DB) Tokens(ctx context.Context, owner auth.UserID) ([]auth.Token, error) {
	var out []auth.Token
	err := db.readTx(ctx, func(tx pgx.Tx) error {
		var err error
		if owner == "" {
			out, err = queryRows(ctx, tx, scanToken, `SELECT `+tokenColumns+` FROM tokens ORDER BY created_at DESC, id DESC`)
			return err
		}
		out, err = queryRows(ctx, tx, scanToken, `SELECT `+tokenColumns+` FROM tokens WHERE owner = $1
			ORDER BY created_at DESC, id DESC`, string(owner))
		if err == nil && len(out) == 0 {
			return exists(ctx, tx, userExistsSQL, "user", string(owner))
		}
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("postgres store: tokens of %q: %w", owner, err)
	}
	return out, nil
}

// RevokeToken marks a token revoked at at (revoking twice keeps the first
// time); a wrapped store.ErrNotFound if unknown.
func (db *DB) RevokeToken(ctx context.Context, id auth.TokenID, at time.Time) error {
	err := sqlcodec.RequireTime("revoked at", at)
	if err == nil {
		err = execOne(ctx, db.pool, store.ErrNotFound,
			`UPDATE tokens SET revoked_at = COALESCE(revoked_at, $1) WHERE id = $2`, encodeTime(at), string(id))
	}
	if err != nil {
		return fmt.Errorf("postgres store: revoke token %s: %w", id, err)
	}
	return nil
}

// TouchToken records that a token was used at at (the latest use wins); a
// wrapped store.ErrNotFound if unknown.
func (db *DB) TouchToken(ctx context.Context, id auth.TokenID, at time.Time) error {
	err := sqlcodec.RequireTime("used at", at)
	if err == nil {
		err = execOne(ctx, db.pool, store.ErrNotFound,
			`UPDATE tokens SET last_used_at = GREATEST(COALESCE(last_used_at, $1), $1) WHERE id = $2`, encodeTime(at), string(id))
	}
	if err != nil {
		return fmt.Errorf("postgres store: touch token %s: %w", id, err)
	}
	return nil
}

// CreateSession stores a cockpit session (the hash of its id); an
// existing one is a wrapped store.ErrConflict.
func (db *DB) CreateSession(ctx context.Context, s auth.Session) error {
	err := sqlcodec.CheckSession(s)
	var groups sql.NullString
	if err == nil {
		groups, err = sqlcodec.EncodeGroups(s.Groups)
	}
	if err == nil {
		err = execOne(ctx, db.pool, sqlquery.ErrExists, `INSERT INTO sessions (`+sessionColumns+`)
			VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (id_hash) DO NOTHING`,
			s.IDHash[:], string(s.User), groups, encodeTime(s.CreatedAt), encodeTime(s.ExpiresAt), encodeTime(s.LastSeenAt))
	}
	if err != nil {
		// The hash never prints; the user says whose session it was.
		return fmt.Errorf("postgres store: create session of %s: %w", s.User, err)
	}
	return nil
}

// Session returns the session whose id hashes to h; a wrapped
// store.ErrNotFound if there is none.
func (db *DB) Session(ctx context.Context, h auth.SecretHash) (auth.Session, error) {
	var (
		s                      auth.Session
		hash                   []byte
		user                   string
		groups                 sql.NullString
		created, expires, seen int64
	)
	err := db.pool.QueryRow(ctx, `SELECT `+sessionColumns+` FROM sessions WHERE id_hash = $1`, h[:]).
		Scan(&hash, &user, &groups, &created, &expires, &seen)
	if err == nil {
		s.Groups, err = sqlcodec.DecodeGroups(groups)
	}
	if err != nil {
		return auth.Session{}, fmt.Errorf("postgres store: session: %w", notFound(err))
	}
	copy(s.IDHash[:], hash)
	s.User = auth.UserID(user)
	s.CreatedAt, s.ExpiresAt, s.LastSeenAt = decodeTime(created), decodeTime(expires), decodeTime(seen)
	return s, nil
}

// TouchSession records that the session was used at at (the latest use
// wins); a wrapped store.ErrNotFound if there is none.
func (db *DB) TouchSession(ctx context.Context, h auth.SecretHash, at time.Time) error {
	err := sqlcodec.RequireTime("seen at", at)
	if err == nil {
		err = execOne(ctx, db.pool, store.ErrNotFound,
			`UPDATE sessions SET last_seen_at = GREATEST(last_seen_at, $1) WHERE id_hash = $2`, encodeTime(at), h[:])
	}
	if err != nil {
		return fmt.Errorf("postgres store: touch session: %w", err)
	}
	return nil
}

// DeleteSession ends one session; deleting a missing one is no error.
func (db *DB) DeleteSession(ctx context.Context, h auth.SecretHash) error {
	if _, err := db.pool.Exec(ctx, `DELETE FROM sessions WHERE id_hash = $1`, h[:]); err != nil {
		return fmt.Errorf("postgres store: delete session: %w", err)
	}
	return nil
}

// DeleteSessionsOf ends every session of a user.
func (db *DB) DeleteSessionsOf(ctx context.Context, user auth.UserID) error {
	if _, err := db.pool.Exec(ctx, deleteUserSessionsSQL, string(user)); err != nil {
		return fmt.Errorf("postgres store: delete sessions of %s: %w", user, err)
	}
	return nil
}

// DeleteExpiredSessions removes the sessions that expired at or before
// now and returns how many.
func (db *DB) DeleteExpiredSessions(ctx context.Context, now time.Time) (int, error) {
	err := sqlcodec.RequireTime("now", now)
	var n int64
	if err == nil {
		var tag interface{ RowsAffected() int64 }
		tag, err = db.pool.Exec(ctx, `DELETE FROM sessions WHERE expires_at <= $1`, encodeTime(now))
		if err == nil {
			n = tag.RowsAffected()
		}
	}
	if err != nil {
		return 0, fmt.Errorf("postgres store: delete expired sessions: %w", err)
	}
	return int(n), nil
}
