package api

import (
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/go-chi/chi/v5"

	"github.com/gobpm/gobpm/internal/runtime"
)

// maxModifications bounds the instructions of one modification.
const maxModifications = 100

// modifyRequest is the body of POST /api/v1/instances/{id}/modify:
// {instructions: [...]}.
type modifyRequest struct {
	bodyMembers
	// Instructions holds one to maxModifications instructions, in order.
	Instructions []runtime.Modification
}

// Validate decodes and checks the instructions, in order.
func (q *modifyRequest) Validate() error {
	raw := q.members["instructions"]
	var list []json.RawMessage
	if isNull(raw) || json.Unmarshal(raw, &list) != nil || len(list) == 0 {
		return errorf(kindInvalidRequest, "instructions", "instructions is required: an array of at least one {\"cancel\": …} or {\"activate\": …}")
	}
	if len(list) > maxModifications {
		return errorf(kindInvalidRequest, "instructions", fmt.Sprintf("at most %d instructions per modification, not %d", maxModifications, len(list)))
	}
	q.Instructions = make([]runtime.Modification, len(list))
	for i, item := range list {
		var err error
		if q.Instructions[i], err = parseModification(item, fmt.Sprintf("instructions[%d]", i)); err != nil {
			return err
		}
	}
	return nil
}

// modifyInstance handles POST /api/v1/instances/{id}/modify (modifyRequest):
//
//	{"instructions": [
//	  {"cancel": {"nodeId"|"trackId"|"scopeId": "…"}},
//	  {"activate": {"nodeId": "…", "scopeId": "…", "variables": {…}}}
//	]}
//
// applied in one step, in order; it answers the instance as GET shows it.
func (s *server) modifyInstance(w http.ResponseWriter, r *http.Request) error {
	var q modifyRequest
	if err := s.decodeBody(w, r, &q); err != nil {
		return err
	}
	view, err := s.svc.ModifyInstance(r.Context(), runtime.InstanceID(chi.URLParam(r, "id")), q.Instructions)
	if err != nil {
		return err
	}
	return s.writeInstance(w, r, http.StatusOK, view)
}

// parseModification reads one instruction; field names errors at.
func parseModification(raw json.RawMessage, at string) (runtime.Modification, error) {
	var members map[string]json.RawMessage
	if err := json.Unmarshal(raw, &members); err != nil || members == nil {
		return runtime.Modification{}, errorf(kindInvalidRequest, at, at+" must be an object: {\"cancel\": …} or {\"activate\": …}")
	}
	cancel, activate := members["cancel"], members["activate"]
	if isNull(cancel) == isNull(activate) {
		return runtime.Modification{}, errorf(kindInvalidRequest, at, at+" needs exactly one of cancel and activate")
	}
	if !isNull(cancel) {
		c, err := memberObject(cancel, at+".cancel")
		if err != nil {
			return runtime.Modification{}, err
		}
		var target runtime.CancelElement
		named := 0
		for _, f := range []struct {
			name string
			into *string
		}{{"nodeId", &target.NodeID}, {"trackId", &target.TrackID}, {"scopeId", &target.ScopeID}} {
			v, err := stringField(c, f.name)
			if err != nil {
				return runtime.Modification{}, prefixField(err, at+".cancel")
			}
			if v != "" {
				*f.into = v
				named++
			}
		}
		if named != 1 {
			return runtime.Modification{}, errorf(kindInvalidRequest, at+".cancel", at+".cancel needs exactly one of nodeId, trackId and scopeId")
		}
		return runtime.Modification{Cancel: &target}, nil
	}
	a, err := memberObject(activate, at+".activate")
	if err != nil {
		return runtime.Modification{}, err
	}
	node, err := requiredStringField(a, "nodeId")
	if err != nil {
		return runtime.Modification{}, prefixField(err, at+".activate")
	}
	scopeID, err := stringField(a, "scopeId")
	if err != nil {
		return runtime.Modification{}, prefixField(err, at+".activate")
	}
	vars, err := objectField(a, "variables")
	if err != nil {
		return runtime.Modification{}, prefixField(err, at+".activate")
	}
	return runtime.Modification{Activate: &runtime.ActivateElement{NodeID: node, ScopeID: scopeID, Variables: vars}}, nil
}

// memberObject reads raw as a JSON object; field names it in errors.
func memberObject(raw json.RawMessage, field string) (map[string]json.RawMessage, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil || m == nil {
		return nil, errorf(kindInvalidRequest, field, field+" must be a JSON object")
	}
	return m, nil
}

// prefixField qualifies the field of a request error with the path of the
// object it was read from ("nodeId" → "instructions[1].activate.nodeId").
func prefixField(err error, path string) error {
	if ae, ok := err.(*apiError); ok && ae.field != "" {
		return &apiError{kind: ae.kind, field: path + "." + ae.field, detail: path + "." + ae.detail}
	}
	return err
}
