package camunda7

import (
	"encoding/json"
	"net/http"
)

// Camunda 7's exception types, the "type" member of its error bodies.
const (
	TypeInvalidRequest = "InvalidRequestException"
	TypeRestException  = "RestException"
	TypeNotFound       = "NotFoundException"
	TypeAuthorization  = "AuthorizationException"
)

// ErrorBody is Camunda 7's error answer: {"type":"…","message":"…"}.
type ErrorBody struct {
	Type    string `json:"type"`
	Message string `json:"message"`
}

// Error is a refusal the adapter answers with Camunda 7's status and body.
type Error struct {
	Status int
	Type   string
	Msg    string
}

// Error returns the message.
func (e *Error) Error() string { return e.Msg }

// invalid is the 400 InvalidRequestException.
func invalid(msg string) *Error {
	return &Error{Status: http.StatusBadRequest, Type: TypeInvalidRequest, Msg: msg}
}

// writeJSON answers v with the content type exactly application/json (the
// Node client runs no handler for a type with a charset parameter).
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// WriteError answers e as Camunda 7's error body.
func WriteError(w http.ResponseWriter, e *Error) {
	writeJSON(w, e.Status, ErrorBody{Type: e.Type, Message: e.Msg})
}
