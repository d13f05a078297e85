package api

import (
	"net/http"
	"time"

	"github.com/gobpm/gobpm/internal/runtime"
)

// correlateRequest is the body of POST /api/v1/messages: {name,
// correlationKey?, variables?, requestId?, timeToLive?, messageId?}.
type correlateRequest struct {
	bodyMembers
	Name           string
	CorrelationKey string
	Variables      map[string]any
	// RequestID is the body's idempotency key (idempotent).
	RequestID string
	// TimeToLive buffers the message (milliseconds; 0: not buffered);
	// MessageID makes a buffered message unique (runtime/msgbuffer.go).
	TimeToLive time.Duration
	MessageID  string
}

// Validate decodes and checks name, correlationKey, variables, requestId,
// timeToLive and messageId, in that order.
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
	if q.RequestID, err = stringField(q.members, "requestId"); err != nil {
		return err
	}
	ms, _, err := intField(q.members, "timeToLive", 0, runtime.MaxMessageTTL.Milliseconds())
	if err != nil {
		return err
	}
	q.TimeToLive = time.Duration(ms) * time.Millisecond
	q.MessageID, err = stringField(q.members, "messageId")
	return err
}

// correlateMessage handles POST /api/v1/messages (correlateRequest). The
// message goes to one waiting subscription (oldest first) or starts an
// instance through a message start event; nothing waiting → 404. With a
// timeToLive the message is also buffered (publishMessage).
func (s *server) correlateMessage(w http.ResponseWriter, r *http.Request) error {
	var q correlateRequest
	if err := s.decodeBody(w, r, &q); err != nil {
		return err
	}
	ctx, err := idempotent(r, q.RequestID)
	if err != nil {
		return err
	}
	if q.TimeToLive > 0 {
		return s.publishMessage(w, r.WithContext(ctx), &q)
	}
	n, err := s.svc.CorrelateMessage(ctx, q.Name, q.CorrelationKey, q.Variables)
	if err != nil {
		return err
	}
	s.writeJSON(w, r, http.StatusOK, Correlated{Correlated: n})
	return nil
}

// publishMessage answers a message with a time to live
// (runtime.PublishMessage): 200 when process keys with a waiting
// subscription, or message starts, took it at publication, 202 when it is
// only buffered; both say it is buffered until expiresAt under
// messageKey. A live message with the same name, correlation key and
// messageId → 409; a name, correlation key or messageId longer than the
// runtime's bounds (runtime.MaxMessageNameLen, …) → 400.
func (s *server) publishMessage(w http.ResponseWriter, r *http.Request, q *correlateRequest) error {
	res, err := s.svc.PublishMessage(r.Context(), runtime.Publication{Name: q.Name, CorrelationKey: q.CorrelationKey,
		Variables: q.Variables, TimeToLive: q.TimeToLive, MessageID: q.MessageID})
	if err != nil {
		return err
	}
	status := http.StatusOK
	if res.Correlated == 0 {
		status = http.StatusAccepted
	}
	s.writeJSON(w, r, status, Published{Correlated: res.Correlated, Buffered: res.Buffered, MessageKey: res.Key,
		MessageID: q.MessageID, ExpiresAt: timestamp(res.ExpiresAt)})
	return nil
}

// Published is the answer of POST /api/v1/messages with a timeToLive.
type Published struct {
	Correlated int    `json:"correlated"`
	Buffered   bool   `json:"buffered"`
	MessageKey string `json:"messageKey"`
	MessageID  string `json:"messageId,omitempty"`
	ExpiresAt  string `json:"expiresAt"`
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
