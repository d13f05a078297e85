package cockpit

import (
	"container/list"
	"errors"
	"log/slog"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gobpm/gobpm/internal/access"
	"github.com/gobpm/gobpm/internal/auth"
	"github.com/gobpm/gobpm/internal/runtime"
	"github.com/gobpm/gobpm/web/templates"
)

// OIDC logins in progress: how long one may take and how many are kept,
// in all and per client address (so that one address cannot fill the
// table, nor push the logins of others out of it).
const (
	oidcLoginTTL         = 10 * time.Minute
	maxOIDCLogins        = 10_000
	maxOIDCLoginsPerAddr = 16
)

// nextPath keeps the page to return to after a login on this site (see
// localPath), and never the login pages themselves.
func nextPath(p string) string {
	p = localPath(p, "/")
	for _, own := range []string{templates.RouteLogin, templates.RouteLogout, templates.RouteSetup} {
		if p == own || strings.HasPrefix(p, own+"/") || strings.HasPrefix(p, own+"?") {
			return "/"
		}
	}
	return p
}

// noLogins answers the login routes of a cockpit without logins.
func (h *handler) noLogins(w http.ResponseWriter, r *http.Request) bool {
	if h.authOn() {
		return false
	}
	h.fail(w, r, http.StatusNotFound, "This cockpit has no logins: it runs without authentication (--auth none) and the acting-as box names who acts.")
	return true
}

// loginPage shows the login form, or sends a person who is logged in on.
func (h *handler) loginPage(w http.ResponseWriter, r *http.Request) {
	if h.noLogins(w, r) {
		return
	}
	next := nextPath(r.URL.Query().Get("next"))
	switch {
	case sessionFrom(r).ok:
		http.Redirect(w, r, next, http.StatusSeeOther)
		return
	case h.opts.Access.SetupToken() != "":
		http.Redirect(w, r, templates.RouteSetup, http.StatusSeeOther)
		return
	}
	h.renderLogin(w, r, http.StatusOK, next, "", templates.Flash{})
}

func (h *handler) renderLogin(w http.ResponseWriter, r *http.Request, status int, next, user string, flash templates.Flash) {
	p := templates.LoginPage{Layout: h.layout(w, r, "Log in", ""), Next: next, User: user}
	if flash.Message != "" {
		p.Flash = flash
	}
	if h.opts.Access.Mode() == access.ModeOIDC {
		p.OIDC, p.OIDCName = true, h.opts.OIDCName
		if p.OIDCName == "" {
			p.OIDCName = "your identity provider"
		}
	}
	h.render(w, r, status, templates.Login(p))
}

// login checks a user name and password (--auth builtin) and opens a
// session. Wrong credentials and lock-outs are told apart (the lock-out
// says nothing about whether the name exists); each attempt is recorded.
func (h *handler) login(w http.ResponseWriter, r *http.Request) {
	if h.noLogins(w, r) {
		return
	}
	acc := h.opts.Access
	next := nextPath(r.PostFormValue("next"))
	if acc.Mode() != access.ModeBuiltin {
		h.renderLogin(w, r, http.StatusBadRequest, next, "", errFlash("This server logs people in at its identity provider, not with a password here."))
		return
	}
	user, password := strings.TrimSpace(r.PostFormValue("user")), r.PostFormValue("password")
	if user == "" || password == "" {
		h.renderLogin(w, r, http.StatusBadRequest, next, user, errFlash("Type your user name and your password."))
		return
	}
	cookie, sess, err := acc.Login(r.Context(), user, password, clientAddr(r))
	entry := access.AuditEntry{Action: "login", Resource: "user " + user}
	if err != nil {
		entry.Action, entry.Outcome = "login-failed", "denied"
		var locked *auth.LockedOutError
		switch {
		case errors.As(err, &locked):
			entry.Status = http.StatusTooManyRequests
			h.record(w, r, entry)
			w.Header().Set("Retry-After", strconv.Itoa(int(locked.RetryAfter.Seconds()+0.5)))
			h.renderLogin(w, r, http.StatusTooManyRequests, next, user, errFlash(
				"Too many failed logins, or too many at once, for this user name or from this address: logins are refused for "+wait(locked.RetryAfter)+". Try again then, or ask an administrator to set a new password."))
		case errors.Is(err, access.ErrUnauthenticated):
			entry.Status = http.StatusUnauthorized
			h.record(w, r, entry)
			h.renderLogin(w, r, http.StatusUnauthorized, next, user, errFlash("Wrong user name or password."))
		case errors.Is(err, auth.ErrBusy):
			entry.Status = http.StatusServiceUnavailable
			h.record(w, r, entry)
			h.renderLogin(w, r, http.StatusServiceUnavailable, next, user, errFlash(hashingBusy(w)))
		default:
			entry.Outcome, entry.Status = "error", http.StatusInternalServerError
			h.record(w, r, entry)
			h.renderLogin(w, r, http.StatusInternalServerError, next, user, errFlash(h.plain(r, err)))
		}
		return
	}
	entry.Actor, entry.Via, entry.Status = sess.User, "session", http.StatusSeeOther
	h.record(w, r, entry)
	h.setSession(w, r, cookie, sess.ExpiresAt)
	h.done(w, r, next, "ok", "You are logged in as "+string(sess.User)+".")
}

// hashingBusy sets Retry-After on a refusal by the full password hash pool
// (auth.ErrBusy) and says what happened.
func hashingBusy(w http.ResponseWriter) string {
	w.Header().Set("Retry-After", strconv.Itoa(int(auth.BusyRetryAfter/time.Second)))
	return "The server is busy checking other passwords. Try again in a moment."
}

func errFlash(msg string) templates.Flash { return templates.Flash{Kind: "error", Message: msg} }

// wait says how long a lock-out lasts, rounded up to a whole second or
// minute.
func wait(d time.Duration) string {
	switch s := int((d + time.Second - 1) / time.Second); {
	case s <= 1:
		return "a second"
	case s < 60:
		return strconv.Itoa(s) + " seconds"
	case s <= 60:
		return "a minute"
	default:
		return strconv.Itoa((s+59)/60) + " minutes"
	}
}

// logout ends the session of the cookie, if any, and clears the cookie.
func (h *handler) logout(w http.ResponseWriter, r *http.Request) {
	if h.noLogins(w, r) {
		return
	}
	s := sessionFrom(r)
	if ck, err := r.Cookie(CookieSession); err == nil && ck.Value != "" {
		if err := h.opts.Access.Logout(r.Context(), ck.Value); err != nil {
			h.fail(w, r, http.StatusInternalServerError, h.plain(r, err))
			return
		}
		if s.ok {
			actor, onBehalf := s.caller.ActorAndOnBehalf()
			h.record(w, r, access.AuditEntry{Actor: actor, OnBehalfOf: onBehalf, Via: s.caller.Via, Action: "logout", Status: http.StatusSeeOther})
		}
	}
	h.clearSession(w, r)
	h.flash(w, r, "ok", "You are logged out.")
	http.Redirect(w, r, templates.RouteLogin, http.StatusSeeOther)
}

// setupPage shows the first-run form while the server has no user.
func (h *handler) setupPage(w http.ResponseWriter, r *http.Request) {
	if h.noLogins(w, r) {
		return
	}
	if h.opts.Access.SetupToken() == "" {
		http.Redirect(w, r, templates.RouteLogin, http.StatusSeeOther)
		return
	}
	h.render(w, r, http.StatusOK, templates.Setup(templates.SetupPage{Layout: h.layout(w, r, "Set up", "")}))
}

// setup exchanges the set-up token for the first administrator, then logs
// them in.
func (h *handler) setup(w http.ResponseWriter, r *http.Request) {
	if h.noLogins(w, r) {
		return
	}
	acc := h.opts.Access
	user, password := strings.TrimSpace(r.PostFormValue("user")), r.PostFormValue("password")
	refuse := func(status int, msg string) {
		p := templates.SetupPage{Layout: h.layout(w, r, "Set up", ""), User: user}
		p.Flash = errFlash(msg)
		h.render(w, r, status, templates.Setup(p))
	}
	if acc.SetupToken() == "" {
		h.done(w, r, templates.RouteLogin, "error", "This server is set up already: log in, or ask an administrator for an account.")
		return
	}
	if user == "" || password == "" {
		refuse(http.StatusBadRequest, "Type a user name and a password.")
		return
	}
	if password != r.PostFormValue("repeat") {
		refuse(http.StatusBadRequest, "The two passwords differ; type the same password twice.")
		return
	}
	entry := access.AuditEntry{Action: "cockpit: first-run set-up", Resource: "user " + user}
	u, err := acc.FirstRun(r.Context(), r.PostFormValue("token"), user, password)
	if err != nil {
		entry.Status = adminStatus(err)
		h.record(w, r, entry)
		msg := h.plain(r, err)
		switch {
		case runtime.ErrorCode(err) == runtime.EFORBIDDEN:
			msg = "The set-up token is wrong or was used already. Copy it from the server's log (it is printed at start-up while the server has no user)."
		case errors.Is(err, auth.ErrBusy):
			msg = hashingBusy(w)
		}
		refuse(entry.Status, msg)
		return
	}
	entry.Actor, entry.Status = u.ID, http.StatusCreated
	h.record(w, r, entry)
	cookie, sess, err := acc.Login(r.Context(), string(u.ID), password, clientAddr(r))
	if err != nil {
		h.done(w, r, templates.RouteLogin, "error", "The administrator "+string(u.ID)+" was created, but the login failed: "+h.plain(r, err))
		return
	}
	h.record(w, r, access.AuditEntry{Actor: sess.User, Via: "session", Action: "login", Resource: "user " + string(u.ID), Status: http.StatusSeeOther})
	h.setSession(w, r, cookie, sess.ExpiresAt)
	h.done(w, r, templates.RouteAdminUsers, "ok", "You are the administrator "+string(u.ID)+". Next: create the people's users and give them roles.")
}

// loginOIDC starts a login at the identity provider: the login request is
// kept here, by its state, and the browser is bound to it by a cookie.
func (h *handler) loginOIDC(w http.ResponseWriter, r *http.Request) {
	if h.noLogins(w, r) {
		return
	}
	next := nextPath(r.PostFormValue("next"))
	if h.opts.Access.Mode() != access.ModeOIDC || h.opts.OIDC == nil {
		h.renderLogin(w, r, http.StatusNotFound, next, "", errFlash("Logins at an identity provider are not configured on this server."))
		return
	}
	req, err := h.opts.OIDC.StartLogin(nil)
	if err != nil {
		h.renderLogin(w, r, http.StatusInternalServerError, next, "", errFlash(h.plain(r, err)))
		return
	}
	h.pending.put(req, next, clientAddr(r))
	http.SetCookie(w, &http.Cookie{Name: CookieOIDC, Value: req.State, Path: templates.RouteOIDCCallback, MaxAge: int(oidcLoginTTL / time.Second),
		HttpOnly: true, SameSite: http.SameSiteLaxMode, Secure: h.secure(r)})
	http.Redirect(w, r, req.URL, http.StatusSeeOther)
}

// oidcCallback finishes a login at the identity provider: the state must
// be one this browser started (cookie) and not older than ten minutes, the
// code is exchanged with the PKCE verifier and the ID token verified.
func (h *handler) oidcCallback(w http.ResponseWriter, r *http.Request) {
	if h.noLogins(w, r) {
		return
	}
	http.SetCookie(w, &http.Cookie{Name: CookieOIDC, Value: "", Path: templates.RouteOIDCCallback, MaxAge: -1,
		HttpOnly: true, SameSite: http.SameSiteLaxMode, Secure: h.secure(r)})
	if h.opts.Access.Mode() != access.ModeOIDC || h.opts.OIDC == nil {
		h.renderLogin(w, r, http.StatusNotFound, "/", "", errFlash("Logins at an identity provider are not configured on this server."))
		return
	}
	q := r.URL.Query()
	state := q.Get("state")
	login, next, found := h.pending.take(state)
	entry := access.AuditEntry{Action: "login-failed", Via: "oidc", Outcome: "denied", Status: http.StatusUnauthorized}
	if e := q.Get("error"); e != "" {
		h.record(w, r, entry)
		msg := "The identity provider did not log you in (" + e + ")."
		if d := q.Get("error_description"); d != "" {
			msg = "The identity provider did not log you in: " + sentence(d)
		}
		h.renderLogin(w, r, http.StatusUnauthorized, next, "", errFlash(msg))
		return
	}
	ck, err := r.Cookie(CookieOIDC)
	if !found || err != nil || ck.Value != state {
		entry.Status = http.StatusBadRequest
		h.record(w, r, entry)
		h.renderLogin(w, r, http.StatusBadRequest, "/", "", errFlash("This login was not started in this browser, or took longer than ten minutes. Log in again."))
		return
	}
	id, err := h.opts.OIDC.FinishLogin(r.Context(), login, state, q.Get("code"))
	if err != nil {
		h.log.Info("cockpit oidc login refused", slog.Any("error", err))
		h.record(w, r, entry)
		h.renderLogin(w, r, http.StatusUnauthorized, next, "", errFlash("The identity provider's answer could not be verified, so you are not logged in. Try again."))
		return
	}
	entry.Resource = "user " + string(id.User)
	cookie, sess, err := h.opts.Access.OpenSession(r.Context(), id.User, id.Groups)
	if err != nil {
		entry.Outcome, entry.Status = "error", http.StatusInternalServerError
		h.record(w, r, entry)
		h.renderLogin(w, r, http.StatusInternalServerError, next, "", errFlash(h.plain(r, err)))
		return
	}
	entry.Action, entry.Actor, entry.Outcome, entry.Status = "login", id.User, "ok", http.StatusSeeOther
	h.record(w, r, entry)
	h.setSession(w, r, cookie, sess.ExpiresAt)
	h.done(w, r, next, "ok", "You are logged in as "+string(id.User)+".")
}

// pendingLogins keeps the OIDC logins in progress in memory, by state:
// each for oidcLoginTTL, at most maxOIDCLoginsPerAddr started from one
// client address and maxOIDCLogins in all (the oldest goes first). A
// login start needs no credential, so these bounds are what keeps a
// caller from filling memory with them; every operation costs at most
// maxOIDCLoginsPerAddr steps, however full the table is. The PKCE
// verifier and nonce never leave the server.
type pendingLogins struct {
	now func() time.Time
	mu  sync.Mutex
	m   map[string]*pendingLogin // guarded by mu; by state
	// order holds the logins oldest first (*pendingLogin); as every login
	// lives oidcLoginTTL, the first to expire is at the front.
	order  *list.List          // guarded by mu
	byAddr map[string][]string // guarded by mu; states per address, oldest first
}

type pendingLogin struct {
	state   string
	req     auth.LoginRequest
	next    string
	addr    string
	expires time.Time
	elem    *list.Element // in order
}

func newPendingLogins(now func() time.Time) *pendingLogins {
	return &pendingLogins{now: now, m: map[string]*pendingLogin{}, order: list.New(), byAddr: map[string][]string{}}
}

// put keeps a login started from client address addr until it is taken
// or expires, dropping the expired ones, the oldest of addr's when addr
// holds maxOIDCLoginsPerAddr, and the oldest of all when the table is
// full.
func (p *pendingLogins) put(req auth.LoginRequest, next, addr string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.now()
	for e := p.order.Front(); e != nil && !now.Before(e.Value.(*pendingLogin).expires); e = p.order.Front() {
		p.remove(e.Value.(*pendingLogin).state)
	}
	if states := p.byAddr[addr]; len(states) >= maxOIDCLoginsPerAddr {
		p.remove(states[0])
	}
	if len(p.m) >= maxOIDCLogins {
		p.remove(p.order.Front().Value.(*pendingLogin).state)
	}
	p.remove(req.State) // a state is random: only a replay repeats one
	l := &pendingLogin{state: req.State, req: req, next: next, addr: addr, expires: now.Add(oidcLoginTTL)}
	l.elem = p.order.PushBack(l)
	p.m[req.State] = l
	p.byAddr[addr] = append(p.byAddr[addr], req.State)
}

// remove drops the login of state, if kept. Callers hold mu.
func (p *pendingLogins) remove(state string) {
	l, ok := p.m[state]
	if !ok {
		return
	}
	delete(p.m, state)
	p.order.Remove(l.elem)
	states := slices.DeleteFunc(p.byAddr[l.addr], func(s string) bool { return s == state })
	if len(states) == 0 {
		delete(p.byAddr, l.addr)
	} else {
		p.byAddr[l.addr] = states
	}
}

// take removes and returns the live login of state; found is false for an
// unknown or expired one (next is then "/").
func (p *pendingLogins) take(state string) (req auth.LoginRequest, next string, found bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	l, ok := p.m[state]
	p.remove(state)
	if !ok || !p.now().Before(l.expires) {
		return auth.LoginRequest{}, "/", false
	}
	return l.req, l.next, true
}

// addrLen returns how many logins addr has started and are kept, for tests.
func (p *pendingLogins) addrLen(addr string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.byAddr[addr])
}

// len returns how many logins are kept, for tests.
func (p *pendingLogins) len() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.m)
}
