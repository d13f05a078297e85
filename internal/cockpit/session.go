package cockpit

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/gobpm/gobpm/internal/runtime"
	"github.com/gobpm/gobpm/web/templates"
)

// Cookies the cockpit sets. All are HttpOnly, and Secure on a request
// that came over TLS or with Options.SecureCookies. All but the session
// and the OIDC login cookie are SameSite=Strict.
const (
	// CookieSession holds the session id of a logged-in person (--auth
	// builtin or oidc). It is the JSON API's cookie (api.SessionCookie,
	// SameSite=Lax, set with the same attributes), so the API knows the
	// person too.
	CookieSession = "gobpm_session"
	// CookieOIDC binds an OIDC login in progress to the browser that
	// started it (SameSite=Lax: it must come back from the provider).
	CookieOIDC = "gobpm_oidc"
	// CookieCSRF holds the per-browser token every state-changing form
	// repeats in its CSRFField (double submit).
	CookieCSRF = "gobpm_csrf"
	// CookieActor holds the acting user and groups (loopback mode).
	CookieActor = "gobpm_actor"
	// CookieFlash carries the outcome of an action to the page it redirects to.
	CookieFlash = "gobpm_flash"
	// CSRFField is the form field carrying the token.
	CSRFField = "csrf"
)

// maxNameLen caps user and group names taken from the identity form.
const maxNameLen = 100

func (h *handler) cookie(r *http.Request, name, value string, maxAge int) *http.Cookie {
	return &http.Cookie{Name: name, Value: value, Path: "/", MaxAge: maxAge, HttpOnly: true,
		SameSite: http.SameSiteStrictMode, Secure: h.secure(r)}
}

// secure reports whether cookies set in answer to r are Secure: r came
// over TLS, or the cockpit is told it sits behind TLS.
func (h *handler) secure(r *http.Request) bool {
	return h.opts.SecureCookies || r.TLS != nil
}

// setSession sets the session cookie as the JSON API's login does:
// HttpOnly, SameSite=Lax, ending with the session.
func (h *handler) setSession(w http.ResponseWriter, r *http.Request, value string, expires time.Time) {
	http.SetCookie(w, &http.Cookie{Name: CookieSession, Value: value, Path: "/", Expires: expires,
		HttpOnly: true, SameSite: http.SameSiteLaxMode, Secure: h.secure(r)})
}

// clearSession removes the session cookie.
func (h *handler) clearSession(w http.ResponseWriter, r *http.Request) {
	http.SetCookie(w, &http.Cookie{Name: CookieSession, Value: "", Path: "/", MaxAge: -1,
		HttpOnly: true, SameSite: http.SameSiteLaxMode, Secure: h.secure(r)})
}

// csrfToken returns the browser's token, minting and setting one when the
// request carries none.
func (h *handler) csrfToken(w http.ResponseWriter, r *http.Request) string {
	if c, err := r.Cookie(CookieCSRF); err == nil && len(c.Value) >= 32 {
		return c.Value
	}
	b := make([]byte, 32)
	_, _ = rand.Read(b) // crypto/rand never fails on supported platforms
	tok := base64.RawURLEncoding.EncodeToString(b)
	http.SetCookie(w, h.cookie(r, CookieCSRF, tok, 0))
	// Later reads in this request see the new token.
	r.AddCookie(&http.Cookie{Name: CookieCSRF, Value: tok})
	return tok
}

// cookieActor returns the acting identity from its cookie (zero when
// unset): who acts without logins.
func cookieActor(r *http.Request) runtime.Actor {
	c, err := r.Cookie(CookieActor)
	if err != nil {
		return runtime.Actor{}
	}
	q, err := url.ParseQuery(c.Value)
	if err != nil {
		return runtime.Actor{}
	}
	return runtime.Actor{User: q.Get("u"), Groups: splitGroups(q.Get("g"))}
}

// splitGroups splits a comma-separated group list, as the X-Gobpm-Groups
// header of the JSON API does: trimmed, empty entries dropped.
func splitGroups(s string) []string {
	var out []string
	for g := range strings.SplitSeq(s, ",") {
		if g = strings.TrimSpace(g); g != "" && len(g) <= maxNameLen {
			out = append(out, g)
		}
	}
	return out
}

func (h *handler) setActor(w http.ResponseWriter, r *http.Request, a runtime.Actor) {
	if a.User == "" {
		http.SetCookie(w, h.cookie(r, CookieActor, "", -1))
		return
	}
	q := url.Values{"u": {a.User}, "g": {strings.Join(a.Groups, ",")}}
	http.SetCookie(w, h.cookie(r, CookieActor, q.Encode(), 0))
}

// flash leaves a message for the next page view.
func (h *handler) flash(w http.ResponseWriter, r *http.Request, kind, msg string) {
	b, _ := json.Marshal(templates.Flash{Kind: kind, Message: msg})
	http.SetCookie(w, h.cookie(r, CookieFlash, base64.RawURLEncoding.EncodeToString(b), 60))
}

// takeFlash reads and clears the pending message; live polls leave it.
func (h *handler) takeFlash(w http.ResponseWriter, r *http.Request) templates.Flash {
	c, err := r.Cookie(CookieFlash)
	if err != nil || isLivePoll(r) {
		return templates.Flash{}
	}
	http.SetCookie(w, h.cookie(r, CookieFlash, "", -1))
	var f templates.Flash
	b, err := base64.RawURLEncoding.DecodeString(c.Value)
	if err != nil || json.Unmarshal(b, &f) != nil || (f.Kind != "ok" && f.Kind != "error") {
		return templates.Flash{}
	}
	return f
}

// localPath keeps a redirect target on this site: a path starting with one
// slash and holding no backslash, else fallback. Browsers read a backslash
// as a slash, and http.Redirect cleans the path, so "/./\host" would
// leave as "/\host", i.e. "//host"; the cockpit's own URLs never hold a
// raw backslash (RequestURI escapes it).
func localPath(p, fallback string) string {
	if !strings.HasPrefix(p, "/") || strings.HasPrefix(p, "//") || strings.Contains(p, "\\") {
		return fallback
	}
	if u, err := url.Parse(p); err != nil || u.Host != "" || u.Scheme != "" {
		return fallback
	}
	return p
}
