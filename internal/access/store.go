package access

import (
	"context"
	"time"

	"github.com/gobpm/gobpm/internal/auth"
)

// User is a built-in user: a login for the cockpit and the owner of API
// tokens. OIDC users are not stored; their identity comes with each token.
type User struct {
	// ID is the login name: 1–64 characters, letters, digits and . _ @ -.
	ID auth.UserID `json:"id"`
	// Name is the display name ("" when not set).
	Name string `json:"name,omitempty"`
	// PasswordHash is the argon2id PHC string (auth.HashPassword); "" for a
	// user who cannot log in (a worker that only has tokens). It never
	// leaves the server: User's JSON form leaves it out.
	PasswordHash string `json:"-"`
	// Disabled users cannot log in, and their sessions and tokens stop
	// working at once.
	Disabled bool `json:"disabled,omitempty"`
	// CreatedAt is when the user was created.
	CreatedAt time.Time `json:"createdAt"`
}

// Group is a built-in group. Candidate groups of user tasks name groups.
type Group struct {
	// ID is the group's name, with the same rule as a user id.
	ID auth.GroupID `json:"id"`
	// Name is the display name ("" when not set).
	Name string `json:"name,omitempty"`
	// CreatedAt is when the group was created.
	CreatedAt time.Time `json:"createdAt"`
}

// SubjectKind says whom a grant is given to.
type SubjectKind string

// Subject kinds.
const (
	SubjectUser  SubjectKind = "user"
	SubjectGroup SubjectKind = "group"
)

// Subject is a user or a group that grants are given to.
type Subject struct {
	Kind SubjectKind `json:"kind"`
	ID   string      `json:"id"`
}

// GrantRecord is one stored grant: a built-in role (Role set) or one
// permission on a pattern of resources (Grant set), given to a subject.
// Exactly one of Role and Grant is set.
type GrantRecord struct {
	// ID is the store's key for the grant, for revoking it.
	ID int64 `json:"id"`
	// Subject is who has it.
	Subject Subject `json:"subject"`
	// Role is the role given ("" for a single grant).
	Role auth.Role `json:"role,omitempty"`
	// Grant is the single grant given (zero for a role).
	Grant *auth.Grant `json:"grant,omitempty"`
	// CreatedAt and CreatedBy say when and by whom it was given.
	CreatedAt time.Time   `json:"createdAt"`
	CreatedBy auth.UserID `json:"createdBy,omitempty"`
}

// AuditEntry is one act in the audit trail: a state-changing request, a
// login, logout or failed login.
type AuditEntry struct {
	// Seq orders the trail; the store assigns it.
	Seq int64 `json:"seq"`
	// At is when the act was answered.
	At time.Time `json:"at"`
	// Actor is who acted: the authenticated user ("" when nobody was
	// authenticated, e.g. a failed login names the attempted user in
	// Resource instead).
	Actor auth.UserID `json:"actor,omitempty"`
	// OnBehalfOf is the user an act-as token named ("" otherwise).
	OnBehalfOf auth.UserID `json:"onBehalfOf,omitempty"`
	// Via says how the actor was authenticated: "session", "token:<id>",
	// "oidc", "none" (loopback without authentication) or "" (nobody).
	Via string `json:"via,omitempty"`
	// Action names the act: the route ("POST /api/v1/instances/{id}/cancel")
	// or an event ("login", "logout", "login-failed").
	Action string `json:"action"`
	// Resource is what the act was on ("instance 0197…", "process order",
	// "user ann"), "" when nothing in particular.
	Resource string `json:"resource,omitempty"`
	// Outcome is "ok", "denied" (authorization refused), "failed" (the
	// request was refused for another reason) or "error" (a server error).
	Outcome string `json:"outcome"`
	// Status is the HTTP status of the answer (0 for acts without one).
	Status int `json:"status,omitempty"`
	// RequestID ties the entry to the request log.
	RequestID string `json:"requestId,omitempty"`
	// Addr is the client's address.
	Addr string `json:"addr,omitempty"`
}

// AuditFilter selects audit entries; zero fields select everything.
type AuditFilter struct {
	// Actor selects the entries of one actor.
	Actor auth.UserID
	// Action selects one action, exactly.
	Action string
	// Resource selects entries whose resource starts with it ("instance
	// 0197…", "process order").
	Resource string
	// Outcome selects one outcome.
	Outcome string
	// From and To bound At: From ≤ At < To (zero: unbounded).
	From, To time.Time
	// Before pages backwards: only entries with Seq < Before (0: from the
	// newest).
	Before int64
	// Limit bounds the answer (1–1000).
	Limit int
}

// Store keeps built-in identities, what they were granted, their tokens
// and sessions, and the audit trail. Every method is safe for concurrent
// use. Lookups of something that does not exist return an error wrapping
// runtime.ErrNotFound; creating something that exists returns one wrapping
// runtime.ErrConflict (the store's usual sentinels, which the API maps to
// 404 and 409).
type Store interface {
	// CreateUser adds a user.
	CreateUser(ctx context.Context, u User) error
	// UpdateUser replaces a user's name, password hash and disabled flag.
	UpdateUser(ctx context.Context, u User) error
	// User returns one user.
	User(ctx context.Context, id auth.UserID) (User, error)
	// Users lists users by id, after the given id (exclusive), at most limit.
	Users(ctx context.Context, after auth.UserID, limit int) ([]User, error)
	// CountUsers returns how many users exist (first-run detection).
	CountUsers(ctx context.Context) (int, error)
	// DeleteUser removes a user with their memberships, grants, tokens and
	// sessions, in one transaction.
	DeleteUser(ctx context.Context, id auth.UserID) error

	// CreateGroup adds a group.
	CreateGroup(ctx context.Context, g Group) error
	// Groups lists every group by id.
	Groups(ctx context.Context) ([]Group, error)
	// DeleteGroup removes a group with its memberships and grants.
	DeleteGroup(ctx context.Context, id auth.GroupID) error
	// SetMember adds user to group (member true) or removes them; both
	// must exist. Adding a member twice or removing a non-member is not an
	// error.
	SetMember(ctx context.Context, group auth.GroupID, user auth.UserID, member bool) error
	// GroupsOf returns the groups of a user, sorted.
	GroupsOf(ctx context.Context, user auth.UserID) ([]auth.GroupID, error)
	// Members returns the users of a group, sorted.
	Members(ctx context.Context, group auth.GroupID) ([]auth.UserID, error)

	// AddGrant stores a grant and returns it with its ID; the subject must
	// exist. Giving the same role or grant to the same subject twice
	// returns the existing record.
	AddGrant(ctx context.Context, g GrantRecord) (GrantRecord, error)
	// RemoveGrant deletes a grant by ID.
	RemoveGrant(ctx context.Context, id int64) error
	// Grants lists grants: those given to subject, or every grant when
	// subject is the zero Subject; ordered by ID.
	Grants(ctx context.Context, subject Subject) ([]GrantRecord, error)
	// GrantsFor returns the grants given to user or to any of groups, in one
	// read, ordered by ID.
	GrantsFor(ctx context.Context, user auth.UserID, groups []auth.GroupID) ([]GrantRecord, error)

	// CreateToken stores a minted token (its hash, never its secret).
	CreateToken(ctx context.Context, t auth.Token) error
	// Token returns one token by its public id.
	Token(ctx context.Context, id auth.TokenID) (auth.Token, error)
	// Tokens lists the tokens of owner (every token when owner is ""),
	// newest first.
	Tokens(ctx context.Context, owner auth.UserID) ([]auth.Token, error)
	// RevokeToken marks a token revoked at at (revoking twice keeps the
	// first time).
	RevokeToken(ctx context.Context, id auth.TokenID, at time.Time) error
	// TouchToken records that a token was used at at.
	TouchToken(ctx context.Context, id auth.TokenID, at time.Time) error

	// CreateSession stores a cockpit session (the hash of its id).
	CreateSession(ctx context.Context, s auth.Session) error
	// Session returns the session whose id hashes to h.
	Session(ctx context.Context, h auth.SecretHash) (auth.Session, error)
	// TouchSession records that the session was used at at.
	TouchSession(ctx context.Context, h auth.SecretHash, at time.Time) error
	// DeleteSession ends one session (deleting a missing one is not an error).
	DeleteSession(ctx context.Context, h auth.SecretHash) error
	// DeleteSessionsOf ends every session of a user.
	DeleteSessionsOf(ctx context.Context, user auth.UserID) error
	// DeleteExpiredSessions removes sessions that expired before now and
	// returns how many.
	DeleteExpiredSessions(ctx context.Context, now time.Time) (int, error)

	// AppendAudit appends entries to the audit trail in one transaction and
	// assigns their Seq. Audit rows are written without waiting for their
	// own fsync (the next durable commit carries them).
	AppendAudit(ctx context.Context, entries []AuditEntry) error
	// Audit lists audit entries matching f, newest first.
	Audit(ctx context.Context, f AuditFilter) ([]AuditEntry, error)
}
