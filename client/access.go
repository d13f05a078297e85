package client

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// The access routes: log-in, built-in users and groups, grants, API tokens
// and the audit trail (servers run with --auth builtin; most need the admin
// role).

// Setup exchanges the one-time set-up token a new --auth builtin server logs
// for the first user, who gets the admin role. A wrong or used token is 403.
func (c *Client) Setup(ctx context.Context, setupToken, user, password string) (User, error) {
	var out User
	err := c.do(ctx, request{method: http.MethodPost, path: "/auth/setup", body: map[string]any{"setupToken": setupToken, "user": user, "password": password}}, &out)
	return out, err
}

// Login checks a built-in user's password and opens a session. The server
// sets it as the gobpm_session cookie: give the client an http.Client with
// a cookie jar (WithHTTPClient) for later calls to use it. A wrong user or
// password is 401.
func (c *Client) Login(ctx context.Context, user, password string) (SessionState, error) {
	var out SessionState
	err := c.do(ctx, request{method: http.MethodPost, path: "/auth/login", body: map[string]any{"user": user, "password": password}}, &out)
	return out, err
}

// Logout ends the session of the client's cookie, if any.
func (c *Client) Logout(ctx context.Context) error {
	return c.do(ctx, request{method: http.MethodPost, path: "/auth/logout"}, nil)
}

// Me returns the authenticated caller with their groups, roles and grants.
func (c *Client) Me(ctx context.Context) (Me, error) {
	var out Me
	err := c.do(ctx, request{method: http.MethodGet, path: "/auth/me"}, &out)
	return out, err
}

// Users lists up to limit built-in users (0: the server's default) by id,
// after the id after ("" from the first).
func (c *Client) Users(ctx context.Context, after string, limit int) ([]User, error) {
	q := url.Values{}
	set(q, "after", after)
	setInt(q, "limit", limit)
	var out struct{ Items []User }
	err := c.do(ctx, request{method: http.MethodGet, path: "/users", query: q}, &out)
	return out.Items, err
}

// NewUser is a built-in user to create. One without a password cannot log
// in but can own API tokens (a worker).
type NewUser struct {
	ID       string `json:"id"`
	Name     string `json:"name,omitempty"`
	Password string `json:"password,omitempty"`
}

// CreateUser creates a built-in user; an id in use is a 409.
func (c *Client) CreateUser(ctx context.Context, u NewUser) (User, error) {
	var out User
	err := c.do(ctx, request{method: http.MethodPost, path: "/users", body: u}, &out)
	return out, err
}

// User returns a built-in user and their groups.
func (c *Client) User(ctx context.Context, id string) (UserDetail, error) {
	var out UserDetail
	err := c.do(ctx, request{method: http.MethodGet, path: "/users/" + esc(id)}, &out)
	return out, err
}

// UserUpdate changes a user; nil fields stay as they are.
type UserUpdate struct {
	Name *string `json:"name,omitempty"`
	// Password sets the password; an empty one removes it.
	Password *string `json:"password,omitempty"`
	// Disabled stops the user's sessions and tokens at their next request.
	Disabled *bool `json:"disabled,omitempty"`
}

// UpdateUser changes a user and returns them.
func (c *Client) UpdateUser(ctx context.Context, id string, upd UserUpdate) (User, error) {
	var out User
	err := c.do(ctx, request{method: http.MethodPatch, path: "/users/" + esc(id), body: upd}, &out)
	return out, err
}

// DeleteUser removes a user with their memberships, grants, tokens and
// sessions. Deleting oneself is a 409.
func (c *Client) DeleteUser(ctx context.Context, id string) error {
	return c.do(ctx, request{method: http.MethodDelete, path: "/users/" + esc(id)}, nil)
}

// Groups lists the groups by id.
func (c *Client) Groups(ctx context.Context) ([]Group, error) {
	var out struct{ Items []Group }
	err := c.do(ctx, request{method: http.MethodGet, path: "/groups"}, &out)
	return out.Items, err
}

// CreateGroup creates a group; an id in use is a 409.
func (c *Client) CreateGroup(ctx context.Context, id, name string) (Group, error) {
	body := map[string]any{"id": id}
	if name != "" {
		body["name"] = name
	}
	var out Group
	err := c.do(ctx, request{method: http.MethodPost, path: "/groups", body: body}, &out)
	return out, err
}

// Group returns a group's members.
func (c *Client) Group(ctx context.Context, id string) (GroupMembers, error) {
	var out GroupMembers
	err := c.do(ctx, request{method: http.MethodGet, path: "/groups/" + esc(id)}, &out)
	return out, err
}

// DeleteGroup removes a group with its memberships and grants.
func (c *Client) DeleteGroup(ctx context.Context, id string) error {
	return c.do(ctx, request{method: http.MethodDelete, path: "/groups/" + esc(id)}, nil)
}

// AddMember adds a user to a group; adding a member twice is not an error.
func (c *Client) AddMember(ctx context.Context, groupID, userID string) error {
	return c.do(ctx, request{method: http.MethodPut, path: "/groups/" + esc(groupID) + "/members/" + esc(userID)}, nil)
}

// RemoveMember removes a user from a group; removing a non-member is not an
// error.
func (c *Client) RemoveMember(ctx context.Context, groupID, userID string) error {
	return c.do(ctx, request{method: http.MethodDelete, path: "/groups/" + esc(groupID) + "/members/" + esc(userID)}, nil)
}

// Grants lists the grants of one subject, or all with a zero subject.
func (c *Client) Grants(ctx context.Context, subject Subject) ([]GrantRecord, error) {
	q := url.Values{}
	set(q, "subjectKind", subject.Kind)
	set(q, "subjectId", subject.ID)
	var out struct{ Items []GrantRecord }
	err := c.do(ctx, request{method: http.MethodGet, path: "/grants", query: q}, &out)
	return out.Items, err
}

// GrantRequest gives a subject either a built-in role (admin, developer,
// operator, worker, viewer) or one grant.
type GrantRequest struct {
	Subject Subject `json:"subject"`
	Role    string  `json:"role,omitempty"`
	Grant   *Grant  `json:"grant,omitempty"`
}

// CreateGrant gives a role or a grant; giving the same twice returns the
// existing grant.
func (c *Client) CreateGrant(ctx context.Context, req GrantRequest) (GrantRecord, error) {
	var out GrantRecord
	err := c.do(ctx, request{method: http.MethodPost, path: "/grants", body: req}, &out)
	return out, err
}

// DeleteGrant takes a grant back.
func (c *Client) DeleteGrant(ctx context.Context, id int64) error {
	return c.do(ctx, request{method: http.MethodDelete, path: "/grants/" + strconv.FormatInt(id, 10)}, nil)
}

// Tokens lists API tokens, newest first: an admin sees every token (or
// owner's, when set), anyone else their own. Secrets are never shown again.
func (c *Client) Tokens(ctx context.Context, owner string) ([]Token, error) {
	q := url.Values{}
	set(q, "owner", owner)
	var out struct{ Items []Token }
	err := c.do(ctx, request{method: http.MethodGet, path: "/tokens", query: q}, &out)
	return out.Items, err
}

// TokenRequest is an API token to mint.
type TokenRequest struct {
	// Owner is the user the token acts as; "" for the caller (only an admin
	// mints for others).
	Owner string
	Name  string
	// Grants restrict the token below its owner.
	Grants []Grant
	// TTL makes the token expire (whole milliseconds); 0 never.
	TTL time.Duration
}

// CreateToken mints an API token and returns it with its secret, shown
// this once: pass it to WithToken.
func (c *Client) CreateToken(ctx context.Context, req TokenRequest) (MintedToken, error) {
	body := map[string]any{"name": req.Name}
	if req.Owner != "" {
		body["owner"] = req.Owner
	}
	if req.Grants != nil {
		body["grants"] = req.Grants
	}
	if req.TTL > 0 {
		body["ttlMs"] = max(req.TTL.Milliseconds(), 1)
	}
	var out MintedToken
	err := c.do(ctx, request{method: http.MethodPost, path: "/tokens", body: body}, &out)
	return out, err
}

// RevokeToken revokes an API token at once.
func (c *Client) RevokeToken(ctx context.Context, id string) error {
	return c.do(ctx, request{method: http.MethodDelete, path: "/tokens/" + esc(id)}, nil)
}

// AuditFilter selects audit entries; zero fields do not filter.
type AuditFilter struct {
	Actor string
	// Action matches exactly, e.g. "login" or "POST /api/v1/instances/{id}/cancel".
	Action string
	// Resource is a prefix, e.g. "instance 0197".
	Resource string
	Outcome  string // ok, denied, failed or error
	From, To time.Time
	// Before pages on: the Next of the previous page.
	Before string
	Limit  int
}

// Audit lists a page of the audit trail, newest first.
func (c *Client) Audit(ctx context.Context, f AuditFilter) (AuditPage, error) {
	q := url.Values{}
	set(q, "actor", f.Actor)
	set(q, "action", f.Action)
	set(q, "resource", f.Resource)
	set(q, "outcome", f.Outcome)
	set(q, "before", f.Before)
	setInt(q, "limit", f.Limit)
	if !f.From.IsZero() {
		q.Set("from", f.From.Format(time.RFC3339Nano))
	}
	if !f.To.IsZero() {
		q.Set("to", f.To.Format(time.RFC3339Nano))
	}
	var out AuditPage
	err := c.do(ctx, request{method: http.MethodGet, path: "/audit", query: q}, &out)
	return out, err
}
