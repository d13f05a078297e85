package engine

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/gobpm/gobpm/internal/bpmn"
	"github.com/gobpm/gobpm/internal/scope"
)

// Migrate moves a running (or failed) instance to another version of its
// process in one step (Camunda's process instance migration). Every active
// element — track nodes, the scopes they host, waits, incidents,
// multi-instance bodies, ad-hoc regions, compensation entries — moves to
// the element Mapping names for it, or to the element with the same id
// when Mapping names none. Nothing runs: a waiting job, task, timer or
// subscription keeps waiting at its new element, which takes over its
// definition (a job's type and headers, a task's name and — when the
// target declares them — assignee and candidates, a message's name and
// correlation key); a timer keeps its due time. Boundary events and event
// sub-processes are armed again from the target: waits of source ones
// that have no counterpart are withdrawn, target ones that had none are
// armed. The step is refused, with every problem named, unless the plan
// fits the instance (CheckMigration).
//
// Apply a Migrate with the source process; the step ends with the state on
// Target, at ProcessVersion TargetVersion.
type Migrate struct {
	Target        *bpmn.Process
	TargetVersion int
	// Mapping maps source element ids to target element ids; an element
	// it does not name maps to the target element with the same id.
	Mapping map[string]string
	// By is the operator ("" when nobody in particular), named in the fact.
	By string
}

// Kind implements Event.
func (Migrate) Kind() string { return "migrate" }

// applyRunning moves the instance to another version of its process.
func (e Migrate) applyRunning(x *executor) error { return x.migrate(e) }

// FactInstanceMigrated records a migration: detail fromVersion,
// toVersion, by and the elements that changed id (mapping).
const FactInstanceMigrated = "instance-migrated"

// ErrInvalidMigration reports a migration plan that does not fit the
// models or the instance; MigrationError lists why.
var ErrInvalidMigration = errors.New("invalid migration")

// MigrationProblem is one reason a migration plan does not fit: the source
// element it is about ("" for the plan as a whole) and what is wrong.
type MigrationProblem struct {
	Element string
	Message string
}

// MigrationError is a refused migration with every problem found; it
// wraps ErrInvalidMigration.
type MigrationError struct {
	Instance string
	Problems []MigrationProblem
}

// Error implements error.
func (e *MigrationError) Error() string {
	msgs := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		msgs[i] = p.Message
	}
	return fmt.Sprintf("engine: migrate instance %s: %s: %v", e.Instance, strings.Join(msgs, "; "), ErrInvalidMigration)
}

// Unwrap returns ErrInvalidMigration.
func (e *MigrationError) Unwrap() error { return ErrInvalidMigration }

// CheckMigrationPlan checks a mapping against both models, before any
// instance is looked at: every key must be an element of src and every
// value an element of dst.
func CheckMigrationPlan(src, dst *bpmn.Process, mapping map[string]string) []MigrationProblem {
	var out []MigrationProblem
	for _, from := range slices.Sorted(maps.Keys(mapping)) {
		to := mapping[from]
		if src.Node(from) == nil {
			out = append(out, MigrationProblem{Element: from, Message: fmt.Sprintf("mapping: the source version of %s has no element %q", src.ID, from)})
		}
		if dst.Node(to) == nil {
			out = append(out, MigrationProblem{Element: from, Message: fmt.Sprintf("mapping: %s maps to %q, which the target version of %s does not have", from, to, dst.ID)})
		}
	}
	return out
}

// CheckMigration returns every problem of migrating st (an instance of
// src) by m, in the order the elements were met; none means Migrate
// applies. It changes nothing.
func CheckMigration(src *bpmn.Process, st *State, m Migrate, opts Options) []MigrationProblem {
	x := &executor{proc: src, st: st, opts: opts.WithDefaults()}
	return x.migrationProblems(m)
}

// migrator holds what a migration check or step needs.
type migrator struct {
	x        *executor
	src, dst *bpmn.Process
	m        Migrate
	problems []MigrationProblem
	seen     map[string]bool // problems already reported, by text
}

// to returns the target id of source element id.
func (g *migrator) to(id string) string {
	if t, ok := g.m.Mapping[id]; ok {
		return t
	}
	return id
}

// problem records one problem about source element el.
func (g *migrator) problem(el, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if g.seen[msg] {
		return
	}
	g.seen[msg] = true
	g.problems = append(g.problems, MigrationProblem{Element: el, Message: msg})
}

// target returns the target node of source element id, reporting a
// problem (and nil) when either side lacks it.
func (g *migrator) target(id, what string) (*bpmn.Node, *bpmn.Node) {
	sn := g.src.Node(id)
	if sn == nil {
		g.problem(id, "%s %s: the source version has no such element (the instance does not fit its version)", what, id)
		return nil, nil
	}
	tn := g.dst.Node(g.to(id))
	if tn == nil {
		if !g.seen["missing "+id] { // said once per element, however many of its parts are active
			g.seen["missing "+id] = true
			g.problem(id, "%s %s is active and maps to %s, which the target version does not have", what, id, mapped(id, g.to(id)))
		}
		return sn, nil
	}
	return sn, tn
}

// mapped names a target id for messages.
func mapped(from, to string) string {
	if from == to {
		return fmt.Sprintf("%q (the same id)", to)
	}
	return fmt.Sprintf("%q", to)
}

// ownerID is the id of n's container ("" for the process level).
func ownerID(n *bpmn.Node) string {
	if n.Parent == nil || n.Parent.Owner == nil {
		return ""
	}
	return n.Parent.Owner.ID
}

// compatible reports a problem unless target element tn can take over the
// active source element sn: the same kind of element (a job stays a job),
// inside the target of sn's container, multi-instance as sn is.
func (g *migrator) compatible(sn, tn *bpmn.Node) bool {
	ok := true
	if sn.Kind != tn.Kind && (sn.Job == nil || tn.Job == nil) {
		g.problem(sn.ID, "%s is a %s but %s in the target version is a %s", sn.ID, sn.Kind, tn.ID, tn.Kind)
		ok = false
	}
	switch {
	case (sn.Loop != nil) != (tn.Loop != nil):
		g.problem(sn.ID, "%s %s a multi-instance or loop activity but %s %s", sn.ID, isNot(sn.Loop != nil), tn.ID, isNot(tn.Loop != nil))
		ok = false
	case sn.Loop != nil && (sn.Loop.Standard != tn.Loop.Standard):
		g.problem(sn.ID, "%s and %s loop differently (a standard loop and a multi-instance)", sn.ID, tn.ID)
		ok = false
	}
	if (sn.AdHoc != nil) != (tn.AdHoc != nil) || sn.TriggeredByEvent != tn.TriggeredByEvent || sn.ForCompensation != tn.ForCompensation {
		g.problem(sn.ID, "%s and %s are different kinds of element (ad-hoc, event sub-process or compensation handler)", sn.ID, tn.ID)
		ok = false
	}
	if sc, tc := ownerID(sn), ownerID(tn); sn.AttachedTo == nil && tc != g.toOwner(sc) {
		g.problem(sn.ID, "%s is inside %s but %s is inside %s; an element must stay inside the target of its container (%s)", sn.ID, containerText(sc), tn.ID, containerText(tc), containerText(g.toOwner(sc)))
		ok = false
	}
	return ok
}

// toOwner maps a container id ("" for the process level).
func (g *migrator) toOwner(id string) string {
	if id == "" {
		return ""
	}
	return g.to(id)
}

func containerText(id string) string {
	if id == "" {
		return "the process level"
	}
	return id
}

func isNot(b bool) string {
	if b {
		return "is"
	}
	return "is not"
}

// migrationProblems checks m against the executor's state.
func (x *executor) migrationProblems(m Migrate) []MigrationProblem {
	if m.Target == nil {
		return []MigrationProblem{{Message: "no target process"}}
	}
	g := &migrator{x: x, src: x.proc, dst: m.Target, m: m, seen: map[string]bool{}}
	g.problems = append(g.problems, CheckMigrationPlan(g.src, g.dst, m.Mapping)...)
	g.walk()
	return g.problems
}

// walk checks every active element of the state.
func (g *migrator) walk() {
	x := g.x
	for _, sc := range x.st.Scopes.All() {
		if sc.NodeID == "" {
			continue
		}
		if sn, tn := g.target(sc.NodeID, "scope of"); tn != nil {
			g.compatible(sn, tn)
			if sc.Kind == scopeKindIO && ownsIO(sn) && !ownsIO(tn) && !g.hasInputs(sc.ID) {
				// (An io scope of an element without mappings holds an
				// activation's or a job failure's local variables: no
				// outputs depend on it.)
				g.problem(sn.ID, "%s runs with input/output mappings but %s declares none", sn.ID, tn.ID)
			}
		}
	}
	for _, t := range x.st.Tracks {
		sn, tn := g.target(t.Node, "element")
		if tn == nil || !g.compatible(sn, tn) {
			continue
		}
		if t.State == TrackWaiting || t.State == TrackIncident {
			if sc := x.st.Scopes.Get(t.Scope); ownsIO(tn) && (sc == nil || sc.Kind != scopeKindIO || sc.NodeID != t.Node) && sn.Sub == nil {
				g.problem(sn.ID, "%s declares input/output mappings but %s was entered without them", tn.ID, sn.ID)
			}
		}
		if t.Via != "" && g.flowTo(t, sn, tn) == "" {
			g.problem(sn.ID, "a token waits at %s for the flow %s, which has no counterpart into %s in the target version", sn.ID, t.Via, tn.ID)
		}
	}
	for _, w := range x.st.Waits {
		g.checkWait(w)
	}
	for _, in := range x.st.Incidents {
		if in.NodeID != "" {
			g.target(in.NodeID, "incident at")
		}
	}
	for _, b := range x.st.Bodies {
		g.target(b.NodeID, "multi-instance")
	}
	for _, r := range x.st.Regions {
		sn, tn := g.target(r.NodeID, "ad-hoc sub-process")
		if tn == nil || tn.AdHoc == nil || sn == nil {
			continue
		}
		for _, id := range r.Offer {
			if c := g.dst.Node(g.to(id)); c == nil || ownerID(c) != tn.ID {
				g.problem(id, "%s is offered in %s but %s is not an activity of %s in the target version", id, sn.ID, mapped(id, g.to(id)), tn.ID)
			}
		}
	}
	for _, e := range x.st.Entries {
		g.target(e.NodeID, "completed activity (compensation)")
	}
}

// hasInputs reports whether an io scope holds the inputs of an ad-hoc
// activation (a track with Inputs runs in it).
func (g *migrator) hasInputs(s scope.ID) bool {
	for _, t := range g.x.st.Tracks {
		if t.Scope == s && len(t.Inputs) > 0 {
			return true
		}
	}
	return false
}

// flowTo returns the target flow into tn that corresponds to the flow a
// joining track t arrived on: one from the target of that flow's source.
func (g *migrator) flowTo(t *Track, sn, tn *bpmn.Node) string {
	var from string
	for _, f := range sn.Incoming {
		if f.ID == t.Via && f.Source != nil {
			from = f.Source.ID
		}
	}
	if from == "" {
		return ""
	}
	for _, f := range tn.Incoming {
		if f.Source != nil && f.Source.ID == g.to(from) {
			return f.ID
		}
	}
	return ""
}

// waitTrigger is the event kind a wait of kind k waits for.
func waitTrigger(k WaitKind) bpmn.TriggerKind {
	switch k {
	case WaitTimer:
		return bpmn.TriggerTimer
	case WaitMessage:
		return bpmn.TriggerMessage
	case WaitSignal:
		return bpmn.TriggerSignal
	case WaitCondition:
		return bpmn.TriggerConditional
	}
	return bpmn.TriggerNone
}

// triggerOf returns the definition of n catching kind k, or nil.
func triggerOf(n *bpmn.Node, k bpmn.TriggerKind) *bpmn.EventDef {
	ev := n.Event
	if n.TriggeredByEvent && n.Trigger != nil {
		ev = n.Trigger.Event
	}
	for _, d := range ev.Triggers() {
		if d.Kind == k {
			return d
		}
	}
	return nil
}

// keeps reports whether wait w of a boundary event or event sub-process
// has a counterpart in the target (else it is withdrawn and the target's
// are armed), and returns it.
func (g *migrator) keeps(w *Wait) *bpmn.Node {
	tn := g.dst.Node(g.to(w.NodeID))
	if tn == nil {
		return nil
	}
	if w.Boundary {
		sn := g.src.Node(w.NodeID)
		if sn == nil || sn.AttachedTo == nil || tn.AttachedTo == nil || tn.AttachedTo.ID != g.to(sn.AttachedTo.ID) {
			return nil
		}
	}
	if w.Handler {
		sn := g.src.Node(w.NodeID)
		if sn == nil || !tn.TriggeredByEvent || ownerID(tn) != g.toOwner(ownerID(sn)) {
			return nil
		}
	}
	if triggerOf(tn, waitTrigger(w.Kind)) == nil {
		return nil
	}
	return tn
}

// checkWait reports the problems of moving wait w.
func (g *migrator) checkWait(w *Wait) {
	if w.Kind == WaitOffer {
		return // checked with its region
	}
	if IsRouterJob(w) {
		if _, tn := g.target(w.NodeID, "ad-hoc sub-process"); tn != nil && (tn.AdHoc == nil || tn.AdHoc.RouterType == "") {
			g.problem(w.NodeID, "%s waits for its router job but %s has no job router in the target version", w.NodeID, tn.ID)
		}
		return
	}
	if w.Boundary || w.Handler {
		return // re-armed from the target: withdrawn when it has no counterpart
	}
	sn, tn := g.target(w.NodeID, "wait at")
	if tn == nil {
		return
	}
	if w.Listener != "" {
		// The element has not started: its listener's job has no
		// counterpart a migration could map it to.
		g.problem(sn.ID, "%s waits for the job of its %s execution listener; migrate the instance once the listener has completed", sn.ID, w.Listener)
		return
	}
	switch w.Kind {
	case WaitJob:
		if tn.Job == nil {
			g.problem(sn.ID, "%s waits for a job but %s creates none in the target version (it is a %s)", sn.ID, tn.ID, tn.Kind)
		} else if _, err := g.jobType(w, tn); err != nil {
			g.problem(sn.ID, "%s: job type of %s: %v", sn.ID, tn.ID, err)
		}
	case WaitTask:
		if tn.Kind != bpmn.KindUserTask {
			g.problem(sn.ID, "%s waits as a user task but %s is a %s in the target version", sn.ID, tn.ID, tn.Kind)
		}
	case WaitCall:
		if tn.Call == nil {
			g.problem(sn.ID, "%s waits for a called instance but %s is a %s in the target version", sn.ID, tn.ID, tn.Kind)
		}
	case WaitTrigger:
		if tn.Kind != bpmn.KindReceiveTask || tn.Event != nil {
			g.problem(sn.ID, "%s waits to be triggered but %s is not a receive task without a messageRef in the target version", sn.ID, tn.ID)
		}
	default:
		k := waitTrigger(w.Kind)
		if triggerOf(tn, k) == nil {
			g.problem(sn.ID, "%s waits for a %s but %s catches no %s in the target version", sn.ID, k, tn.ID, k)
		} else if _, err := g.eventName(w, tn); err != nil {
			g.problem(sn.ID, "%s: %v", sn.ID, err)
		}
	}
}

// jobType is the type the job of wait w gets at target node tn.
func (g *migrator) jobType(w *Wait, tn *bpmn.Node) (string, error) {
	if tn.Job.TypeExpr == nil {
		return tn.Job.Type, nil
	}
	v, err := tn.Job.TypeExpr.Eval(g.x.view(w.ScopeID))
	if err != nil {
		return "", err
	}
	s, ok := v.(string)
	if !ok || strings.TrimSpace(s) == "" {
		return "", fmt.Errorf("%s yields %s, not a non-empty string", tn.Job.TypeExpr.Source(), describeValue(v))
	}
	return s, nil
}

// eventName returns the name and correlation key wait w (a message or
// signal subscription) gets at target node tn.
func (g *migrator) eventName(w *Wait, tn *bpmn.Node) ([2]string, error) {
	d := triggerOf(tn, waitTrigger(w.Kind))
	switch w.Kind {
	case WaitMessage:
		key := ""
		if d.CorrelationKey != nil {
			v, err := d.CorrelationKey.Eval(g.x.view(w.ScopeID))
			if err != nil {
				return [2]string{}, fmt.Errorf("correlation key of %s: %w", tn.ID, err)
			}
			key = keyText(v)
		}
		return [2]string{d.MessageName, key}, nil
	case WaitSignal:
		return [2]string{d.SignalName, ""}, nil
	}
	return [2]string{w.Name, w.CorrelationKey}, nil
}

// migrate applies a Migrate.
func (x *executor) migrate(e Migrate) error {
	if problems := x.migrationProblems(e); len(problems) > 0 {
		return &MigrationError{Instance: x.st.InstanceID, Problems: problems}
	}
	g := &migrator{x: x, src: x.proc, dst: e.Target, m: e, seen: map[string]bool{}}
	x.by = e.By
	from := x.st.ProcessVersion
	renamed := map[string]any{}
	rename := func(id string) string {
		to := g.to(id)
		if to != id {
			renamed[id] = to
		}
		return to
	}
	// Waits first: they are matched against the source ids.
	var withdraw []*Wait
	for _, w := range x.st.Waits {
		switch {
		case IsRouterJob(w):
			w.Name = g.dst.Node(g.to(w.NodeID)).AdHoc.RouterType
		case w.Kind == WaitOffer:
			// renamed with its region below (syncOffer)
		case w.Boundary || w.Handler:
			tn := g.keeps(w)
			if tn == nil {
				withdraw = append(withdraw, w)
				continue
			}
			if names, err := g.eventName(w, tn); err == nil {
				w.Name, w.CorrelationKey = names[0], names[1]
			} else {
				withdraw = append(withdraw, w) // armed again from the target, which raises the incident
				continue
			}
		default:
			tn := g.dst.Node(g.to(w.NodeID))
			g.moveWait(w, tn)
		}
		w.NodeID = rename(w.NodeID)
		x.touch(w.ID)
	}
	for _, w := range withdraw {
		x.removeWait(w)
	}
	for _, sc := range x.st.Scopes.All() {
		if sc.NodeID != "" {
			sc.NodeID = rename(sc.NodeID)
			x.st.Scopes.Touch(sc.ID)
		}
	}
	for _, sc := range x.st.Scopes.All() {
		if p := scopePath(x.st.Scopes, sc); p != sc.Path {
			sc.Path = p
			x.st.Scopes.Touch(sc.ID)
		}
	}
	for _, t := range x.st.Tracks {
		sn := g.src.Node(t.Node)
		tn := g.dst.Node(g.to(t.Node))
		if t.Via != "" {
			t.Via = g.flowTo(t, sn, tn)
		}
		t.Node = rename(t.Node)
		x.markTrack(t)
	}
	for _, in := range x.st.Incidents {
		if in.NodeID != "" {
			in.NodeID = rename(in.NodeID)
		}
		x.markIncident(in)
		x.fx.Incidents = append(x.fx.Incidents, *in)
	}
	for _, b := range x.st.Bodies {
		b.NodeID = rename(b.NodeID)
		x.markBody(b.ScopeID)
	}
	for _, r := range x.st.Regions {
		g.moveRegion(r, rename)
		x.markRegion(r.ScopeID)
		x.syncOffer(r)
	}
	for _, en := range x.st.Entries {
		en.NodeID = rename(en.NodeID)
		x.markEntry(en)
	}
	x.proc = e.Target
	x.st.ProcessKey, x.st.ProcessVersion = e.Target.ID, e.TargetVersion
	detail := map[string]any{"fromVersion": from, "toVersion": e.TargetVersion}
	if e.By != "" {
		detail["by"] = e.By
	}
	if len(renamed) > 0 {
		detail["mapping"] = renamed
	}
	x.fact(FactInstanceMigrated, "", scope.RootID, "", detail)
	x.rearmTarget()
	return nil
}

// moveWait makes a track's own wait w one of target node tn.
func (g *migrator) moveWait(w *Wait, tn *bpmn.Node) {
	switch w.Kind {
	case WaitJob:
		w.Name, _ = g.jobType(w, tn) // checked by checkWait
		w.CustomHeaders = maps.Clone(tn.Job.Headers)
	case WaitTask:
		w.Name = tn.Name
		if w.Name == "" {
			w.Name = tn.ID
		}
		if def := tn.UserTask; def != nil {
			t := g.x.st.Track(w.TrackID)
			if t == nil {
				return
			}
			if def.Assignee != nil {
				if l, err := g.x.bindingList(t, def.Assignee); err == nil && len(l) > 0 {
					w.Assignee = l[0]
				}
			}
			if def.CandidateUsers != nil {
				if l, err := g.x.bindingList(t, def.CandidateUsers); err == nil {
					w.CandidateUsers = l
				}
			}
			if def.CandidateGroups != nil {
				if l, err := g.x.bindingList(t, def.CandidateGroups); err == nil {
					w.CandidateGroups = l
				}
			}
		}
	case WaitTimer:
		if d := triggerOf(tn, bpmn.TriggerTimer); d != nil && d.Timer != nil && d.Timer.Expr == nil {
			w.TimerKind, w.TimerText = string(d.Timer.Kind), d.Timer.Text // the due time stays
		}
	case WaitMessage, WaitSignal:
		if names, err := g.eventName(w, tn); err == nil {
			w.Name, w.CorrelationKey = names[0], names[1]
		}
	}
}

// moveRegion renames the activities an ad-hoc region remembers; completions
// of activities the target region does not have are dropped.
func (g *migrator) moveRegion(r *Region, rename func(string) string) {
	r.NodeID = rename(r.NodeID)
	inTarget := func(id string) bool { n := g.dst.Node(id); return n != nil && ownerID(n) == r.NodeID }
	if len(r.Completed) > 0 {
		done := map[string]int{}
		for id, n := range r.Completed {
			if to := g.to(id); inTarget(to) {
				done[to] += n
			}
		}
		r.Completed = done
	}
	for i, id := range r.Offer {
		r.Offer[i] = rename(id)
	}
	mapList := func(l []string) []string {
		out := l[:0]
		for _, id := range l {
			if to := g.to(id); inTarget(to) || to == r.NodeID {
				out = append(out, to)
			}
		}
		return out
	}
	r.Triggers, r.Pending = mapList(r.Triggers), mapList(r.Pending)
	if len(r.Proposed) > 0 {
		p := make(map[string]map[string]any, len(r.Proposed))
		for id, v := range r.Proposed {
			p[g.to(id)] = v
		}
		r.Proposed = p
	}
}

// scopePath is the display path of sc from its ancestors' node ids.
func scopePath(t *scope.Tree, sc *scope.Scope) string {
	if sc.Parent == "" || sc.NodeID == "" {
		return sc.Path
	}
	p := t.Get(sc.Parent)
	if p == nil {
		return sc.Path
	}
	pp := scopePath(t, p)
	if pp == "/" {
		return "/" + sc.NodeID
	}
	return pp + "/" + sc.NodeID
}

// rearmTarget arms, on the target, the boundary events of every active activity
// and the event sub-processes of every open scope that have no wait yet.
func (x *executor) rearmTarget() {
	armed := map[string]bool{} // "track|node" and "scope|node" with a wait
	for _, w := range x.st.Waits {
		switch {
		case w.Boundary:
			armed[w.TrackID+"|"+w.NodeID] = true
		case w.Handler:
			armed[string(w.ScopeID)+"|"+w.NodeID] = true
		}
	}
	for _, t := range slices.Clone(x.st.Tracks) {
		if t.Inner || (t.State != TrackWaiting && t.State != TrackInScope) {
			continue
		}
		n := x.proc.Node(t.Node)
		if n == nil || n.Kind == bpmn.KindEventBasedGateway || n.AttachedTo != nil {
			continue
		}
	boundaries:
		for _, b := range n.Boundaries {
			if armed[t.ID+"|"+b.ID] {
				continue
			}
			for _, ev := range b.Event.Triggers() {
				switch ev.Kind {
				case bpmn.TriggerTimer, bpmn.TriggerMessage, bpmn.TriggerSignal, bpmn.TriggerConditional:
					if !x.subscribe(t, b, ev, true, false) {
						break boundaries // t stopped in an incident naming the boundary
					}
				}
			}
		}
	}
	for _, sc := range x.st.Scopes.All() {
		g := x.graphOf(sc.ID)
		if g == nil || sc.Interrupted {
			continue
		}
		for _, esp := range g.EventSubs {
			if armed[string(sc.ID)+"|"+esp.ID] || esp.Trigger == nil || esp.Trigger.Event == nil || esp.Trigger.Event.Kind == bpmn.TriggerCompensation {
				continue
			}
			var err error
			for _, ev := range esp.Trigger.Event.Triggers() {
				if _, err = x.arm(sc.ID, esp, ev, func() *Wait {
					w := x.allocWait("", esp.ID, sc.ID)
					w.Handler = true
					return w
				}); err != nil {
					break
				}
			}
			if err != nil {
				x.scopeIncident(sc.ID, esp.ID, IncidentTimer, err.Error())
				continue
			}
			x.fact(FactHandlerArmed, esp.ID, sc.ID, "", map[string]any{"trigger": string(esp.Trigger.Event.Kind), "interrupting": esp.Interrupting, "by": "migration"})
		}
	}
}
