package api

import (
	"encoding/json"
	"net/http"
)

// requestBody is a JSON request body a handler acts on, a struct with the
// fields the act takes. decodeBody reads the body's object and hands the
// struct its members as sent; Validate then decodes each member into its
// field, in the order the struct lists them, and answers the first member
// that does not fit with the 400 problem naming it (the field helpers of
// decode.go: the same detail for the same fault on every route).
type requestBody interface {
	setMembers(members map[string]json.RawMessage)
	Validate() error
}

// bodyMembers holds the undecoded members of a request body; each request
// struct embeds it, and its Validate reads them.
type bodyMembers struct {
	members map[string]json.RawMessage
}

func (b *bodyMembers) setMembers(members map[string]json.RawMessage) { b.members = members }

// decodeBody reads r's JSON object body (readJSONObject: media type, size
// cap, UTF-8, one object) into req and validates it.
func (s *server) decodeBody(w http.ResponseWriter, r *http.Request, req requestBody) error {
	members, err := s.readJSONObject(w, r)
	if err != nil {
		return err
	}
	req.setMembers(members)
	return req.Validate()
}

// variablesRequest is a body of only optional variables: {variables?}
// (a task's completion, a wait's trigger).
type variablesRequest struct {
	bodyMembers
	Variables map[string]any
}

// Validate decodes and checks variables.
func (q *variablesRequest) Validate() error {
	var err error
	q.Variables, err = objectField(q.members, "variables")
	return err
}
