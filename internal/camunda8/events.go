package camunda8

import (
	"crypto/rand"
	"encoding/binary"
	"encoding/json"
	"net/http"

	"github.com/gobpm/gobpm/internal/runtime"
)

// eventKey is the key a publication or broadcast answers: gobpm keeps no
// entity for a message or a signal, so it is a fresh random number that
// names nothing (Camunda 8 clients only log it).
func eventKey() string {
	var b [8]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	return keyString(int64(binary.BigEndian.Uint64(b[:])>>12) + 1<<50)
}

// messageRequest is the body of /v2/messages/publication and /correlation.
type messageRequest struct {
	Name           string          `json:"name"`
	CorrelationKey string          `json:"correlationKey"`
	TimeToLive     *json.Number    `json:"timeToLive"`
	MessageID      string          `json:"messageId"`
	Variables      json.RawMessage `json:"variables"`
	TenantID       string          `json:"tenantId"`
}

// read validates a message request and returns it as a publication.
func (m *messageRequest) read() (runtime.Publication, error) {
	if m.Name == "" {
		return runtime.Publication{}, invalid("No name provided.")
	}
	if m.TenantID != "" {
		if err := checkTenants([]string{m.TenantID}); err != nil {
			return runtime.Publication{}, err
		}
	}
	ttl, _, err := millis(m.TimeToLive, "timeToLive", 0, runtime.MaxMessageTTL.Milliseconds())
	if err != nil {
		return runtime.Publication{}, err
	}
	vars, err := variables(m.Variables, "variables")
	if err != nil {
		return runtime.Publication{}, err
	}
	return runtime.Publication{Name: m.Name, CorrelationKey: m.CorrelationKey, Variables: vars, TimeToLive: ttl, MessageID: m.MessageID}, nil
}

// MessageAnswer is the answer to a publication or correlation.
type MessageAnswer struct {
	TenantID   string `json:"tenantId"`
	MessageKey string `json:"messageKey"`
}

// publishMessage handles POST /v2/messages/publication: the message
// correlates with the oldest subscription of its name and correlation key
// or starts instances at message start events, and with a timeToLive (ms)
// it is buffered for the subscriptions that open within it (a messageId
// makes it unique: a duplicate is 409 ALREADY_EXISTS). Nothing waiting is
// no error, as in Camunda 8.
func (h *handler) publishMessage(w http.ResponseWriter, r *http.Request) error {
	var req messageRequest
	if err := h.readBody(r, &req); err != nil {
		return err
	}
	p, err := req.read()
	if err != nil {
		return err
	}
	if _, err := h.svc.PublishC8(r.Context(), p); err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, MessageAnswer{TenantID: DefaultTenant, MessageKey: eventKey()})
}

// correlateMessage handles POST /v2/messages/correlation: the message
// goes to a waiting subscription or message start now, never buffered;
// nothing waiting is a 404.
func (h *handler) correlateMessage(w http.ResponseWriter, r *http.Request) error {
	var req messageRequest
	if err := h.readBody(r, &req); err != nil {
		return err
	}
	p, err := req.read()
	if err != nil {
		return err
	}
	p.TimeToLive, p.MessageID = 0, ""
	res, err := h.svc.PublishC8(r.Context(), p)
	if err != nil {
		return err
	}
	if res.Correlated == 0 {
		return notFound("Expected to find subscription for message with name '" + req.Name + "' and correlation key '" + req.CorrelationKey + "', but none was found.")
	}
	return writeJSON(w, http.StatusOK, MessageAnswer{TenantID: DefaultTenant, MessageKey: eventKey()})
}

// SignalAnswer is the answer to a broadcast.
type SignalAnswer struct {
	TenantID  string `json:"tenantId"`
	SignalKey string `json:"signalKey"`
}

// broadcastSignal handles POST /v2/signals/broadcast.
func (h *handler) broadcastSignal(w http.ResponseWriter, r *http.Request) error {
	var req struct {
		SignalName string          `json:"signalName"`
		Variables  json.RawMessage `json:"variables"`
		TenantID   string          `json:"tenantId"`
	}
	if err := h.readBody(r, &req); err != nil {
		return err
	}
	if req.SignalName == "" {
		return invalid("No signalName provided.")
	}
	if req.TenantID != "" {
		if err := checkTenants([]string{req.TenantID}); err != nil {
			return err
		}
	}
	vars, err := variables(req.Variables, "variables")
	if err != nil {
		return err
	}
	if _, err := h.svc.BroadcastSignal(r.Context(), req.SignalName, vars); err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, SignalAnswer{TenantID: DefaultTenant, SignalKey: eventKey()})
}
