package api

import (
	"net/http"

	"github.com/gobpm/gobpm/internal/telemetry"
)

// traceRequests gives each request a server span (telemetry.StartRequest:
// a child of the caller's traceparent), named by method and route pattern
// once the router matched one. It runs inside requestLogger, whose
// recorder and log state it reads. Without a tracer it is no middleware
// at all.
func traceRequests(t *telemetry.Tracer) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		if t == nil {
			return next
		}
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			ctx, span := t.StartRequest(r)
			r = r.WithContext(ctx)
			next.ServeHTTP(w, r)
			status := http.StatusOK
			if rw, ok := w.(*recorder); ok && rw.status != 0 {
				status = rw.status
			}
			route := ""
			if st := logStateFrom(ctx); st != nil {
				if route = routeLabel(r, st); route == routeUnmatched {
					route = ""
				}
			}
			telemetry.EndRequest(span, r.Method, route, status)
		})
	}
}
