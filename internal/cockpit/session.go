package cockpit

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"

	"github.com/gobpm/gobpm/internal/runtime"
	"github.com/gobpm/gobpm/web/templates"
)

// Cookies the cockpit sets. All are HttpOnly and SameSite=Strict.
const (
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

func (h *handler) cookie(name, value string, maxAge int) *http.Cookie {
	return &http.Cookie{Name: name, Value: value, Path: "/", MaxAge: maxAge, HttpOnly: true,
		SameSite: http.SameSiteStrictMode, Secure: h.opts.SecureCookies}
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
	http.SetCookie(w, h.cookie(CookieCSRF, tok, 0))
	// Later reads in this request see the new token.
	r.AddCookie(&http.Cookie{Name: CookieCSRF, Value: tok})
	return tok
}

// checkCSRF is the second line of defence behind http.CrossOriginProtection
// (which rejects cross-site browser requests by Sec-Fetch-Site and Origin):
// the form must repeat the token of the browser's cookie, which another site
// can neither read nor set.
func checkCSRF(r *http.Request) bool {
	c, err := r.Cookie(CookieCSRF)
	if err != nil || c.Value == "" {
		return false
	}
	got := r.PostFormValue(CSRFField)
	if got == "" {
		// multipart forms (the deployment upload) are parsed by FormValue.
		got = r.FormValue(CSRFField)
	}
	return subtle.ConstantTimeCompare([]byte(got), []byte(c.Value)) == 1
}

// actor returns the acting identity from its cookie (zero when unset).
func actor(r *http.Request) runtime.Actor {
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

func (h *handler) setActor(w http.ResponseWriter, a runtime.Actor) {
	if a.User == "" {
		http.SetCookie(w, h.cookie(CookieActor, "", -1))
		return
	}
	q := url.Values{"u": {a.User}, "g": {strings.Join(a.Groups, ",")}}
	http.SetCookie(w, h.cookie(CookieActor, q.Encode(), 0))
}

// flash leaves a message for the next page view.
func (h *handler) flash(w http.ResponseWriter, kind, msg string) {
	b, _ := json.Marshal(templates.Flash{Kind: kind, Message: msg})
	http.SetCookie(w, h.cookie(CookieFlash, base64.RawURLEncoding.EncodeToString(b), 60))
}

// takeFlash reads and clears the pending message; live polls leave it.
func (h *handler) takeFlash(w http.ResponseWriter, r *http.Request) templates.Flash {
	c, err := r.Cookie(CookieFlash)
	if err != nil || isLivePoll(r) {
		return templates.Flash{}
	}
	http.SetCookie(w, h.cookie(CookieFlash, "", -1))
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
