package api

import (
	"net/http"
)

// correlateRequest is the body of POST /api/v1/messages: {name,
// correlationKey?, variables?, requestId?}.
type correlateRequest struct {
	bodyMembers
	Name           string
	CorrelationKey string
	Variables      map[string]any
	// RequestID is the body's idempotency key (idempotent).
	RequestID string
}

// Validate decodes and checks name, correlationKey, variables and
// requestId, in that order.
func (q *correlateRequest) Validate() error {
	var err error
	if q.Name, err = requiredStringField(q.members, "name"); err != nil {
		return err
	}
	if q.CorrelationKey, err = stringField(q.members, "correlationKey"); err != nil {
		return err
	}
	if q.Variables, err = objectField(q.members, "variables"); err != nil {
		return err
	}
	q.RequestID, err = stringField(q.members, "requestId")
	return err
}

// correlateMessage handles POST /api/v1/messages (correlateRequest). The
// message goes to one waiting subscription (oldest first) or starts an
// instance through a message start event; nothing waiting → 404.
func (s *server) correlateMessage(w http.ResponseWriter, r *http.Request) error {
	var q correlateRequest
	if err := s.decodeBody(w, r, &q); err != nil {
		return err
	}
	ctx, err := idempotent(r, q.RequestID)
	if err != nil {
		return err
	}
	n, err := s.svc.CorrelateMessage(ctx, q.Name, q.CorrelationKey, q.Variables)
	if err != nil {
		return err
	}
	s.writeJSON(w, r, http.StatusOK, Correlated{Correlated: n})
	return nil
}

// signalRequest is the body of POST /api/v1/signals: {name, variables?,
// requestId?}.
type signalRequest struct {
	bodyMembers
	Name      string
	Variables map[string]any
	// RequestID is the body's idempotency key (idempotent).
	RequestID string
}

// Validate decodes and checks name, variables and requestId, in that
// order.
func (q *signalRequest) Validate() error {
	var err error
	if q.Name, err = requiredStringField(q.members, "name"); err != nil {
		return err
	}
	if q.Variables, err = objectField(q.members, "variables"); err != nil {
		return err
	}
	q.RequestID, err = stringField(q.members, "requestId")
	return err
}

// broadcastSignal handles POST /api/v1/signals (signalRequest). Every
// waiting catch and signal start event of that name is triggered; none is
// not an error.
func (s *server) broadcastSignal(w http.ResponseWriter, r *http.Request) error {
	var q signalRequest
	if err := s.decodeBody(w, r, &q); err != nil {
		return err
	}
	ctx, err := idempotent(r, q.RequestID)
	if err != nil {
		return err
	}
	n, err := s.svc.BroadcastSignal(ctx, q.Name, q.Variables)
	if err != nil {
		return err
	}
	s.writeJSON(w, r, http.StatusOK, Triggered{Triggered: n})
	return nil
}
