package camunda8

import (
	"crypto/rand"
	"encoding/binary"
	"encoding/json"
	"net/http"
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

// read validates a message request and returns its variables.
func (m *messageRequest) read() (map[string]any, error) {
	if m.Name == "" {
		return nil, invalid("No name provided.")
	}
	if m.TenantID != "" {
		if err := checkTenants([]string{m.TenantID}); err != nil {
			return nil, err
		}
	}
	if _, _, err := whole(m.TimeToLive, "timeToLive", 0, 1<<62); err != nil {
		return nil, err
	}
	return variables(m.Variables, "variables")
}

// MessageAnswer is the answer to a publication or correlation.
type MessageAnswer struct {
	TenantID   string `json:"tenantId"`
	MessageKey string `json:"messageKey"`
}

// publishMessage handles POST /v2/messages/publication: the message
// correlates with the oldest subscription of its name and correlation key
// or starts instances at message start events; with neither it is
// dropped (gobpm does not buffer it for its timeToLive yet), which is no
// error, as in Camunda 8.
func (h *handler) publishMessage(w http.ResponseWriter, r *http.Request) error {
	var req messageRequest
	if err := h.readBody(r, &req); err != nil {
		return err
	}
	vars, err := req.read()
	if err != nil {
		return err
	}
	if _, err := h.svc.PublishC8Message(r.Context(), req.Name, req.CorrelationKey, vars); err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, MessageAnswer{TenantID: DefaultTenant, MessageKey: eventKey()})
}

// correlateMessage handles POST /v2/messages/correlation: as publication,
// but nothing waiting is a 404.
func (h *handler) correlateMessage(w http.ResponseWriter, r *http.Request) error {
	var req messageRequest
	if err := h.readBody(r, &req); err != nil {
		return err
	}
	vars, err := req.read()
	if err != nil {
		return err
	}
	n, err := h.svc.PublishC8Message(r.Context(), req.Name, req.CorrelationKey, vars)
	if err != nil {
		return err
	}
	if n == 0 {
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
