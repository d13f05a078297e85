package runtime

import (
	"context"
	"sort"

	"github.com/gobpm/gobpm/internal/bpmn"
	"github.com/gobpm/gobpm/internal/engine"
	"github.com/gobpm/gobpm/internal/scope"
)

// RegionView is an open ad-hoc region as GET …/adhoc shows it (openapi.yaml).
type RegionView struct {
	ScopeID string
	Path    string
	NodeID  string
	// Selection is "automatic" or "manual"; Ordering "parallel" or "sequential".
	Selection  string
	Ordering   string
	Candidates []Candidate
	// Running lists running inner activities (an id per running instance).
	Running   []string
	Completed map[string]int
	// Stopped says why the router is no longer asked ("" while it is).
	Stopped string
	// Router is the region's router (standard, expression, sequence, job);
	// Deciding is true while a router job is being answered.
	Router   string
	Deciding bool
}

// Candidate is an activity a manual region offers.
type Candidate struct {
	ActivityID string
	Name       string
}

// AdHocRegions lists the open ad-hoc regions of an instance, nested ones too.
func (r *Runtime) AdHocRegions(ctx context.Context, id InstanceID) ([]RegionView, error) {
	var out []RegionView
	err := r.withState(ctx, id, func(row InstanceRow, st *engine.State) error {
		proc, _, err := r.process(ctx, row.ProcessKey, row.ProcessVersion)
		if err != nil {
			return err
		}
		out = regionViews(proc, st)
		return nil
	})
	return out, err
}

// regionViews copies the open regions of st. It indexes the tracks by scope
// once, so n regions over n tracks cost O(n).
func regionViews(proc *bpmn.Process, st *engine.State) []RegionView {
	out := []RegionView{}
	if len(st.Regions) == 0 {
		return out
	}
	inScope := map[scope.ID][]*engine.Track{}
	for _, t := range st.Tracks {
		// A task with mappings or activation variables runs in an io scope
		// of its own; it counts where its node sits.
		s := st.FlowScope(t)
		inScope[s] = append(inScope[s], t)
	}
	for _, reg := range st.Regions {
		n := proc.Node(reg.NodeID)
		sc := st.Scopes.Get(reg.ScopeID)
		if n == nil || n.AdHoc == nil || sc == nil {
			continue
		}
		v := RegionView{ScopeID: string(reg.ScopeID), Path: sc.Path, NodeID: reg.NodeID, Selection: "automatic", Ordering: "parallel",
			Candidates: []Candidate{}, Running: []string{}, Completed: map[string]int{}, Stopped: reg.Stopped,
			Router: n.AdHoc.Router, Deciding: reg.RouterJob != ""}
		if n.AdHoc.Manual {
			v.Selection = "manual"
		}
		if n.AdHoc.Sequential {
			v.Ordering = "sequential"
		}
		for _, a := range reg.Offer {
			name := a
			if an := proc.Node(a); an != nil && an.Name != "" {
				name = an.Name
			}
			v.Candidates = append(v.Candidates, Candidate{ActivityID: a, Name: name})
		}
		for _, t := range inScope[reg.ScopeID] {
			if an := proc.Node(t.Node); an != nil && engine.IsRoutable(an) && an.Parent == n.Sub {
				v.Running = append(v.Running, t.Node)
			}
		}
		sort.Strings(v.Running)
		for k, c := range reg.Completed {
			v.Completed[k] = c
		}
		out = append(out, v)
	}
	return out
}

// ActivateAdHoc starts a candidate of a manual ad-hoc region for the acting
// user and returns the region. A non-candidate, a closed region or a second
// activity in a sequential region → ECONFLICT; nothing changes then.
func (r *Runtime) ActivateAdHoc(ctx context.Context, id InstanceID, scopeID, activityID string, a Actor) (RegionView, error) {
	if activityID == "" && a.User != "" {
		return RegionView{}, &Error{Code: EINVALID, Message: "activityId is required", Field: "activityId"}
	}
	return r.ActivateAdHocWith(ctx, id, scopeID, []Activation{{ActivityID: activityID}}, a)
}

// ActivateAdHocWith starts candidates of a manual ad-hoc region for the
// acting user in one step, each with the variables that become local
// variables of its scope (an agent's tool-call arguments; without any, those
// a job router proposed), and returns the region. All or nothing: a
// non-candidate among them, a closed region or more than one activity
// live in a sequential region → ECONFLICT, and nothing changes. The
// history names the user as the one who activated each.
func (r *Runtime) ActivateAdHocWith(ctx context.Context, id InstanceID, scopeID string, acts []Activation, a Actor) (RegionView, error) {
	if a.User == "" {
		return RegionView{}, &Error{Code: EFORBIDDEN, Message: "an acting user is required to activate an ad-hoc activity"}
	}
	if len(acts) == 0 {
		return RegionView{}, &Error{Code: EINVALID, Message: "activityId or activities is required", Field: "activityId"}
	}
	evActs, err := engineActivations(acts, "activities")
	if err != nil {
		return RegionView{}, err
	}
	if _, err := r.step(ctx, id, engine.AdHocActivated{ScopeID: scopeID, Activations: evActs, User: a.User}, nil); err != nil {
		return RegionView{}, err
	}
	return r.regionAfter(ctx, id, scopeID, "drained")
}

// CompleteAdHoc ends an ad-hoc region for the acting user (case
// management: a region that re-offers its activities ends by its
// completion condition or here): the router is no longer asked, the offer
// closes, and the region completes, its host continuing. A region whose
// activities still run → ECONFLICT (they finish first), as is a closed one.
func (r *Runtime) CompleteAdHoc(ctx context.Context, id InstanceID, scopeID string, a Actor) (RegionView, error) {
	if a.User == "" {
		return RegionView{}, &Error{Code: EFORBIDDEN, Message: "an acting user is required to complete an ad-hoc sub-process"}
	}
	if _, err := r.step(ctx, id, engine.AdHocCompleted{ScopeID: scopeID, User: a.User}, nil); err != nil {
		return RegionView{}, err
	}
	return r.regionAfter(ctx, id, scopeID, "completed by "+a.User)
}

// regionAfter returns region scopeID after a step, or (it closed) a view
// holding only its scope id and stopped.
func (r *Runtime) regionAfter(ctx context.Context, id InstanceID, scopeID, stopped string) (RegionView, error) {
	regions, err := r.AdHocRegions(ctx, id)
	if err != nil {
		return RegionView{}, err
	}
	for _, v := range regions {
		if v.ScopeID == scopeID {
			return v, nil
		}
	}
	// The step completed the region (e.g. a straight-through activity).
	return RegionView{ScopeID: scopeID, Candidates: []Candidate{}, Running: []string{}, Completed: map[string]int{}, Stopped: stopped}, nil
}
