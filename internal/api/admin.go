package api

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/gobpm/gobpm/internal/access"
	"github.com/gobpm/gobpm/internal/auth"
)

// Admin and login routes (docs/security.md): who may log in, what they are
// granted, the tokens of workers and integrations, and the audit trail.
// They exist only with authentication; without it they answer 404.

// Me is GET /api/v1/auth/me: who the caller is and what they may do.
type Me struct {
	User       string        `json:"user"`
	Groups     []string      `json:"groups"`
	Roles      []string      `json:"roles"`
	Grants     []auth.Grant  `json:"grants"`
	Via        string        `json:"via"`
	Actor      string        `json:"actor,omitempty"`
	Restricted bool          `json:"restricted"`
	Session    *SessionState `json:"session,omitempty"`
}

// SessionState describes a cockpit session in a login answer.
type SessionState struct {
	User      string    `json:"user"`
	ExpiresAt time.Time `json:"expiresAt"`
}

// MintedToken is the answer to POST /api/v1/tokens: the token's metadata
// and, this once, its secret.
type MintedToken struct {
	Token  auth.Token `json:"token"`
	Secret string     `json:"secret"`
}

// writeList answers items as a List, an empty array (never null) when
// there are none.
func writeList[T any](s *server, w http.ResponseWriter, r *http.Request, items []T) {
	if items == nil {
		items = []T{}
	}
	s.writeJSON(w, r, http.StatusOK, List[T]{Items: items})
}

// needAccess returns the access service, or a 404 problem when the server
// runs without authentication (these routes then do not exist).
func (s *server) needAccess(r *http.Request) (*access.Service, error) {
	if s.access == nil || s.access.Mode() == access.ModeNone {
		return nil, errorf(kindNotFound, "", r.URL.Path+" exists only when the server authenticates (--auth builtin or oidc)")
	}
	return s.access, nil
}

// fieldInto decodes member name into dst; present is false when it is
// absent or null.
func fieldInto(members map[string]json.RawMessage, name string, dst any) (present bool, err error) {
	raw, ok := members[name]
	if !ok || isNull(raw) {
		return false, nil
	}
	if err := json.Unmarshal(raw, dst); err != nil {
		return true, errorf(kindInvalidRequest, name, fmt.Sprintf("%s: %v", name, err))
	}
	return true, nil
}

// loginRequest is the body of POST /api/v1/auth/login: {user, password}.
type loginRequest struct {
	bodyMembers
	User     string
	Password string
}

// Validate decodes and checks user and password, in that order.
func (q *loginRequest) Validate() error {
	var err error
	if q.User, err = requiredStringField(q.members, "user"); err != nil {
		return err
	}
	q.Password, err = requiredStringField(q.members, "password")
	return err
}

// login handles POST /api/v1/auth/login (loginRequest): it opens a
// cockpit session (cookie gobpm_session, HttpOnly, SameSite=Lax, Secure on
// HTTPS and with Options.SecureCookies). Wrong credentials are 401
// whatever was wrong; too many failures, or too many attempts at once for
// the name or from the address, are 429 with Retry-After; a full hash pool
// is 503 with Retry-After.
func (s *server) login(w http.ResponseWriter, r *http.Request) error {
	acc, err := s.needAccess(r)
	if err != nil {
		return err
	}
	var q loginRequest
	if err := s.decodeBody(w, r, &q); err != nil {
		return err
	}
	user, password := q.User, q.Password
	noAudit(r)
	cookie, sess, err := acc.Login(r.Context(), user, password, clientAddr(r))
	entry := access.AuditEntry{Action: "login", Resource: "user " + user, RequestID: RequestID(r.Context()), Addr: clientAddr(r)}
	if err != nil {
		entry.Action, entry.Outcome = "login-failed", "denied"
		var locked *auth.LockedOutError
		switch {
		case errors.As(err, &locked):
			entry.Status = http.StatusTooManyRequests
			acc.Record(entry)
			w.Header().Set("Retry-After", strconv.Itoa(int(locked.RetryAfter.Seconds()+0.5)))
			return errorf(kindTooManyRequests, "", "too many failed logins: try again later")
		case errors.Is(err, access.ErrUnauthenticated):
			entry.Status = http.StatusUnauthorized
			acc.Record(entry)
			return unauthenticated("wrong user name or password")
		case errors.Is(err, auth.ErrBusy):
			entry.Status = http.StatusServiceUnavailable
			acc.Record(entry)
		}
		return hashingBusy(w, err)
	}
	entry.Actor, entry.Via, entry.Outcome, entry.Status = sess.User, "session", "ok", http.StatusOK
	acc.Record(entry)
	setSessionCookie(w, r, cookie, sess.ExpiresAt, s.opts.SecureCookies)
	s.writeJSON(w, r, http.StatusOK, SessionState{User: string(sess.User), ExpiresAt: sess.ExpiresAt})
	return nil
}

// hashingBusy turns err into the 503 problem, with Retry-After, when the
// password hash pool refused the work (auth.ErrBusy); other errors pass.
func hashingBusy(w http.ResponseWriter, err error) error {
	if !errors.Is(err, auth.ErrBusy) {
		return err
	}
	w.Header().Set("Retry-After", strconv.Itoa(int(auth.BusyRetryAfter/time.Second)))
	return errorf(kindUnavailable, "", "the server is busy checking other passwords: try again shortly")
}

// setSessionCookie sets the cockpit's session cookie: HttpOnly,
// SameSite=Lax, Secure when the request came over HTTPS or secure says the
// server is reached over HTTPS (behind a TLS proxy: --secure-cookies or an
// https --public-url).
func setSessionCookie(w http.ResponseWriter, r *http.Request, value string, expires time.Time, secure bool) {
	http.SetCookie(w, &http.Cookie{Name: SessionCookie, Value: value, Path: "/", Expires: expires,
		HttpOnly: true, SameSite: http.SameSiteLaxMode, Secure: secure || r.TLS != nil})
}

// clearSessionCookie removes the session cookie (Secure as it was set).
func clearSessionCookie(w http.ResponseWriter, r *http.Request, secure bool) {
	http.SetCookie(w, &http.Cookie{Name: SessionCookie, Value: "", Path: "/", MaxAge: -1,
		HttpOnly: true, SameSite: http.SameSiteLaxMode, Secure: secure || r.TLS != nil})
}

// logout handles POST /api/v1/auth/logout: it ends the session of the
// cookie, if any, and clears the cookie.
func (s *server) logout(w http.ResponseWriter, r *http.Request) error {
	acc, err := s.needAccess(r)
	if err != nil {
		return err
	}
	noAudit(r)
	if ck, err := r.Cookie(SessionCookie); err == nil && ck.Value != "" {
		if err := acc.Logout(r.Context(), ck.Value); err != nil {
			return err
		}
		c := callerFrom(r.Context())
		acc.Record(access.AuditEntry{Actor: c.User, Via: c.Via, Action: "logout", Outcome: "ok", Status: http.StatusNoContent,
			RequestID: RequestID(r.Context()), Addr: clientAddr(r)})
	}
	clearSessionCookie(w, r, s.opts.SecureCookies)
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// noAudit marks a request whose handler records the audit entry itself.
func noAudit(r *http.Request) {
	if st := logStateFrom(r.Context()); st != nil {
		st.skipAudit = true
	}
}

// setupRequest is the body of POST /api/v1/auth/setup: {setupToken, user,
// password}.
type setupRequest struct {
	bodyMembers
	SetupToken string
	User       string
	Password   string
}

// Validate decodes and checks setupToken, user and password, in that
// order.
func (q *setupRequest) Validate() error {
	var err error
	if q.SetupToken, err = requiredStringField(q.members, "setupToken"); err != nil {
		return err
	}
	if q.User, err = requiredStringField(q.members, "user"); err != nil {
		return err
	}
	q.Password, err = requiredStringField(q.members, "password")
	return err
}

// setup handles POST /api/v1/auth/setup (setupRequest): the first admin of
// a new server, once.
func (s *server) setup(w http.ResponseWriter, r *http.Request) error {
	acc, err := s.needAccess(r)
	if err != nil {
		return err
	}
	var q setupRequest
	if err := s.decodeBody(w, r, &q); err != nil {
		return err
	}
	u, err := acc.FirstRun(r.Context(), q.SetupToken, q.User, q.Password)
	if err != nil {
		return hashingBusy(w, err)
	}
	noteResource(r, "user "+string(u.ID))
	s.writeJSON(w, r, http.StatusCreated, u)
	return nil
}

// me handles GET /api/v1/auth/me.
func (s *server) me(w http.ResponseWriter, r *http.Request) error {
	c := callerFrom(r.Context())
	out := Me{User: string(c.User), Groups: []string{}, Roles: []string{}, Grants: c.Grants, Via: c.Via,
		Actor: string(c.Actor), Restricted: len(c.Restrictions) > 0}
	if out.Grants == nil {
		out.Grants = []auth.Grant{}
	}
	for _, g := range c.Groups {
		out.Groups = append(out.Groups, string(g))
	}
	for _, ro := range c.Roles {
		out.Roles = append(out.Roles, string(ro))
	}
	s.writeJSON(w, r, http.StatusOK, out)
	return nil
}

// listUsers handles GET /api/v1/users?after=&limit=.
func (s *server) listUsers(w http.ResponseWriter, r *http.Request) error {
	acc, err := s.needAccess(r)
	if err != nil {
		return err
	}
	limit, err := queryInt(r, "limit", 100, 1, 1000)
	if err != nil {
		return err
	}
	users, err := acc.Users(r.Context(), r.URL.Query().Get("after"), int(limit))
	if err != nil {
		return err
	}
	writeList(s, w, r, users)
	return nil
}

// createUserRequest is the body of POST /api/v1/users: {id, name?,
// password?}.
type createUserRequest struct {
	bodyMembers
	User access.NewUser
}

// Validate decodes and checks id, name and password, in that order.
func (q *createUserRequest) Validate() error {
	var err error
	if q.User.ID, err = requiredStringField(q.members, "id"); err != nil {
		return err
	}
	if q.User.Name, err = stringField(q.members, "name"); err != nil {
		return err
	}
	q.User.Password, err = stringField(q.members, "password")
	return err
}

// createUser handles POST /api/v1/users (createUserRequest).
func (s *server) createUser(w http.ResponseWriter, r *http.Request) error {
	acc, err := s.needAccess(r)
	if err != nil {
		return err
	}
	var q createUserRequest
	if err := s.decodeBody(w, r, &q); err != nil {
		return err
	}
	req := q.User
	noteResource(r, "user "+req.ID)
	u, err := acc.CreateUser(r.Context(), callerFrom(r.Context()).User, req)
	if err != nil {
		return hashingBusy(w, err)
	}
	s.writeJSON(w, r, http.StatusCreated, u)
	return nil
}

// UserDetail is a user with their groups.
type UserDetail struct {
	access.User
	Groups []auth.GroupID `json:"groups"`
}

// getUser handles GET /api/v1/users/{id}.
func (s *server) getUser(w http.ResponseWriter, r *http.Request) error {
	acc, err := s.needAccess(r)
	if err != nil {
		return err
	}
	id := chi.URLParam(r, "id")
	u, err := acc.User(r.Context(), id)
	if err != nil {
		return err
	}
	groups, err := acc.GroupsOf(r.Context(), id)
	if err != nil {
		return err
	}
	if groups == nil {
		groups = []auth.GroupID{}
	}
	s.writeJSON(w, r, http.StatusOK, UserDetail{User: u, Groups: groups})
	return nil
}

// updateUserRequest is the body of PATCH /api/v1/users/{id}: {name?,
// password?, disabled?}.
type updateUserRequest struct {
	bodyMembers
	Change access.UserChange
}

// Validate decodes and checks name, password and disabled, in that order.
func (q *updateUserRequest) Validate() error {
	for _, f := range []struct {
		name string
		dst  any
	}{{"name", &q.Change.Name}, {"password", &q.Change.Password}, {"disabled", &q.Change.Disabled}} {
		if _, err := fieldInto(q.members, f.name, f.dst); err != nil {
			return err
		}
	}
	return nil
}

// updateUser handles PATCH /api/v1/users/{id} (updateUserRequest).
func (s *server) updateUser(w http.ResponseWriter, r *http.Request) error {
	acc, err := s.needAccess(r)
	if err != nil {
		return err
	}
	var q updateUserRequest
	if err := s.decodeBody(w, r, &q); err != nil {
		return err
	}
	u, err := acc.UpdateUser(r.Context(), chi.URLParam(r, "id"), q.Change)
	if err != nil {
		return hashingBusy(w, err)
	}
	s.writeJSON(w, r, http.StatusOK, u)
	return nil
}

// deleteUser handles DELETE /api/v1/users/{id}.
func (s *server) deleteUser(w http.ResponseWriter, r *http.Request) error {
	acc, err := s.needAccess(r)
	if err != nil {
		return err
	}
	id := chi.URLParam(r, "id")
	if auth.UserID(id) == callerFrom(r.Context()).User {
		return errorf(kindConflict, "", "you cannot delete yourself; another admin can")
	}
	if err := acc.DeleteUser(r.Context(), id); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// listGroups handles GET /api/v1/groups.
func (s *server) listGroups(w http.ResponseWriter, r *http.Request) error {
	acc, err := s.needAccess(r)
	if err != nil {
		return err
	}
	groups, err := acc.Groups(r.Context())
	if err != nil {
		return err
	}
	writeList(s, w, r, groups)
	return nil
}

// createGroupRequest is the body of POST /api/v1/groups: {id, name?}.
type createGroupRequest struct {
	bodyMembers
	ID   string
	Name string
}

// Validate decodes and checks id and name, in that order.
func (q *createGroupRequest) Validate() error {
	var err error
	if q.ID, err = requiredStringField(q.members, "id"); err != nil {
		return err
	}
	q.Name, err = stringField(q.members, "name")
	return err
}

// createGroup handles POST /api/v1/groups (createGroupRequest).
func (s *server) createGroup(w http.ResponseWriter, r *http.Request) error {
	acc, err := s.needAccess(r)
	if err != nil {
		return err
	}
	var q createGroupRequest
	if err := s.decodeBody(w, r, &q); err != nil {
		return err
	}
	id, name := q.ID, q.Name
	noteResource(r, "group "+id)
	g, err := acc.CreateGroup(r.Context(), id, name)
	if err != nil {
		return err
	}
	s.writeJSON(w, r, http.StatusCreated, g)
	return nil
}

// GroupDetail is a group with its members.
type GroupDetail struct {
	ID      auth.GroupID  `json:"id"`
	Members []auth.UserID `json:"members"`
}

// getGroup handles GET /api/v1/groups/{id}: the group's members.
func (s *server) getGroup(w http.ResponseWriter, r *http.Request) error {
	acc, err := s.needAccess(r)
	if err != nil {
		return err
	}
	id := chi.URLParam(r, "id")
	members, err := acc.Members(r.Context(), id)
	if err != nil {
		return err
	}
	if members == nil {
		members = []auth.UserID{}
	}
	s.writeJSON(w, r, http.StatusOK, GroupDetail{ID: auth.GroupID(id), Members: members})
	return nil
}

// deleteGroup handles DELETE /api/v1/groups/{id}.
func (s *server) deleteGroup(w http.ResponseWriter, r *http.Request) error {
	acc, err := s.needAccess(r)
	if err != nil {
		return err
	}
	if err := acc.DeleteGroup(r.Context(), chi.URLParam(r, "id")); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// setMember handles PUT and DELETE /api/v1/groups/{id}/members/{userId}.
func (s *server) setMember(member bool) func(w http.ResponseWriter, r *http.Request) error {
	return func(w http.ResponseWriter, r *http.Request) error {
		acc, err := s.needAccess(r)
		if err != nil {
			return err
		}
		if err := acc.SetMember(r.Context(), chi.URLParam(r, "id"), chi.URLParam(r, "userId"), member); err != nil {
			return err
		}
		w.WriteHeader(http.StatusNoContent)
		return nil
	}
}

// listGrants handles GET /api/v1/grants?subjectKind=&subjectId=.
func (s *server) listGrants(w http.ResponseWriter, r *http.Request) error {
	acc, err := s.needAccess(r)
	if err != nil {
		return err
	}
	q := r.URL.Query()
	subject := access.Subject{Kind: access.SubjectKind(q.Get("subjectKind")), ID: q.Get("subjectId")}
	if (subject.Kind == "") != (subject.ID == "") {
		return errorf(kindInvalidRequest, "subjectKind", "give both subjectKind and subjectId, or neither")
	}
	grants, err := acc.Grants(r.Context(), subject)
	if err != nil {
		return err
	}
	writeList(s, w, r, grants)
	return nil
}

// createGrantRequest is the body of POST /api/v1/grants:
// {subject:{kind,id}, role} or {subject, grant:{permission, kind, pattern}}.
type createGrantRequest struct {
	bodyMembers
	Grant access.GrantRecord
}

// Validate decodes and checks subject (required), role and grant, in that
// order.
func (q *createGrantRequest) Validate() error {
	if ok, err := fieldInto(q.members, "subject", &q.Grant.Subject); err != nil {
		return err
	} else if !ok {
		return errorf(kindInvalidRequest, "subject", "subject is required: {\"kind\": \"user\"|\"group\", \"id\": …}")
	}
	if _, err := fieldInto(q.members, "role", &q.Grant.Role); err != nil {
		return err
	}
	var grant auth.Grant
	if ok, err := fieldInto(q.members, "grant", &grant); err != nil {
		return err
	} else if ok {
		q.Grant.Grant = &grant
	}
	return nil
}

// createGrant handles POST /api/v1/grants (createGrantRequest).
func (s *server) createGrant(w http.ResponseWriter, r *http.Request) error {
	acc, err := s.needAccess(r)
	if err != nil {
		return err
	}
	var q createGrantRequest
	if err := s.decodeBody(w, r, &q); err != nil {
		return err
	}
	out, err := acc.Grant(r.Context(), callerFrom(r.Context()).User, q.Grant)
	if err != nil {
		return err
	}
	noteResource(r, fmt.Sprintf("grant %d", out.ID))
	s.writeJSON(w, r, http.StatusCreated, out)
	return nil
}

// deleteGrant handles DELETE /api/v1/grants/{id}.
func (s *server) deleteGrant(w http.ResponseWriter, r *http.Request) error {
	acc, err := s.needAccess(r)
	if err != nil {
		return err
	}
	id, err := strconv.ParseInt(chi.URLParam(r, "id"), 10, 64)
	if err != nil {
		return errorf(kindNotFound, "id", "no grant "+chi.URLParam(r, "id"))
	}
	if err := acc.Revoke(r.Context(), id); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// isAdmin reports whether the request's caller administers everything.
func isAdmin(r *http.Request) bool {
	return callerFrom(r.Context()).Allowed(auth.PermAdmin, auth.KindSystem, "")
}

// listTokens handles GET /api/v1/tokens?owner=: an admin sees every token
// (or one owner's), anyone else their own.
func (s *server) listTokens(w http.ResponseWriter, r *http.Request) error {
	acc, err := s.needAccess(r)
	if err != nil {
		return err
	}
	owner := r.URL.Query().Get("owner")
	if me := string(callerFrom(r.Context()).User); !isAdmin(r) {
		if owner != "" && owner != me {
			return errorf(kindForbidden, "owner", "only an admin may list another user's tokens")
		}
		owner = me
	}
	tokens, err := acc.Tokens(r.Context(), owner)
	if err != nil {
		return err
	}
	writeList(s, w, r, tokens)
	return nil
}

// maxTokenTTLMs bounds a minted token's lifetime: ten years.
const maxTokenTTLMs = int64(10 * 365 * 24 * time.Hour / time.Millisecond)

// createTokenRequest is the body of POST /api/v1/tokens: {owner?, name,
// grants?, ttlMs?}.
type createTokenRequest struct {
	bodyMembers
	Token access.NewToken
}

// Validate decodes and checks owner, name, grants and ttlMs, in that
// order.
func (q *createTokenRequest) Validate() error {
	var err error
	if q.Token.Owner, err = stringField(q.members, "owner"); err != nil {
		return err
	}
	if q.Token.Name, err = requiredStringField(q.members, "name"); err != nil {
		return err
	}
	if _, err := fieldInto(q.members, "grants", &q.Token.Grants); err != nil {
		return err
	}
	if ms, ok, err := intField(q.members, "ttlMs", 1, maxTokenTTLMs); err != nil {
		return err
	} else if ok {
		q.Token.TTL = millis(ms)
	}
	return nil
}

// createToken handles POST /api/v1/tokens (createTokenRequest): an admin mints tokens for any user, anyone else for themselves, and a
// token is at most its minter (access.Service.MintTokenBy: 403 for grants
// beyond a restricted minter's, a lifetime beyond its expiry, or minting
// while acting for someone). The answer carries the secret, this once.
func (s *server) createToken(w http.ResponseWriter, r *http.Request) error {
	acc, err := s.needAccess(r)
	if err != nil {
		return err
	}
	var q createTokenRequest
	if err := s.decodeBody(w, r, &q); err != nil {
		return err
	}
	secret, t, err := acc.MintTokenBy(r.Context(), callerFrom(r.Context()), q.Token)
	if err != nil {
		return err
	}
	noteResource(r, "token "+string(t.ID))
	s.writeJSON(w, r, http.StatusCreated, MintedToken{Token: t, Secret: secret})
	return nil
}

// revokeToken handles DELETE /api/v1/tokens/{id}: an admin revokes any
// token, anyone else their own. It stops working at once.
func (s *server) revokeToken(w http.ResponseWriter, r *http.Request) error {
	acc, err := s.needAccess(r)
	if err != nil {
		return err
	}
	id := chi.URLParam(r, "id")
	t, err := acc.Token(r.Context(), id)
	if err != nil {
		return err
	}
	if t.Owner != callerFrom(r.Context()).User && !isAdmin(r) {
		return errorf(kindNotFound, "id", "no token "+id) // not an oracle for others' token ids
	}
	if err := acc.RevokeToken(r.Context(), id); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// AuditPage is a page of the audit trail, newest first.
type AuditPage struct {
	Items []access.AuditEntry `json:"items"`
	// Next is the cursor of the next (older) page: pass it as before=;
	// absent on the last page.
	Next string `json:"next,omitempty"`
}

// listAudit handles GET /api/v1/audit?actor=&action=&resource=&outcome=&from=&to=&before=&limit=.
func (s *server) listAudit(w http.ResponseWriter, r *http.Request) error {
	acc, err := s.needAccess(r)
	if err != nil {
		return err
	}
	q := r.URL.Query()
	f := access.AuditFilter{Actor: auth.UserID(q.Get("actor")), Action: q.Get("action"), Resource: q.Get("resource"), Outcome: q.Get("outcome")}
	for name, dst := range map[string]*time.Time{"from": &f.From, "to": &f.To} {
		if v := q.Get(name); v != "" {
			t, err := time.Parse(time.RFC3339, v)
			if err != nil {
				return errorf(kindInvalidRequest, name, name+" must be an RFC 3339 time")
			}
			*dst = t
		}
	}
	before, err := queryInt(r, "before", 0, 0, 1<<62)
	if err != nil {
		return err
	}
	limit, err := queryInt(r, "limit", 100, 1, 1000)
	if err != nil {
		return err
	}
	f.Before, f.Limit = before, int(limit)
	entries, err := acc.Audit(r.Context(), f)
	if err != nil {
		return err
	}
	out := AuditPage{Items: entries}
	if out.Items == nil {
		out.Items = []access.AuditEntry{}
	}
	if len(entries) == f.Limit {
		out.Next = strconv.FormatInt(entries[len(entries)-1].Seq, 10)
	}
	s.writeJSON(w, r, http.StatusOK, out)
	return nil
}
