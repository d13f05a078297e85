package api

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/gobpm/gobpm/internal/runtime"
)

// listAdHoc handles GET /api/v1/instances/{id}/adhoc: the open ad-hoc
// regions of an instance, nested ones too, with what each offers, runs and
// has completed (docs/scopes.md#ad-hoc-sub-processes, §9). An instance without regions answers an
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

// activateAdHocRequest is the body of POST
// /api/v1/instances/{id}/adhoc/{scopeId}/activate: {activityId?,
// variables?, activities?: [{activityId, variables?}]}.
type activateAdHocRequest struct {
	bodyMembers
	// Activate lists the activities to start, activityId first; never
	// empty.
	Activate []runtime.Activation
}

// Validate decodes and checks activityId, variables (which belong to
// activityId) and activities, in that order, and that they name at least
// one activity.
func (q *activateAdHocRequest) Validate() error {
	activity, err := stringField(q.members, "activityId")
	if err != nil {
		return err
	}
	if activity != "" && strings.TrimSpace(activity) == "" {
		return errorf(kindInvalidRequest, "activityId", "activityId is required")
	}
	vars, err := objectField(q.members, "variables")
	if err != nil {
		return err
	}
	q.Activate = nil
	if activity != "" {
		q.Activate = append(q.Activate, runtime.Activation{ActivityID: activity, Variables: vars})
	} else if len(vars) > 0 {
		return errorf(kindInvalidRequest, "variables", "variables belong to activityId, which is missing; give each of activities its own variables")
	}
	more, err := activationsField(q.members, "activities")
	if err != nil {
		return err
	}
	q.Activate = append(q.Activate, more...)
	if len(q.Activate) == 0 {
		return errorf(kindInvalidRequest, "activityId", "activityId (or activities) is required")
	}
	return nil
}

// activateAdHoc handles POST /api/v1/instances/{id}/adhoc/{scopeId}/activate
// (activateAdHocRequest): the acting user starts candidates of a manual region, activityId first, each
// with variables that become local variables of its scope, all in one step
// (all or nothing). Like a task action it needs a user (403 without one).
// A non-candidate, a closed region or a second activity in a sequential
// region is 409 and changes nothing. The answer is the region after the
// activation.
func (s *server) activateAdHoc(w http.ResponseWriter, r *http.Request) error {
	a, ok := actorOf(r)
	if !ok {
		return errorf(kindForbidden, HeaderUser, "the "+HeaderUser+" header is required to activate an ad-hoc activity")
	}
	var q activateAdHocRequest
	if err := s.decodeBody(w, r, &q); err != nil {
		return err
	}
	acts := q.Activate
	ids := make([]string, len(acts))
	for i, x := range acts {
		ids[i] = x.ActivityID
	}
	id, scopeID := runtime.InstanceID(chi.URLParam(r, "id")), chi.URLParam(r, "scopeId")
	// The region as it was, to describe it should the activation drain it
	// at once (the runtime then answers only its scope id).
	before, err := s.svc.AdHocRegions(r.Context(), id)
	if err != nil {
		return err
	}
	reg, err := s.svc.ActivateAdHocWith(r.Context(), id, scopeID, acts, a)
	if err != nil {
		if runtime.ErrorCode(err) == runtime.ECONFLICT {
			verb := " was"
			if len(ids) > 1 {
				verb = " were"
			}
			return errorf(kindConflict, "", strings.Join(ids, ", ")+verb+" not activated and nothing changed: "+err.Error())
		}
		return err
	}
	if reg.NodeID == "" {
		reg = drained(reg, before)
	}
	s.writeJSON(w, r, http.StatusOK, toRegion(reg))
	return nil
}

// completeAdHoc handles POST /api/v1/instances/{id}/adhoc/{scopeId}/complete:
// the acting user ends a region (case management: one that re-offers its
// activities ends by its completion condition or here). It needs a user
// (403 without one); a closed region or one whose activities still run is
// 409 and changes nothing. The answer is the region as it ended.
func (s *server) completeAdHoc(w http.ResponseWriter, r *http.Request) error {
	a, ok := actorOf(r)
	if !ok {
		return errorf(kindForbidden, HeaderUser, "the "+HeaderUser+" header is required to complete an ad-hoc sub-process")
	}
	if _, err := s.readJSONObject(w, r); err != nil {
		return err
	}
	id, scopeID := runtime.InstanceID(chi.URLParam(r, "id")), chi.URLParam(r, "scopeId")
	before, err := s.svc.AdHocRegions(r.Context(), id)
	if err != nil {
		return err
	}
	reg, err := s.svc.CompleteAdHoc(r.Context(), id, scopeID, a)
	if err != nil {
		if runtime.ErrorCode(err) == runtime.ECONFLICT {
			return errorf(kindConflict, "", "the ad-hoc sub-process was not completed and nothing changed: "+err.Error())
		}
		return err
	}
	if reg.NodeID == "" {
		reg = drained(reg, before)
	}
	s.writeJSON(w, r, http.StatusOK, toRegion(reg))
	return nil
}

// activationsField decodes an optional member that must be a list of
// {activityId, variables?} objects (an ad-hoc activation, a router job's
// answer); absent or null gives none, [] an empty list.
func activationsField(members map[string]json.RawMessage, name string) ([]runtime.Activation, error) {
	raw := members[name]
	if isNull(raw) {
		return nil, nil
	}
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		var v any
		if derr := decodeNumbers(raw, &v); derr != nil {
			return nil, malformed(derr)
		}
		return nil, errorf(kindInvalidRequest, name, fmt.Sprintf("%s must be a list of {activityId, variables?} objects, not %s", name, jsonKind(v)))
	}
	out := make([]runtime.Activation, 0, len(items))
	for i, item := range items {
		field := fmt.Sprintf("%s[%d]", name, i)
		var m map[string]json.RawMessage
		if err := json.Unmarshal(item, &m); err != nil || m == nil {
			return nil, errorf(kindInvalidRequest, field, field+" must be an object {activityId, variables?}")
		}
		activity, err := stringField(m, "activityId")
		if err != nil {
			return nil, err
		}
		if strings.TrimSpace(activity) == "" {
			return nil, errorf(kindInvalidRequest, field+".activityId", field+".activityId is required")
		}
		vars, err := objectField(m, "variables")
		if err != nil {
			return nil, err
		}
		out = append(out, runtime.Activation{ActivityID: activity, Variables: vars})
	}
	return out, nil
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
