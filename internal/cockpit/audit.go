package cockpit

import (
	"context"
	"net"
	"net/http"

	"github.com/gobpm/gobpm/internal/access"
)

// HeaderRequestID is the response header the JSON API's request-id
// middleware sets in front of the cockpit (api.HeaderRequestID); audit
// entries carry it, so an act can be found in the request log.
const HeaderRequestID = "X-Request-Id"

// auditNote is what a handler tells the audit trail beyond the answer's
// status: an action answered with a redirect and an error message failed
// all the same.
type auditNote struct {
	// status is the status the act stands for ("403" for a refusal told
	// in a flash message); 0: the answer's.
	status int
	// resource overrides the route's resource ("instance …" of a start).
	resource string
}

type auditKey struct{}

func noteFrom(r *http.Request) *auditNote {
	n, _ := r.Context().Value(auditKey{}).(*auditNote)
	return n
}

// noteStatus records, for the audit trail, the status an act stands for;
// the first one noted wins (the most precise: actFailed notes before done).
func noteStatus(r *http.Request, status int) {
	if n := noteFrom(r); n != nil && n.status == 0 {
		n.status = status
	}
}

// noteResource names, for the audit trail, what the act was on when the
// route does not say it.
func noteResource(r *http.Request, resource string) {
	if n := noteFrom(r); n != nil {
		n.resource = resource
	}
}

// audited records every request of a state-changing route in the audit
// trail once it is answered: who (the logged-in person; without logins the
// acting identity, via "none"), the action, the resource, the outcome and
// status, the request id and the client's address. Refusals are recorded
// too: a forged form, a missing session, a missing permission.
func (h *handler) audited(action string, resource func(*http.Request) string, next http.Handler) http.Handler {
	if h.opts.Access == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requestID := w.Header().Get(HeaderRequestID)
		note := &auditNote{}
		rec := &statusRecorder{ResponseWriter: w}
		r = r.WithContext(context.WithValue(r.Context(), auditKey{}, note))
		next.ServeHTTP(rec, r)
		status := note.status
		if status == 0 {
			status = rec.status
		}
		if status == 0 {
			status = http.StatusOK
		}
		res := note.resource
		if res == "" && resource != nil {
			res = resource(r)
		}
		c := h.caller(r)
		actor, onBehalf := c.ActorAndOnBehalf()
		h.opts.Access.Record(access.AuditEntry{Actor: actor, OnBehalfOf: onBehalf, Via: c.Via, Action: action, Resource: res,
			Outcome: outcomeOf(status), Status: status, RequestID: requestID, Addr: clientAddr(r)})
	})
}

// record writes an audit entry of the login routes, which record their
// own (the person is not yet, or no longer, the caller).
func (h *handler) record(w http.ResponseWriter, r *http.Request, e access.AuditEntry) {
	if h.opts.Access == nil {
		return
	}
	e.RequestID, e.Addr = w.Header().Get(HeaderRequestID), clientAddr(r)
	if e.Outcome == "" {
		e.Outcome = outcomeOf(e.Status)
	}
	h.opts.Access.Record(e)
}

// outcomeOf names the outcome of a status, as the JSON API's audit does.
func outcomeOf(status int) string {
	switch {
	case status < 400:
		return "ok"
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		return "denied"
	case status >= 500:
		return "error"
	}
	return "failed"
}

// clientAddr is the client's address: the connection's peer (gobpm does
// not trust forwarding headers).
func clientAddr(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// statusRecorder remembers the status of an answer.
type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (s *statusRecorder) WriteHeader(code int) {
	if s.status == 0 {
		s.status = code
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusRecorder) Write(b []byte) (int, error) {
	if s.status == 0 {
		s.status = http.StatusOK
	}
	return s.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the connection.
func (s *statusRecorder) Unwrap() http.ResponseWriter { return s.ResponseWriter }
