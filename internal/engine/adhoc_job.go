package engine

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"time"

	"github.com/gobpm/gobpm/internal/bpmn"
	"github.com/gobpm/gobpm/internal/scope"
)

// Router jobs (gobpm:router="job", docs/scopes.md#ad-hoc-sub-processes). Each time a job router is
// asked — the region opens, an inner activity completes, an operator
// retries a failed answer — the region gets a job of type
// gobpm:routerType instead of an immediate answer. The job is a wait of
// the region's scope (Wait.Handler, Kind WaitJob, NodeID the ad-hoc
// sub-process): workers activate, complete and fail it through the
// ordinary job API, and it keeps the region open (checkDrain) until it is
// answered. Its variables are the snapshot RouterJobVariables builds when
// a worker activates it; its completion (JobCompleted with Answered) is the
// router's answer: the activities to start, each with its own local
// variables, and variables for the region.
//
// A region has at most one router job at a time. A completion that asks
// while one is outstanding is remembered (Region.Pending, Region.Reask)
// and asked about in a new job once the outstanding one is answered, so
// two answers never rest on one snapshot and nothing is started twice for
// one ask. A lock that runs out delivers the same job again; the first
// completion consumes it, and any later one finds no job.

// FactRouterAnswered records a router job's answer.
const FactRouterAnswered = "adhoc-router-answered"

// Activation is one activity a decider starts in an ad-hoc region, with
// the variables that become local variables of the activity's scope (an
// agent's tool-call arguments).
type Activation struct {
	ActivityID string
	Variables  map[string]any
}

// IsRouterJob reports whether w is the job of an ad-hoc region's job
// router (its variables are the router's snapshot, its completion the
// router's answer).
func IsRouterJob(w *Wait) bool { return w != nil && w.Kind == WaitJob && w.Handler }

// requestRouter asks the job router of region r (node n): a new job whose
// snapshot names trigger (and the completions that came while an earlier
// job was outstanding), or, while a job is outstanding, a note to ask
// again once it is answered.
func (x *executor) requestRouter(n *bpmn.Node, r *Region, trigger string) {
	if trigger != "" {
		r.Pending = append(r.Pending, trigger)
	}
	x.markRegion(r.ScopeID)
	if x.routerPending(r) {
		r.Reask = true
		return
	}
	w := x.allocWait(WaitJob, n.ID, r.ScopeID)
	w.Handler = true
	w.Name = n.AdHoc.RouterType
	w.Retries = n.AdHoc.RouterRetries
	r.RouterJob, r.Triggers, r.Pending, r.Reask = w.ID, r.Pending, nil, false
	x.fact(FactJobCreated, n.ID, r.ScopeID, "", map[string]any{"jobKey": w.ID, "type": w.Name, "router": true, "triggers": toAny(r.Triggers)})
	if w.Retries <= 0 {
		x.routerIncident(r, w, IncidentJobFailed, "the router job was created with no retries")
	}
}

// regionHolds reports whether region r keeps its scope open although no
// track runs in it: a manual region waiting on its offer, a router job
// not yet answered, a failed router waiting on an operator.
func (x *executor) regionHolds(r *Region) bool {
	if sc := x.st.Scopes.Get(r.ScopeID); sc != nil && sc.Interrupted {
		// An interrupting event sub-process of the region took over (its
		// offer and router job were disarmed with the region's handlers):
		// the region ends when the handler does.
		if r.Stopped == "" {
			x.stopRegion(r, x.proc.Node(r.NodeID), "interrupted by an event sub-process")
		}
		return false
	}
	return len(r.Offer) > 0 || x.routerPending(r) || x.scopeHasIncident(r.ScopeID)
}

// IsRoutable reports whether activity a, directly inside an ad-hoc
// sub-process, is one its router may start: not an event sub-process (its
// event starts it) and not a compensation handler (compensation does).
func IsRoutable(a *bpmn.Node) bool {
	return a.IsActivity() && !a.TriggeredByEvent && !a.ForCompensation
}

// routerPending reports whether region r's router job is outstanding. A
// job withdrawn with the scope's other handlers (an interrupting event
// sub-process disarms them) is forgotten here.
func (x *executor) routerPending(r *Region) bool {
	if r.RouterJob == "" {
		return false
	}
	if x.st.Wait(r.RouterJob) != nil {
		return true
	}
	r.RouterJob, r.Triggers, r.Reask = "", nil, false
	x.markRegion(r.ScopeID)
	return false
}

// withdrawRouterJob removes the outstanding router job of r (the region
// stopped or closes).
func (x *executor) withdrawRouterJob(r *Region) {
	if r.RouterJob == "" {
		return
	}
	if w := x.st.Wait(r.RouterJob); w != nil {
		x.removeWait(w)
	}
	r.RouterJob, r.Triggers, r.Pending, r.Reask = "", nil, nil, false
	x.markRegion(r.ScopeID)
}

// routerRef is a router job with the open region it routes and the region's
// ad-hoc sub-process.
type routerRef struct {
	w *Wait
	n *bpmn.Node
	r *Region
}

// routerJobOf finds the router job a job event names by key, for the
// event's handler to apply the event to it: the answer, a failure or a
// BPMN error. It reports false for any other job (and for an unknown or
// finished one: openWait says so); answered is a completion carrying an
// answer, which only a router job takes.
func (x *executor) routerJobOf(key string, answered bool) (routerRef, bool, error) {
	w := x.st.Wait(key)
	if w == nil {
		return routerRef{}, false, nil // unknown or finished: the handler's openWait says so
	}
	if !IsRouterJob(w) {
		if answered {
			return routerRef{}, true, fmt.Errorf("engine: complete job %s with activate: it is not the job of an ad-hoc router: %w", key, ErrInvalidTransition)
		}
		return routerRef{}, false, nil
	}
	r := x.st.region(w.ScopeID)
	n := x.proc.Node(w.NodeID)
	if r == nil || n == nil || n.AdHoc == nil || r.RouterJob != w.ID {
		return routerRef{}, true, fmt.Errorf("engine: router job %s has no open region %s: %w", w.ID, w.ScopeID, ErrCheckpoint)
	}
	return routerRef{w: w, n: n, r: r}, true, nil
}

// routerAnswered applies a router job's answer: the job is consumed; an
// answer that breaks the region's rules (an id that is no inner activity,
// more than one live activity in a sequential region) is an incident of
// the region and starts nothing; otherwise the region variables are
// written and the activations start (automatic) or become the offer
// (manual). A router asked meanwhile gets its next job.
func (x *executor) routerAnswered(w *Wait, n *bpmn.Node, r *Region, e JobCompleted) error {
	if !e.Answered {
		return fmt.Errorf("engine: complete router job %s of %s: the answer needs activate (an empty list starts nothing): %w", w.ID, n.ID, ErrInvalidTransition)
	}
	ids := make([]string, len(e.Activate))
	for i, a := range e.Activate {
		ids[i] = a.ActivityID
	}
	x.removeWait(w)
	triggers := r.Triggers
	r.RouterJob, r.Triggers = "", nil
	x.markRegion(r.ScopeID)
	by := "router job " + w.Name
	detail := map[string]any{"jobKey": w.ID, "activate": toAny(ids)}
	if e.Worker != "" {
		detail["worker"] = e.Worker
	}
	x.fact(FactRouterAnswered, n.ID, r.ScopeID, "", detail)
	if err := x.checkAnswer(n, r, ids, nil); err != nil {
		// Asked again on retry, with the completions this job reported.
		r.Pending = append(slices.Clone(triggers), r.Pending...)
		x.scopeIncident(r.ScopeID, n.ID, IncidentRouter, fmt.Sprintf("router job %s of %s: %v", w.ID, n.ID, err))
		return nil
	}
	x.writeRegionVars(r, n, e.Variables, by)
	if r.Stopped == "" {
		if n.AdHoc.Manual {
			x.offer(n, r, e.Activate)
		} else {
			x.start(r, e.Activate, by, detail)
		}
	}
	if r.Reask && r.Stopped == "" {
		x.requestRouter(n, r, "")
	}
	x.checkDrain(r.ScopeID)
	return nil
}

// checkAnswer checks a router's answer against region r (node n): every id
// an activity directly inside it, and a sequential automatic region never
// more than one live activity (skip is the track whose activity just
// completed, nil when none).
func (x *executor) checkAnswer(n *bpmn.Node, r *Region, answer []string, skip *Track) error {
	for _, id := range answer {
		if a := x.proc.Node(id); a == nil || a.Parent != n.Sub || !IsRoutable(a) {
			return fmt.Errorf("router answered %q, which is not an activity of %s", id, n.ID)
		}
	}
	if n.AdHoc.Sequential && !n.AdHoc.Manual && (len(answer) > 1 || (len(answer) == 1 && len(x.running(r, skip)) > 0)) {
		return fmt.Errorf("sequential ad-hoc sub-process %s: the router answered %v while %v run; at most one activity may be live", n.ID, answer, x.running(r, skip))
	}
	return nil
}

// offer makes a router job's answer the offer of manual region r: the
// activities people pick from, each with the variables the router
// proposed for it (an activation without variables of its own takes them).
func (x *executor) offer(n *bpmn.Node, r *Region, acts []Activation) {
	var ids []string
	r.Proposed = nil
	for _, a := range acts {
		if !slices.Contains(ids, a.ActivityID) {
			ids = append(ids, a.ActivityID)
		}
		if len(a.Variables) > 0 {
			if r.Proposed == nil {
				r.Proposed = map[string]map[string]any{}
			}
			r.Proposed[a.ActivityID] = scope.CloneVars(a.Variables)
		}
	}
	if n.AdHoc.Sequential && len(x.running(r, nil)) > 0 {
		ids, r.Proposed = nil, nil // the offer closes while an activity runs
	}
	r.Offer = ids
	x.markRegion(r.ScopeID)
	x.syncOffer(r)
	if len(ids) > 0 {
		x.fact(FactCandidates, n.ID, r.ScopeID, "", map[string]any{"candidates": toAny(ids)})
	}
}

// start starts activations in region r, each in a new track whose scope
// gets the activation's variables, recording who or what activated it.
func (x *executor) start(r *Region, acts []Activation, by string, extra map[string]any) {
	for _, a := range acts {
		detail := map[string]any{"by": by}
		for _, k := range []string{"jobKey", "worker"} {
			if v, ok := extra[k]; ok {
				detail[k] = v
			}
		}
		if len(a.Variables) > 0 {
			detail["variables"] = toAny(sortedKeys(a.Variables))
		}
		x.fact(FactAdHocActivated, a.ActivityID, r.ScopeID, "", detail)
		t := x.newTrack(r.ScopeID, a.ActivityID, "")
		if len(a.Variables) > 0 {
			t.Inputs = scope.CloneVars(a.Variables)
		}
	}
}

// writeRegionVars writes variables a decider answered with by the write
// rule (docs/scopes.md#variables) from the region's scope.
func (x *executor) writeRegionVars(r *Region, n *bpmn.Node, vars map[string]any, by string) {
	for _, k := range sortedKeys(vars) {
		at, err := x.st.Scopes.Set(r.ScopeID, k, scope.CloneValue(vars[k]))
		if err != nil {
			x.scopeIncident(r.ScopeID, n.ID, IncidentUnknownModel, err.Error())
			return
		}
		x.fact(FactVariableSet, n.ID, at, "", map[string]any{"name": k, "by": by})
	}
}

// routerJobFailed records a failed attempt of a router job, as failJob
// does for a task's job (its variables go into the region's scope); out
// of retries, the region gets an incident on the job (retrying it hands
// the job out again).
func (x *executor) routerJobFailed(w *Wait, r *Region, e JobFailed) {
	x.countFailure(w, e)
	if sc := x.st.Scopes.Get(r.ScopeID); sc != nil && len(e.Variables) > 0 {
		// The failure's variables are local variables of the region's
		// scope, the router job's element instance.
		x.st.Scopes.Touch(sc.ID)
		for _, k := range sortedKeys(e.Variables) {
			sc.Vars[k] = scope.CloneValue(e.Variables[k])
			x.fact(FactVariableSet, w.NodeID, sc.ID, "", map[string]any{"name": k, "by": "router job " + w.Name})
		}
	}
	x.fact(FactJobFailed, w.NodeID, w.ScopeID, "", map[string]any{"jobKey": w.ID, "retries": w.Retries, "errorMessage": e.ErrorMessage, "router": true})
	if w.Retries == 0 {
		w.DueAt = time.Time{}
		msg := e.ErrorMessage
		if msg == "" {
			msg = "the router job failed and has no retries left"
		}
		x.routerIncident(r, w, IncidentJobFailed, msg)
	}
}

// routerIncident opens an incident on router job w of region r.
func (x *executor) routerIncident(r *Region, w *Wait, kind, msg string) {
	x.st.NextIncident++
	in := &Incident{ID: x.st.InstanceID + "-i" + strconv.Itoa(x.st.NextIncident), NodeID: w.NodeID, ScopeID: r.ScopeID, WaitID: w.ID, Kind: kind, Message: msg, At: x.now}
	x.st.Incidents = append(x.st.Incidents, in)
	x.markIncident(in)
	x.fx.Incidents = append(x.fx.Incidents, *in)
	x.fact(FactIncidentCreated, w.NodeID, r.ScopeID, "", map[string]any{"incidentId": in.ID, "kind": kind, "message": msg, "jobKey": w.ID})
}

// routerJobError throws a BPMN error a router job's worker raised at the
// ad-hoc sub-process, as an error of the activity: an error boundary event
// on it, or the scopes around it (docs/scopes.md#errors-and-escalations),
// catch it.
func (x *executor) routerJobError(w *Wait, n *bpmn.Node, r *Region, e JobErrorThrown) {
	x.withdrawRouterJob(r)
	x.writeRegionVars(r, n, e.Variables, "router job "+w.Name)
	host := x.regionHost(r)
	if host == nil {
		x.scopeIncident(r.ScopeID, n.ID, IncidentRouter, fmt.Sprintf("router job %s threw error %q, but region %s has no host", w.ID, e.Code, n.ID))
		return
	}
	detail := e.ErrorMessage
	if detail == "" {
		detail = "thrown by the worker of router job " + w.ID
	}
	x.markTrack(host)
	x.throwError(host, host.Scope, e.Code, detail, true)
}

// regionHost returns the track hosting region r's scope, or nil.
func (x *executor) regionHost(r *Region) *Track {
	for _, t := range x.st.Tracks {
		if t.State == TrackInScope && t.Child == r.ScopeID {
			return t
		}
	}
	return nil
}

// writeActivation writes the variables track t was activated with into
// scope sc, the activity's own (an io scope, a sub-process's or a loop
// body's): they are its local variables, over any input mapping's value.
func (x *executor) writeActivation(t *Track, sc *scope.Scope) {
	if len(t.Inputs) == 0 || sc == nil {
		return
	}
	x.st.Scopes.Touch(sc.ID)
	for _, k := range sortedKeys(t.Inputs) {
		sc.Vars[k] = scope.CloneValue(t.Inputs[k])
		x.fact(FactVariableSet, t.Node, sc.ID, t.ID, map[string]any{"name": k, "by": "activation"})
	}
}

// RouterJobVariables returns the variables a worker gets with router job
// w of state st (docs/scopes.md#ad-hoc-sub-processes): the snapshot the
// router decides on, read now.
//
//	region      {id, name, scopeId, selection, ordering}
//	progress    {completed: {activityId: count}, running: [activityId], trigger, triggers}
//	variables   the region's variables with walk-up
//	candidates  [{id, name, documentation, kind, inputs: [name]}]
//
// trigger is the last completion the job was asked about (null when the
// region opened), triggers all of them in order. It reports false when w
// is no router job of an open region.
func RouterJobVariables(p *bpmn.Process, st *State, w *Wait) (map[string]any, bool) {
	if !IsRouterJob(w) {
		return nil, false
	}
	r := st.region(w.ScopeID)
	n := p.Node(w.NodeID)
	if r == nil || n == nil || n.AdHoc == nil || n.Sub == nil {
		return nil, false
	}
	selection, ordering := "automatic", "parallel"
	if n.AdHoc.Manual {
		selection = "manual"
	}
	if n.AdHoc.Sequential {
		ordering = "sequential"
	}
	completed := map[string]any{}
	for k, c := range r.Completed {
		completed[k] = c
	}
	running := []any{}
	for _, t := range st.Tracks {
		if st.FlowScope(t) != r.ScopeID {
			continue
		}
		if a := p.Node(t.Node); a != nil && IsRoutable(a) && a.Parent == n.Sub {
			running = append(running, t.Node)
		}
	}
	var trigger any
	if len(r.Triggers) > 0 {
		trigger = r.Triggers[len(r.Triggers)-1]
	}
	candidates := []any{}
	for _, a := range n.Sub.Nodes {
		if !IsRoutable(a) {
			continue
		}
		inputs := []any{}
		if a.Mappings != nil {
			var seen []string
			for _, m := range a.Mappings.Inputs {
				if !slices.Contains(seen, m.Target) {
					seen = append(seen, m.Target)
					inputs = append(inputs, map[string]any{"name": m.Target})
				}
			}
		}
		candidates = append(candidates, map[string]any{"id": a.ID, "name": a.Name, "documentation": a.Documentation, "kind": string(a.Kind), "inputs": inputs})
	}
	return map[string]any{
		"region":     map[string]any{"id": n.ID, "name": n.Name, "scopeId": string(r.ScopeID), "selection": selection, "ordering": ordering},
		"progress":   map[string]any{"completed": completed, "running": running, "trigger": trigger, "triggers": toAny(r.Triggers)},
		"variables":  scope.CloneVars(st.Scopes.Visible(r.ScopeID)),
		"candidates": candidates,
	}, true
}

// FlowScope returns the scope of the graph track t's node belongs to: t's
// scope, or the one enclosing the io scope t runs in (an element with
// input/output mappings, or an activity activated with variables).
func (s *State) FlowScope(t *Track) scope.ID {
	if sc := s.Scopes.Get(t.Scope); sc != nil && sc.Kind == scopeKindIO {
		return sc.Parent
	}
	return t.Scope
}

// sortedKeys returns the keys of m in order (deterministic facts).
func sortedKeys(m map[string]any) []string {
	return slices.Sorted(maps.Keys(m))
}
