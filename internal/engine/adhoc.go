package engine

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/gobpm/gobpm/internal/bpmn"
	"github.com/gobpm/gobpm/internal/expr"
	"github.com/gobpm/gobpm/internal/scope"
)

// Region is the progress of an open ad-hoc sub-process (docs/scopes.md#ad-hoc-sub-processes); it lives
// in the checkpoint as long as the region's scope is open.
type Region struct {
	ScopeID scope.ID `json:"scope"`
	NodeID  string   `json:"node"`
	// Completed counts completions per inner activity.
	Completed map[string]int `json:"completed,omitempty"`
	// Offer is the candidate set of a manual region (a wait state).
	Offer []string `json:"offer,omitempty"`
	// Stopped says why the router is no longer asked ("" while it is).
	Stopped string `json:"stopped,omitempty"`
	// RouterJob is the outstanding job of a job router ("" when none);
	// Triggers are the completions it was asked about.
	RouterJob string   `json:"routerJob,omitempty"`
	Triggers  []string `json:"triggers,omitempty"`
	// Pending are completions that asked while RouterJob was outstanding;
	// Reask says the router is asked again once it is answered.
	Pending []string `json:"pending,omitempty"`
	Reask   bool     `json:"reask,omitempty"`
	// Proposed are the variables a job router proposed for the activities
	// of its offer (manual selection), by activity id.
	Proposed map[string]map[string]any `json:"proposed,omitempty"`
}

func (r *Region) clone() *Region {
	c := *r
	c.Completed = maps.Clone(r.Completed)
	c.Offer = slices.Clone(r.Offer)
	c.Triggers = slices.Clone(r.Triggers)
	c.Pending = slices.Clone(r.Pending)
	if r.Proposed != nil {
		c.Proposed = make(map[string]map[string]any, len(r.Proposed))
		for k, v := range r.Proposed {
			c.Proposed[k] = scope.CloneVars(v)
		}
	}
	return &c
}

// Snapshot is the consistent, read-only view a Router decides on.
type Snapshot struct {
	// Region is the ad-hoc sub-process's id; Activities its inner activities.
	Region     string
	Activities []string
	// Completed counts completions per activity; Running lists the inner
	// activities running now (an id once per running instance).
	Completed map[string]int
	Running   []string
	// Trigger is the activity whose completion asks ("" when the region opens).
	Trigger string
	// Lookup reads the region's variables with walk-up.
	Lookup func(name string) (any, bool)
	// Now is the time of the step asking; expressions read it as now().
	Now time.Time
	// Limits bound the router's expression evaluations (Options.Eval).
	Limits expr.Limits
}

// Router decides what runs next inside an ad-hoc region. It never writes
// and never blocks; an error or an unknown id becomes an incident.
type Router interface {
	Next(s Snapshot) ([]string, error)
}

// Ad-hoc facts.
const (
	FactRegionOpened   = "adhoc-region-opened"
	FactCandidates     = "adhoc-candidates-offered"
	FactAdHocActivated = "adhoc-activity-activated"
	FactRegionStopped  = "adhoc-region-stopped"
	IncidentRouter     = "router-failed"
	reasonCondition    = "completion condition"
	reasonRouterEmpty  = "router answered nothing"
)

// RouterFor returns the built-in router an ad-hoc sub-process declares. A
// job router (bpmn.RouterJob) has none: its answer comes from a worker
// (adhoc_job.go).
func RouterFor(n *bpmn.Node) (Router, error) {
	if n.AdHoc == nil {
		return nil, fmt.Errorf("%s is not an ad-hoc sub-process", n.ID)
	}
	switch n.AdHoc.Router {
	case "standard":
		var initial []string
		for _, a := range n.Sub.Nodes {
			if IsRoutable(a) && len(a.Incoming) == 0 {
				initial = append(initial, a.ID)
			}
		}
		return standardRouter{initial: initial, reoffer: n.AdHoc.Reoffer}, nil
	case "expression":
		return expressionRouter{e: n.AdHoc.RouterExpr}, nil
	case "sequence":
		return sequenceRouter{seq: n.AdHoc.Sequence}, nil
	}
	return nil, fmt.Errorf("unknown router %q", n.AdHoc.Router)
}

// standardRouter: every inner activity without incoming flows, each once;
// with reoffer (gobpm:reoffer), again after it completed.
type standardRouter struct {
	initial []string
	reoffer bool
}

func (r standardRouter) Next(s Snapshot) ([]string, error) {
	var out []string
	for _, id := range r.initial {
		if (r.reoffer || s.Completed[id] == 0) && !slices.Contains(s.Running, id) {
			out = append(out, id)
		}
	}
	return out, nil
}

// sequenceRouter: a fixed order, one at a time.
type sequenceRouter struct{ seq []string }

func (r sequenceRouter) Next(s Snapshot) ([]string, error) {
	done := 0
	for _, id := range r.seq {
		done += s.Completed[id]
	}
	if done >= len(r.seq) || slices.Contains(s.Running, r.seq[done]) {
		return nil, nil
	}
	return []string{r.seq[done]}, nil
}

// expressionRouter evaluates a FEEL expression over the snapshot: the
// region's variables plus completed (a context of counts), running (a list),
// trigger and activities.
type expressionRouter struct{ e expr.Expression }

func (r expressionRouter) Next(s Snapshot) ([]string, error) {
	completed := map[string]any{}
	for k, v := range s.Completed {
		completed[k] = v
	}
	running := make([]any, len(s.Running))
	for i, id := range s.Running {
		running[i] = id
	}
	acts := make([]any, len(s.Activities))
	for i, id := range s.Activities {
		acts[i] = id
	}
	var trigger any
	if s.Trigger != "" {
		trigger = s.Trigger
	}
	v, err := r.e.Eval(snapshotScope{s: s, fixed: map[string]any{"completed": completed, "running": running, "trigger": trigger, "activities": acts}})
	if err != nil {
		return nil, err
	}
	switch v := v.(type) {
	case nil:
		return nil, nil
	case string:
		return []string{v}, nil
	case []any:
		out := make([]string, 0, len(v))
		for _, e := range v {
			id, ok := e.(string)
			if !ok {
				return nil, fmt.Errorf("router expression yields %v, not a list of activity ids", v)
			}
			out = append(out, id)
		}
		return out, nil
	}
	return nil, fmt.Errorf("router expression yields %v, not a list of activity ids", v)
}

type snapshotScope struct {
	s     Snapshot
	fixed map[string]any
}

func (v snapshotScope) Lookup(name string) (any, bool) {
	if x, ok := v.fixed[name]; ok {
		return x, true
	}
	return v.s.Lookup(name)
}

// Now returns the snapshot's step time (snapshotScope is a feel.Clock).
func (v snapshotScope) Now() time.Time { return v.s.Now }

// EvalLimits returns the snapshot's limits (snapshotScope is a feel.Limited).
func (v snapshotScope) EvalLimits() expr.Limits { return v.s.Limits }

// WaitOffer mirrors a manual region's open offer as a wait (owned by the
// region's scope), so the offer is queryable like any other wait state.
const WaitOffer WaitKind = "offer"

// syncOffer keeps the offer wait of region r in line with r.Offer.
func (x *executor) syncOffer(r *Region) {
	var w *Wait
	for _, o := range x.st.Waits {
		if o.Kind == WaitOffer && o.ScopeID == r.ScopeID {
			w = o
		}
	}
	names := strings.Join(r.Offer, ",")
	switch {
	case len(r.Offer) == 0 && w != nil:
		x.removeWait(w)
	case len(r.Offer) > 0 && w == nil:
		w = x.allocWait(WaitOffer, r.NodeID, r.ScopeID)
		w.Handler, w.Name = true, names
	case w != nil && w.Name != names:
		w.Name = names
		x.touch(w.ID)
	}
}

// scopeHasIncident reports an open incident that belongs to scope s itself
// (not to a track).
func (x *executor) scopeHasIncident(s scope.ID) bool {
	for _, in := range x.st.Incidents {
		if in.TrackID == "" && in.ScopeID == s {
			return true
		}
	}
	return false
}

// retryRegion asks a region's router again after its failure was retried.
func (x *executor) retryRegion(s scope.ID) {
	r := x.st.region(s)
	if r == nil {
		return
	}
	n := x.proc.Node(r.NodeID)
	if answer, ok := x.ask(nil, n, r, ""); ok {
		x.route(nil, n, r, answer)
	}
	x.checkDrain(s)
}

// innerOf returns the region whose inner activity n track t just completed.
func (x *executor) innerOf(t *Track, n *bpmn.Node) *Region {
	r := x.st.region(t.Scope)
	if r == nil || !IsRoutable(n) {
		return nil
	}
	if g := x.graphOf(t.Scope); g == nil || n.Parent != g {
		return nil
	}
	return r
}

// enterRegion opens an ad-hoc region for track t (like a sub-process) and
// asks its router for the initially enabled activities.
func (x *executor) enterRegion(t *Track, n *bpmn.Node) {
	if n.AdHoc == nil || n.Sub == nil {
		x.incident(t, IncidentUnknownModel, fmt.Sprintf("ad-hoc sub-process %s has no configuration", n.ID))
		return
	}
	names, vals, ok := x.inputs(t, n, t.Scope)
	if !ok {
		return
	}
	child, err := x.st.Scopes.Open(t.Scope, n.ID, n.Sub.DataNames)
	if err != nil {
		x.incident(t, IncidentUnknownModel, err.Error())
		return
	}
	t.State, t.Child = TrackInScope, child.ID
	x.markTrack(t)
	x.writeLocals(t, child, names, vals)
	x.writeActivation(t, child)
	r := &Region{ScopeID: child.ID, NodeID: n.ID, Completed: map[string]int{}}
	x.st.Regions = append(x.st.Regions, r)
	x.markRegion(r.ScopeID)
	x.fact(FactScopeOpened, n.ID, child.ID, t.ID, nil)
	x.fact(FactRegionOpened, n.ID, child.ID, t.ID, map[string]any{"router": n.AdHoc.Router, "manual": n.AdHoc.Manual, "sequential": n.AdHoc.Sequential})
	x.armScope(child.ID) // its event sub-processes, as in any scope
	x.armBoundaries(t, n)
	answer, ok := x.ask(nil, n, r, "")
	if ok {
		x.route(nil, n, r, answer)
	}
	x.checkDrain(child.ID)
}

// ask asks the region's router; on failure it raises an incident on t (the
// asking track, or the region's host) and reports false.
//
// A job router answers later: ask hands it a job (requestRouter) and
// reports false with nothing to route; innerCompleted asks it itself.
func (x *executor) ask(t *Track, n *bpmn.Node, r *Region, trigger string) ([]string, bool) {
	if n.AdHoc.Router == bpmn.RouterJob {
		x.requestRouter(n, r, trigger)
		return nil, false
	}
	router, err := RouterFor(n)
	var answer []string
	if err == nil {
		answer, err = router.Next(x.snapshot(n, r, trigger, t))
	}
	if err == nil {
		err = x.checkAnswer(n, r, answer, t)
	}
	if err != nil {
		msg := fmt.Sprintf("router of %s: %v", n.ID, err)
		if t != nil {
			// The inner activity t completed; a retry asks again by leaving it.
			x.incident(t, IncidentRouter, msg)
			t.Done = true
			x.markTrack(t)
		} else {
			// Asked for the region as a whole: the region keeps running (its
			// host keeps waiting for it) and the incident belongs to its scope.
			x.scopeIncident(r.ScopeID, n.ID, IncidentRouter, msg)
		}
		return nil, false
	}
	return answer, true
}

// snapshot builds the router's view of a region.
func (x *executor) snapshot(n *bpmn.Node, r *Region, trigger string, skip *Track) Snapshot {
	var acts []string
	for _, a := range n.Sub.Nodes {
		if IsRoutable(a) {
			acts = append(acts, a.ID)
		}
	}
	tree, s := x.st.Scopes, r.ScopeID
	return Snapshot{Region: n.ID, Activities: acts, Completed: maps.Clone(r.Completed), Running: x.running(r, skip), Trigger: trigger,
		Lookup: func(name string) (any, bool) { return tree.Lookup(s, name) }, Now: x.now, Limits: x.opts.Eval}
}

// running lists the inner activities running in a region (once per
// instance), not counting skip (the track whose activity just completed).
func (x *executor) running(r *Region, skip *Track) []string {
	g := x.graphOf(r.ScopeID)
	var out []string
	for _, t := range x.st.Tracks {
		if x.flowScope(t) != r.ScopeID || t == skip {
			continue
		}
		if n := x.proc.Node(t.Node); n != nil && IsRoutable(n) && n.Parent == g {
			out = append(out, t.Node)
		}
	}
	return out
}

// route applies a router answer: automatic regions start it (the asking
// track t continues on the first activity, the others fork; no answer ends
// t), manual regions offer it.
func (x *executor) route(t *Track, n *bpmn.Node, r *Region, answer []string) {
	if n.AdHoc.Manual {
		if n.AdHoc.Sequential && len(x.running(r, t)) > 0 {
			answer = nil // the offer closes while an activity runs
		}
		r.Offer = answer
		x.markRegion(r.ScopeID)
		x.syncOffer(r)
		if len(answer) > 0 {
			x.fact(FactCandidates, n.ID, r.ScopeID, "", map[string]any{"candidates": toAny(answer)})
		}
		if t != nil {
			x.endTrack(t)
		}
		return
	}
	if len(answer) == 0 {
		if t != nil {
			x.endTrack(t)
		}
		return
	}
	for i, id := range answer {
		x.fact(FactAdHocActivated, id, r.ScopeID, "", map[string]any{"by": "router"})
		if i == 0 && t != nil {
			t.Node, t.Via, t.State = id, "", TrackReady
			x.markTrack(t)
			x.queue = append(x.queue, t.ID)
			continue
		}
		x.newTrack(r.ScopeID, id, "")
	}
}

// innerCompleted handles the completion of inner activity n of region r by
// track t: count it, check the completion condition, then let t follow the
// activity's own flows (if it has any) and ask the router what is next.
func (x *executor) innerCompleted(t *Track, n *bpmn.Node, r *Region) {
	region := x.proc.Node(r.NodeID)
	if r.Completed == nil {
		r.Completed = map[string]int{} // empty maps do not survive the checkpoint
	}
	r.Completed[n.ID]++
	x.markRegion(r.ScopeID)
	if r.Stopped != "" {
		x.leaveFlows(t, n)
		return
	}
	if c := region.AdHoc.CompletionCondition; c != nil {
		v, err := expr.Condition(c, x.view(r.ScopeID))
		if err != nil {
			x.incident(t, IncidentExpression, fmt.Sprintf("completion condition of %s: %v", region.ID, err))
			return
		}
		if v {
			x.stopRegion(r, region, reasonCondition)
			if region.AdHoc.CancelRemaining {
				x.removeTrack(t)
				x.cancelInside(r.ScopeID, "completion condition of "+region.ID)
				x.checkDrain(r.ScopeID)
				return
			}
			x.leaveFlows(t, n)
			return
		}
	}
	hasFlows := len(n.Outgoing) > 0
	if hasFlows {
		x.leaveFlows(t, n)
		if x.st.Track(t.ID) != nil && x.st.Track(t.ID).State == TrackIncident {
			return
		}
	}
	if region.AdHoc.Router == bpmn.RouterJob {
		// The worker answers later; the answer starts new tracks.
		x.requestRouter(region, r, n.ID)
		if !hasFlows {
			x.endTrack(t)
		}
		return
	}
	asker := t
	if hasFlows {
		asker = nil // t followed the activity's own flows
	}
	answer, ok := x.ask(asker, region, r, n.ID)
	if !ok {
		if asker != nil {
			r.Completed[n.ID]-- // counted again when the retry leaves the activity
		}
		return
	}
	if hasFlows {
		x.route(nil, region, r, answer)
		x.checkDrain(r.ScopeID)
		return
	}
	x.route(t, region, r, answer)
}

// stopRegion stops asking the router: the region drains with what runs.
func (x *executor) stopRegion(r *Region, n *bpmn.Node, reason string) {
	x.withdrawRouterJob(r)
	r.Stopped, r.Offer, r.Proposed = reason, nil, nil
	x.markRegion(r.ScopeID)
	x.syncOffer(r)
	x.fact(FactRegionStopped, n.ID, r.ScopeID, "", map[string]any{"reason": reason})
}

// closeRegion forgets the region of scope s when the scope closes.
func (x *executor) closeRegion(s scope.ID, reason string) {
	for i, r := range x.st.Regions {
		if r.ScopeID == s {
			if r.Stopped == "" {
				x.fact(FactRegionStopped, r.NodeID, s, "", map[string]any{"reason": reason})
			}
			x.st.Regions = append(x.st.Regions[:i], x.st.Regions[i+1:]...)
			x.markRegion(s)
			return
		}
	}
}

// activate starts candidates of a manual region for a user, each with
// its variables (or, without any, those a job router proposed for it): all
// or nothing.
func (x *executor) activate(e AdHocActivated) error {
	acts := e.activations()
	r := x.st.region(scope.ID(e.ScopeID))
	if r == nil {
		return fmt.Errorf("engine: activate %v: no open ad-hoc region %s: %w", activityIDs(acts), e.ScopeID, ErrInvalidTransition)
	}
	n := x.proc.Node(r.NodeID)
	if e.User == "" {
		return fmt.Errorf("engine: activate %v: no acting user: %w", activityIDs(acts), ErrForbidden)
	}
	if len(acts) == 0 {
		return fmt.Errorf("engine: activate in %s: no activity named: %w", r.NodeID, ErrInvalidTransition)
	}
	if sc := x.st.Scopes.Get(r.ScopeID); sc != nil && sc.Interrupted {
		return fmt.Errorf("engine: activate %v: region %s was interrupted by an event sub-process: %w", activityIDs(acts), r.NodeID, ErrInvalidTransition)
	}
	for _, a := range acts {
		if !slices.Contains(r.Offer, a.ActivityID) {
			return fmt.Errorf("engine: activate %s: it is not a candidate of %s (candidates: %v): %w", a.ActivityID, r.NodeID, r.Offer, ErrInvalidTransition)
		}
	}
	if n.AdHoc.Sequential && len(x.running(r, nil)) > 0 {
		return fmt.Errorf("engine: activate %s: sequential region %s already runs %v: %w", acts[0].ActivityID, r.NodeID, x.running(r, nil), ErrInvalidTransition)
	}
	if n.AdHoc.Sequential && len(acts) > 1 {
		return fmt.Errorf("engine: activate %v: sequential region %s runs one activity at a time: %w", activityIDs(acts), r.NodeID, ErrInvalidTransition)
	}
	for i, a := range acts {
		if len(a.Variables) == 0 && r.Proposed[a.ActivityID] != nil {
			acts[i].Variables = r.Proposed[a.ActivityID]
		}
	}
	x.start(r, acts, e.User, nil)
	if n.AdHoc.Sequential {
		r.Offer, r.Proposed = nil, nil
		x.markRegion(r.ScopeID)
		x.syncOffer(r)
		return nil
	}
	if n.AdHoc.Router == bpmn.RouterJob {
		return nil // the router's offer stands until it answers again
	}
	// Parallel: the offer stays open and is recomputed with the new activities running.
	answer, ok := x.ask(nil, n, r, "")
	if ok {
		x.route(nil, n, r, answer)
		x.checkDrain(r.ScopeID)
	}
	return nil
}

// completeRegion ends a region on request (a person, or a case worker's
// system): the router is no longer asked, the offer closes, and the
// region completes once nothing runs in it. A region with running
// activities is refused: they finish first, or a completion condition
// with cancelRemainingInstances cancels them.
func (x *executor) completeRegion(e AdHocCompleted) error {
	r := x.st.region(scope.ID(e.ScopeID))
	if r == nil {
		return fmt.Errorf("engine: complete ad-hoc region %s: it is not open: %w", e.ScopeID, ErrInvalidTransition)
	}
	if e.User == "" {
		return fmt.Errorf("engine: complete ad-hoc region %s: no acting user: %w", r.NodeID, ErrForbidden)
	}
	if run := x.running(r, nil); len(run) > 0 {
		return fmt.Errorf("engine: complete ad-hoc region %s: %v still run; they finish first: %w", r.NodeID, run, ErrInvalidTransition)
	}
	if x.tracksIn(r.ScopeID) > 0 || len(x.st.Scopes.Children(r.ScopeID)) > 0 {
		return fmt.Errorf("engine: complete ad-hoc region %s: inner flows still run; they finish first: %w", r.NodeID, ErrInvalidTransition)
	}
	for _, in := range slices.Clone(x.st.Incidents) {
		if in.ScopeID == r.ScopeID && in.TrackID == "" && in.Kind == IncidentRouter {
			x.resolveIncidentID(in.ID, "region completed")
		}
	}
	n := x.proc.Node(r.NodeID)
	x.stopRegion(r, n, "completed by "+e.User)
	x.checkDrain(r.ScopeID)
	return nil
}

// AdHocActivated asks a manual ad-hoc region to start candidates:
// ActivityID (with Variables) and Activations, in that order.
type AdHocActivated struct {
	ScopeID    string
	ActivityID string
	// Variables become local variables of ActivityID's scope.
	Variables map[string]any
	// Activations are further activities to start in the same step.
	Activations []Activation
	User        string
}

// Kind implements Event.
func (AdHocActivated) Kind() string { return "adhoc-activated" }

// applyRunning starts the candidates a manual ad-hoc region was asked to
// start.
func (e AdHocActivated) applyRunning(x *executor) error { return x.activate(e) }

// activations lists what e starts.
func (e AdHocActivated) activations() []Activation {
	var out []Activation
	if e.ActivityID != "" {
		out = append(out, Activation{ActivityID: e.ActivityID, Variables: e.Variables})
	}
	return append(out, e.Activations...)
}

// AdHocCompleted asks an ad-hoc region to complete (POST …/complete).
type AdHocCompleted struct {
	ScopeID string
	User    string
}

// Kind implements Event.
func (AdHocCompleted) Kind() string { return "adhoc-completed" }

// applyRunning completes the ad-hoc region it names.
func (e AdHocCompleted) applyRunning(x *executor) error { return x.completeRegion(e) }

func activityIDs(acts []Activation) []string {
	out := make([]string, len(acts))
	for i, a := range acts {
		out[i] = a.ActivityID
	}
	return out
}

func toAny(ids []string) []any {
	out := make([]any, len(ids))
	for i, id := range ids {
		out[i] = id
	}
	return out
}
