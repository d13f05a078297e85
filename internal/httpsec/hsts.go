package httpsec

import "net/http"

// StrictTransportSecurity is the HSTS policy of a server reached over
// TLS: browsers use https for it for a year, never plain http.
const StrictTransportSecurity = "max-age=31536000"

// StrictTransport sets Strict-Transport-Security on every answer before
// next runs. Use it only on a server whose users reach it over TLS (it
// serves TLS itself, or its public URL is https behind a TLS proxy): a
// browser that saw the header refuses plain http to the host for a year.
func StrictTransport(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Strict-Transport-Security", StrictTransportSecurity)
		next.ServeHTTP(w, r)
	})
}
