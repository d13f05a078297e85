// Package httpsec holds the HTTP defences the API and the cockpit share,
// in one place: the security headers every answer carries (and HSTS on a
// server reached over TLS), and the per-caller cap on requests held open
// (long polls, event streams).
package httpsec

import "net/http"

// ContentSecurityPolicy is the policy of every answer: scripts, styles,
// images and requests from the server's own origin only (styles may be
// inline: the diagram viewer sets them), no plugins, no framing by other
// sites, no <base> rewriting, forms posted only to the server itself.
const ContentSecurityPolicy = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; " +
	"img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

// Headers sets the security headers on every answer before next runs; a
// handler may still tighten them (a served XML document is sandboxed).
func Headers(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", ContentSecurityPolicy)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "same-origin")
		h.Set("X-Frame-Options", "DENY")
		next.ServeHTTP(w, r)
	})
}
