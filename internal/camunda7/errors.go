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
	// TypeParse is the type of a refused deployment, as Camunda 7 answers
	// a model it cannot parse.
	TypeParse = "ParseException"
)

// ErrorBody is Camunda 7's error answer: {"type":"…","message":"…"},
// with details per resource for a refused deployment (Camunda 7.20+).
type ErrorBody struct {
	Type    string                    `json:"type"`
	Message string                    `json:"message"`
	Details map[string]ResourceReport `json:"details,omitempty"`
}

// ResourceReport is what a refused deployment says of one resource
// (Camunda 7's ResourceReportDto): its errors and warnings.
type ResourceReport struct {
	Errors   []ProblemDto `json:"errors"`
	Warnings []ProblemDto `json:"warnings"`
}

// ProblemDto is one problem of a resource (Camunda 7's ProblemDto); the
// Modeler marks the elements it names.
type ProblemDto struct {
	Message       string   `json:"message"`
	Line          int      `json:"line"`
	Column        int      `json:"column"`
	MainElementID string   `json:"mainElementId"`
	ElementIDs    []string `json:"elementIds"`
}

// Error is a refusal the adapter answers with Camunda 7's status and body.
type Error struct {
	Status int
	Type   string
	Msg    string
	// Details are a refused deployment's problems per resource (nil
	// otherwise).
	Details map[string]ResourceReport
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
	writeJSON(w, e.Status, ErrorBody{Type: e.Type, Message: e.Msg, Details: e.Details})
}
