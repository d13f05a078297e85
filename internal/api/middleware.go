package api

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"github.com/gobpm/gobpm/internal/access"
	"log/slog"
	"net/http"
	"runtime/debug"
	"time"
)

// Log attribute keys. Messages are static; data goes in these attributes.
const (
	keyRequestID = "request_id"
	keyMethod    = "method"
	keyPath      = "path"
	keyRoute     = "route"
	keyStatus    = "status"
	keyDuration  = "duration"
	keyBytes     = "bytes"
	keyError     = "error"
	keyStack     = "stack"
)

// HeaderRequestID carries the request id in requests and responses.
const HeaderRequestID = "X-Request-Id"

type ctxKey int

const (
	ctxRequestID ctxKey = iota
	ctxLogState
)

// RequestID returns the id the request-id middleware gave the request, or "".
func RequestID(ctx context.Context) string {
	id, _ := ctx.Value(ctxRequestID).(string)
	return id
}

// requestID takes a well-formed incoming X-Request-Id (so ids can be traced
// across a proxy) or mints a random one, and echoes it in the response.
func requestID(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := r.Header.Get(HeaderRequestID)
		if !validRequestID(id) {
			id = newRequestID()
		}
		w.Header().Set(HeaderRequestID, id)
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), ctxRequestID, id)))
	})
}

// validRequestID accepts 1–64 characters of [A-Za-z0-9._-], so an id never
// smuggles anything odd into logs or headers.
func validRequestID(id string) bool {
	if id == "" || len(id) > 64 {
		return false
	}
	for _, c := range []byte(id) {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '.', c == '_', c == '-':
		default:
			return false
		}
	}
	return true
}

func newRequestID() string {
	var b [12]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	return hex.EncodeToString(b[:])
}

// logState lets handlers attach an internal error (and the recoverer a stack)
// to the request's single log line, so each error is logged exactly once.
type logState struct {
	err   error
	stack []byte
	// unmatched marks a request the router answered 404 or 405 itself (a
	// sub-router's mount pattern is no route), for the metrics' route label.
	unmatched bool
	// caller is who the request was authenticated as.
	caller access.Caller
	// resource, when a handler sets it (noteResource), names what the
	// request acted on for the audit trail (e.g. the instance it started).
	resource string
	// skipAudit marks a request its handler recorded itself (logins).
	skipAudit bool
}

func logStateFrom(ctx context.Context) *logState {
	st, _ := ctx.Value(ctxLogState).(*logState)
	return st
}

// recorder remembers the status and size of a response.
type recorder struct {
	http.ResponseWriter
	status int
	bytes  int64
}

func (rw *recorder) WriteHeader(code int) {
	if rw.status == 0 {
		rw.status = code
	}
	rw.ResponseWriter.WriteHeader(code)
}

func (rw *recorder) Write(b []byte) (int, error) {
	if rw.status == 0 {
		rw.status = http.StatusOK
	}
	n, err := rw.ResponseWriter.Write(b)
	rw.bytes += int64(n)
	return n, err
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (rw *recorder) Unwrap() http.ResponseWriter { return rw.ResponseWriter }

// requestLogger writes one line per request, at a level chosen by status:
// error for 5xx (with the internal error and stack, if any), warn for 4xx,
// info otherwise, debug for health checks and metric scrapes. It also counts
// the request, by route pattern, into m.
func requestLogger(logger *slog.Logger, m *httpMetrics) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			start := time.Now()
			st := &logState{}
			rw := &recorder{ResponseWriter: w}
			next.ServeHTTP(rw, r.WithContext(context.WithValue(r.Context(), ctxLogState, st)))

			elapsed := time.Since(start)
			status := rw.status
			if status == 0 {
				status = http.StatusOK
			}
			route := routeLabel(r, st)
			m.observe(route, r.Method, status, elapsed)

			level := slog.LevelInfo
			switch {
			case status >= 500:
				level = slog.LevelError
			case status >= 400:
				level = slog.LevelWarn
			case r.URL.Path == "/healthz", r.URL.Path == "/metrics":
				level = slog.LevelDebug
			}
			if !logger.Enabled(r.Context(), level) {
				return
			}
			attrs := []slog.Attr{
				slog.String(keyRequestID, RequestID(r.Context())),
				slog.String(keyMethod, r.Method),
				slog.String(keyPath, r.URL.Path),
				slog.Int(keyStatus, status),
				slog.Duration(keyDuration, elapsed),
				slog.Int64(keyBytes, rw.bytes),
			}
			if route != routeUnmatched {
				attrs = append(attrs, slog.String(keyRoute, route))
			}
			if st.err != nil {
				attrs = append(attrs, slog.Any(keyError, st.err))
			}
			if st.stack != nil {
				attrs = append(attrs, slog.String(keyStack, string(st.stack)))
			}
			logger.LogAttrs(r.Context(), level, "http request", attrs...)
		})
	}
}

// recoverer turns a panicking handler into a 500 problem; the panic value and
// stack go to the request's log line. http.ErrAbortHandler is re-raised: it is
// the standard way to abort a response on purpose.
func (s *server) recoverer(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			rec := recover()
			if rec == nil {
				return
			}
			if rec == http.ErrAbortHandler {
				panic(rec)
			}
			err := fmt.Errorf("panic: %v", rec)
			if st := logStateFrom(r.Context()); st != nil {
				st.stack = debug.Stack()
			}
			if rw, ok := w.(*recorder); ok && rw.status != 0 {
				// The response has started; all we can do is log it.
				if st := logStateFrom(r.Context()); st != nil {
					st.err = err
				}
				return
			}
			s.writeError(w, r, err)
		}()
		next.ServeHTTP(w, r)
	})
}
