package api

import (
	"net/http"

	"github.com/go-chi/chi/v5"

	"github.com/gobpm/gobpm/internal/runtime"
)

// triggerWait handles POST /api/v1/instances/{id}/waits/{waitId}/trigger:
// a receive task without a messageRef continues with the optional
// variables of the body ({} or empty), as Camunda 7's signal of an
// execution does. It answers the instance.
func (s *server) triggerWait(w http.ResponseWriter, r *http.Request) error {
	var q variablesRequest
	if err := s.decodeBody(w, r, &q); err != nil {
		return err
	}
	view, err := s.svc.TriggerWait(r.Context(), runtime.InstanceID(chi.URLParam(r, "id")), chi.URLParam(r, "waitId"), q.Variables)
	if err != nil {
		return err
	}
	return s.writeInstance(w, r, http.StatusOK, view)
}
