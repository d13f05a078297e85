package cockpit

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/gobpm/gobpm/internal/access"
	"github.com/gobpm/gobpm/internal/auth"
	"github.com/gobpm/gobpm/internal/runtime"
	"github.com/gobpm/gobpm/web/templates"
)

// session is who the request's session cookie authenticates.
type session struct {
	caller access.Caller
	// ok is true when the cookie authenticated somebody.
	ok bool
	// presented is true when the request carried a session cookie.
	presented bool
	// err is a failure to check the cookie other than it authenticating
	// nobody (the store failing); pages needing a login answer 500.
	err error
}

type sessionKey struct{}

// authOn reports whether people log in (--auth builtin or oidc). Without,
// the acting-as box names who acts and everybody may do everything.
func (h *handler) authOn() bool {
	return h.opts.Access != nil && h.opts.Access.Mode() != access.ModeNone
}

// identify finds who the session cookie authenticates (without logins,
// who the acting-as box names), for every page and action, and names them
// to the runtime as the acting user; it refuses nothing (requireLogin
// does).
func (h *handler) identify(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/static/") {
			next.ServeHTTP(w, r)
			return
		}
		if !h.authOn() {
			// The acting-as box's person, as the API takes X-Gobpm-User.
			next.ServeHTTP(w, r.WithContext(runtime.WithActingUser(r.Context(), cookieActor(r).User)))
			return
		}
		s := &session{}
		if ck, err := r.Cookie(CookieSession); err == nil && ck.Value != "" {
			s.presented = true
			c, err := h.opts.Access.Session(r.Context(), ck.Value)
			switch {
			case err == nil:
				s.caller, s.ok = c, c.Authenticated()
			case errors.Is(err, access.ErrUnauthenticated):
				// Expired, ended, or the user was disabled: log in again.
			default:
				s.err = err
			}
		}
		ctx := context.WithValue(r.Context(), sessionKey{}, s)
		if s.ok {
			// Cancels, retries, variable changes and migrations record who
			// asked, as they do through the API.
			ctx = runtime.WithActingUser(ctx, string(s.caller.User))
		}
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}

func sessionFrom(r *http.Request) *session {
	if s, ok := r.Context().Value(sessionKey{}).(*session); ok {
		return s
	}
	return &session{}
}

// caller is who the request comes from: the logged-in person, or without
// logins the acting identity with every right (Via "none").
func (h *handler) caller(r *http.Request) access.Caller {
	if !h.authOn() {
		a := cookieActor(r)
		groups := make([]auth.GroupID, len(a.Groups))
		for i, g := range a.Groups {
			groups[i] = auth.GroupID(g)
		}
		return access.Caller{Principal: auth.Principal{User: auth.UserID(a.User), Groups: groups}, Via: "none"}
	}
	return sessionFrom(r).caller
}

// actor is who acts on tasks and ad-hoc regions: the logged-in person with
// their groups, or without logins the acting-as box's identity.
func (h *handler) actor(r *http.Request) runtime.Actor {
	if !h.authOn() {
		return cookieActor(r)
	}
	c := sessionFrom(r).caller
	a := runtime.Actor{User: string(c.User)}
	for _, g := range c.Groups {
		a.Groups = append(a.Groups, string(g))
	}
	return a
}

// may reports whether the person may do perm on the resource of kind with
// key (always, without logins).
func (h *handler) may(r *http.Request, perm auth.Permission, kind auth.ResourceKind, key string) bool {
	return !h.authOn() || h.caller(r).Allowed(perm, kind, key)
}

// mayAny reports whether the person may do perm on some resource of kind.
func (h *handler) mayAny(r *http.Request, perm auth.Permission, kind auth.ResourceKind) bool {
	return !h.authOn() || h.caller(r).AllowedAny(perm, kind)
}

// readsAll reports whether the person may read every process, so lists
// need no filtering.
func (h *handler) readsAll(r *http.Request) bool {
	if !h.authOn() {
		return true
	}
	c := h.caller(r)
	return c.Unrestricted() || c.Filter(auth.PermRead, auth.KindProcess).All()
}

// readable returns whether the person may read the process with a key,
// for filtering a list in memory (as the JSON API's lists do).
func (h *handler) readable(r *http.Request) func(key string) bool {
	if h.readsAll(r) {
		return func(string) bool { return true }
	}
	return h.caller(r).Filter(auth.PermRead, auth.KindProcess).Match
}

// readPatterns returns the person's readable process keys as pattern
// clauses for runtime.InstanceFilter.ProcessKeyPatterns: nil when they
// read everything, one empty clause when nothing (as the JSON API's
// instance list does).
func (h *handler) readPatterns(r *http.Request) [][]string {
	if h.readsAll(r) {
		return nil
	}
	return h.permPatterns(r, auth.PermRead)
}

// permPatterns is readPatterns for any permission on processes (a batch's
// narrowing to what the person may operate on).
func (h *handler) permPatterns(r *http.Request, perm auth.Permission) [][]string {
	if !h.authOn() || h.caller(r).Unrestricted() {
		return nil
	}
	f := h.caller(r).Filter(perm, auth.KindProcess)
	if f.All() {
		return nil
	}
	if f.None() {
		return [][]string{{}}
	}
	var out [][]string
	for _, clause := range f.Clauses() {
		ps := make([]string, len(clause))
		for i, p := range clause {
			ps[i] = p.String()
		}
		out = append(out, ps)
	}
	return out
}

// loginTarget is where a person who is not logged in goes: the first-run
// page while the server has no user, else the login page, coming back to
// r's page afterwards (pages only; an action comes back to the dashboard).
func (h *handler) loginTarget(r *http.Request) string {
	if !h.authOn() {
		return templates.RouteLogin
	}
	if h.opts.Access.SetupToken() != "" {
		return templates.RouteSetup
	}
	if r.Method != http.MethodGet {
		return templates.RouteLogin
	}
	return templates.LoginURL(nextPath(r.URL.RequestURI()))
}

// requireLogin lets only logged-in people through (with logins): a page
// without a session redirects to the login page, which returns to it; a
// live region's poll sends htmx there (HX-Redirect); an action answers
// 401 and changes nothing.
func (h *handler) requireLogin(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !h.authOn() {
			next.ServeHTTP(w, r)
			return
		}
		s := sessionFrom(r)
		if s.err != nil {
			h.log.Error("cockpit session check failed", slog.String("path", r.URL.Path), slog.Any("error", s.err))
			http.Error(w, "The session could not be checked; the details are in the server log.", http.StatusInternalServerError)
			return
		}
		if s.ok {
			next.ServeHTTP(w, r)
			return
		}
		if s.presented {
			h.clearSession(w, r)
		}
		to := h.loginTarget(r)
		switch {
		case r.Method != http.MethodGet && r.Method != http.MethodHead:
			h.fail(w, r, http.StatusUnauthorized, "You are not logged in (or your session has ended), so this was refused; nothing changed. Log in and try again.")
		case r.Header.Get(HeaderHXRequest) == "true":
			w.Header().Set(HeaderHXRedirect, to)
			w.WriteHeader(http.StatusUnauthorized)
		default:
			http.Redirect(w, r, to, http.StatusSeeOther)
		}
	})
}

// authorize applies a route's rule to the logged-in person: a page or
// action they may not use answers 403 with the reason, and nothing
// changes. The admin pages exist only with logins (404 without).
func (h *handler) authorize(ru access.Rule, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !h.authOn() {
			if ru.Kind == auth.KindSystem {
				h.fail(w, r, http.StatusNotFound, "There is no page at "+r.URL.Path+": administration needs logins (--auth builtin or oidc).")
				return
			}
			next.ServeHTTP(w, r)
			return
		}
		c := h.caller(r)
		if ru.Perm == "" || c.Unrestricted() {
			next.ServeHTTP(w, r)
			return
		}
		var key string
		var err error
		ok := false
		switch ru.Key {
		case access.KeyHandler:
			ok = ru.AllowsSome(c)
		case access.KeyParam:
			key = chi.URLParam(r, "key")
			ok = c.Allowed(ru.Perm, ru.Kind, key)
		case access.KeyInstance:
			key, err = h.svc.InstanceProcessKey(r.Context(), runtime.InstanceID(chi.URLParam(r, "id")))
			ok = err == nil && c.Allowed(ru.Perm, ru.Kind, key)
		case access.KeyIncident:
			key, err = h.svc.IncidentProcessKey(r.Context(), chi.URLParam(r, "id"))
			ok = err == nil && c.Allowed(ru.Perm, ru.Kind, key)
		default:
			ok = c.Allowed(ru.Perm, ru.Kind, "*")
		}
		if err != nil {
			noteStatus(r, statusOf(err))
			h.failErr(w, r, err)
			return
		}
		if !ok {
			h.fail(w, r, http.StatusForbidden, refusal(c, ru.Perm, ru.Kind, key))
			return
		}
		next.ServeHTTP(w, r)
	})
}

// verbs says in words what each permission lets a person do.
var verbs = map[auth.Permission]string{
	auth.PermDeploy:  "deploy",
	auth.PermRead:    "see",
	auth.PermStart:   "start instances of",
	auth.PermOperate: "operate (cancel, retry, set variables) instances of",
	auth.PermDelete:  "delete",
	auth.PermWork:    "work on jobs of",
	auth.PermAdmin:   "administer users, groups, grants and tokens",
}

// refusal says why a route was refused, in plain words.
func refusal(c access.Caller, perm auth.Permission, kind auth.ResourceKind, key string) string {
	verb := verbs[perm]
	if verb == "" {
		verb = string(perm)
	}
	var what string
	switch {
	case kind == auth.KindSystem:
	case key == "":
		what = " any " + string(kind)
	default:
		what = fmt.Sprintf(" %s “%s”", kind, key)
	}
	return fmt.Sprintf("Not allowed: %s may not %s%s, so this was refused and nothing changed. Ask an administrator for the right.", c.User, verb, what)
}
