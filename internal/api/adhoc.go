package api

import (
	"net/http"

	"github.com/go-chi/chi/v5"

	"github.com/gobpm/gobpm/internal/runtime"
)

// listAdHoc handles GET /api/v1/instances/{id}/adhoc: the open ad-hoc
// regions of an instance, nested ones too, with what each offers, runs and
// has completed (DESIGN §6, §9). An instance without regions answers an
// empty list.
func (s *server) listAdHoc(w http.ResponseWriter, r *http.Request) error {
	regions, err := s.svc.AdHocRegions(r.Context(), runtime.InstanceID(chi.URLParam(r, "id")))
	if err != nil {
		return err
	}
	out := AdHocRegions{Regions: make([]AdHocRegion, 0, len(regions))}
	for _, reg := range regions {
		out.Regions = append(out.Regions, toRegion(reg))
	}
	s.writeJSON(w, r, http.StatusOK, out)
	return nil
}

// activateAdHoc handles POST /api/v1/instances/{id}/adhoc/{scopeId}/activate
// {activityId}: the acting user starts a candidate of a manual region. Like
// a task action it needs a user (403 without one). A non-candidate, a
// closed region or a second activity in a sequential region is 409 and
// changes nothing. The answer is the region after the activation.
func (s *server) activateAdHoc(w http.ResponseWriter, r *http.Request) error {
	a, ok := actorOf(r)
	if !ok {
		return errorf(kindForbidden, HeaderUser, "the "+HeaderUser+" header is required to activate an ad-hoc activity")
	}
	members, err := s.readJSONObject(w, r)
	if err != nil {
		return err
	}
	activity, err := requiredStringField(members, "activityId")
	if err != nil {
		return err
	}
	id, scopeID := runtime.InstanceID(chi.URLParam(r, "id")), chi.URLParam(r, "scopeId")
	// The region as it was, to describe it should the activation drain it
	// at once (the runtime then answers only its scope id).
	before, err := s.svc.AdHocRegions(r.Context(), id)
	if err != nil {
		return err
	}
	reg, err := s.svc.ActivateAdHoc(r.Context(), id, scopeID, activity, a)
	if err != nil {
		if runtime.ErrorCode(err) == runtime.ECONFLICT {
			return errorf(kindConflict, "", "activity "+activity+" was not activated and nothing changed: "+err.Error())
		}
		return err
	}
	if reg.NodeID == "" {
		reg = drained(reg, before)
	}
	s.writeJSON(w, r, http.StatusOK, toRegion(reg))
	return nil
}

// drained completes the runtime's answer for a region that the activation
// drained at once (it answers only the scope id): the region's description
// and completion counts as they were before the activation, nothing offered
// or running, and stopped "drained".
func drained(reg runtime.RegionView, before []runtime.RegionView) runtime.RegionView {
	for _, b := range before {
		if b.ScopeID != reg.ScopeID {
			continue
		}
		reg.Path, reg.NodeID, reg.Selection, reg.Ordering = b.Path, b.NodeID, b.Selection, b.Ordering
		if len(reg.Completed) == 0 {
			reg.Completed = b.Completed
		}
		break
	}
	if reg.Stopped == "" {
		reg.Stopped = "drained"
	}
	return reg
}
