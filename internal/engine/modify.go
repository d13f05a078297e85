package engine

import (
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/gobpm/gobpm/internal/bpmn"
	"github.com/gobpm/gobpm/internal/scope"
)

// Modify changes where a running (or failed) instance stands, in one step:
// each instruction, in order, cancels element instances or starts an
// element anew (Camunda's process instance modification). An operator
// moves a token by cancelling it and starting the element it should be at;
// cancelling a track that stopped in an incident is the usual way out of
// one. A scope left with nothing running after the instructions is
// cancelled too, up to the instance, which then ends terminated.
type Modify struct {
	Instructions []Instruction
	// By is the operator ("" when nobody in particular), named in the facts.
	By string
}

// Kind implements Event.
func (Modify) Kind() string { return "modify" }

// applyRunning cancels and starts elements as the instructions say.
func (e Modify) applyRunning(x *executor) error { return x.modify(e) }

// Instruction is one change of a Modify: exactly one of Cancel and Activate.
type Instruction struct {
	Cancel   *CancelTarget
	Activate *ActivateTarget
}

// CancelTarget names what an instruction cancels: exactly one of a track
// (one element instance), a scope instance (with everything inside and the
// activity hosting it) or a node (every instance of the element: its
// tracks and the scopes it hosts).
type CancelTarget struct {
	TrackID string
	ScopeID scope.ID
	NodeID  string
}

// ActivateTarget names an element to start: a new track on it, in scope
// ScopeID when given — an instance of the element's container, or of a
// container around it, under which new instances of the containers in
// between are opened (Camunda 7's ancestor activity instance) — else in
// the one open instance of the container, opened (with its parents) when
// there is none. Variables are set in the scope the track starts in.
type ActivateTarget struct {
	NodeID    string
	ScopeID   scope.ID
	Variables map[string]any
}

// ErrInvalidModification reports an instruction that names nothing the
// instance has, or an element that cannot be started that way.
var ErrInvalidModification = errors.New("invalid modification")

// ErrAmbiguousScope reports an activation whose container has several open
// instances: the instruction must name one (ScopeID).
var ErrAmbiguousScope = errors.New("ambiguous scope")

// FactInstanceModified records a modification before the facts of its
// instructions.
const FactInstanceModified = "instance-modified"

// cancelledByModification names modifications in cancellation causes.
const cancelledByModification = "modification"

// modify applies a Modify. It checks every instruction against the state
// as it stands before changing anything where it can; an instruction that
// only fails after the ones before it (a track an earlier one cancelled)
// fails the whole step, and the caller discards the state.
func (x *executor) modify(e Modify) error {
	if len(e.Instructions) == 0 {
		return fmt.Errorf("engine: modify instance %s: no instructions: %w", x.st.InstanceID, ErrInvalidModification)
	}
	for i, in := range e.Instructions {
		if err := x.checkInstruction(in); err != nil {
			return fmt.Errorf("engine: modify instance %s: instruction %d: %w", x.st.InstanceID, i+1, err)
		}
	}
	x.by = e.By
	detail := map[string]any{"instructions": len(e.Instructions)}
	if e.By != "" {
		detail["by"] = e.By
	}
	x.fact(FactInstanceModified, "", scope.RootID, "", detail)
	emptied := map[scope.ID]bool{}
	for i, in := range e.Instructions {
		var err error
		if in.Cancel != nil {
			err = x.modifyCancel(*in.Cancel, emptied)
		} else {
			err = x.modifyActivate(*in.Activate)
		}
		if err != nil {
			return fmt.Errorf("engine: modify instance %s: instruction %d: %w", x.st.InstanceID, i+1, err)
		}
	}
	return x.cancelEmptied(emptied)
}

// checkInstruction validates an instruction against the current state.
func (x *executor) checkInstruction(in Instruction) error {
	switch {
	case (in.Cancel == nil) == (in.Activate == nil):
		return fmt.Errorf("give exactly one of cancel and activate: %w", ErrInvalidModification)
	case in.Cancel != nil:
		c := in.Cancel
		named := 0
		for _, s := range []string{c.TrackID, string(c.ScopeID), c.NodeID} {
			if s != "" {
				named++
			}
		}
		if named != 1 {
			return fmt.Errorf("cancel needs exactly one of trackId, scopeId and nodeId: %w", ErrInvalidModification)
		}
		_, err := x.cancelTracks(*c)
		return err
	default:
		a := in.Activate
		n := x.proc.Node(a.NodeID)
		if n == nil {
			return fmt.Errorf("activate: process %s has no element %q: %w", x.proc.ID, a.NodeID, ErrInvalidModification)
		}
		if err := Startable(n); err != nil {
			return err
		}
		if a.ScopeID != "" {
			_, err := x.checkHome(n, a.ScopeID)
			return err
		}
		_, err := x.homeOf(n, false)
		return err
	}
}

// Startable reports why a modification cannot start a new track on n (nil
// when it can): boundary events, event sub-processes, compensation handlers
// and elements inside ad-hoc sub-processes.
func Startable(n *bpmn.Node) error {
	switch {
	case n.AttachedTo != nil:
		return fmt.Errorf("activate: %s is a boundary event of %s; activate the element after it instead: %w", n.ID, n.AttachedTo.ID, ErrInvalidModification)
	case n.TriggeredByEvent:
		return fmt.Errorf("activate: %s is an event sub-process, which only its event starts: %w", n.ID, ErrInvalidModification)
	case n.ForCompensation:
		return fmt.Errorf("activate: %s is a compensation handler, which only compensation starts: %w", n.ID, ErrInvalidModification)
	}
	for g := n.Parent; g != nil && g.Owner != nil; g = g.Owner.Parent {
		if o := g.Owner; o.AdHoc != nil {
			return fmt.Errorf("activate: %s is inside ad-hoc sub-process %s; activate it through the region (POST …/adhoc/{scopeId}/activate): %w", n.ID, o.ID, ErrInvalidModification)
		}
	}
	return nil
}

// cancelTracks returns the tracks a cancel target names (for a scope, its
// host), refusing targets that name nothing.
func (x *executor) cancelTracks(c CancelTarget) ([]*Track, error) {
	switch {
	case c.TrackID != "":
		t := x.st.Track(c.TrackID)
		if t == nil {
			return nil, fmt.Errorf("cancel: instance has no track %q: %w", c.TrackID, ErrInvalidModification)
		}
		if t.Inner {
			return nil, fmt.Errorf("cancel: track %s runs one iteration of %s; cancel the activity (nodeId %q) instead: %w", t.ID, t.Node, t.Node, ErrInvalidModification)
		}
		return []*Track{t}, nil
	case c.ScopeID != "":
		if c.ScopeID == scope.RootID {
			return nil, fmt.Errorf("cancel: scope %s is the instance itself; cancel the instance instead: %w", c.ScopeID, ErrInvalidModification)
		}
		if x.st.Scopes.Get(c.ScopeID) == nil {
			return nil, fmt.Errorf("cancel: instance has no open scope %q: %w", c.ScopeID, ErrInvalidModification)
		}
		host := x.hostOf(c.ScopeID)
		if host == nil || host.Inner {
			return nil, fmt.Errorf("cancel: scope %s is not an element instance of its own (an iteration, a handler or an I/O scope); cancel its activity instead: %w", c.ScopeID, ErrInvalidModification)
		}
		return []*Track{host}, nil
	default:
		if x.proc.Node(c.NodeID) == nil {
			return nil, fmt.Errorf("cancel: process %s has no element %q: %w", x.proc.ID, c.NodeID, ErrInvalidModification)
		}
		var ts []*Track
		for _, t := range x.st.Tracks {
			if t.Node == c.NodeID && !t.Inner {
				ts = append(ts, t)
			}
		}
		if len(ts) == 0 {
			return nil, fmt.Errorf("cancel: no instance of %s is active: %w", c.NodeID, ErrInvalidModification)
		}
		return ts, nil
	}
}

// modifyCancel stops and removes the tracks c names, remembering the
// scopes they leave behind.
func (x *executor) modifyCancel(c CancelTarget, emptied map[scope.ID]bool) error {
	ts, err := x.cancelTracks(c)
	if err != nil {
		return err
	}
	for _, t := range ts {
		if x.st.Track(t.ID) == nil {
			continue // gone with a scope an earlier track hosted
		}
		x.stopActivity(t, cancelledByModification, "element cancelled by a modification", cancelledByModification)
		x.removeTrack(t)
		emptied[t.Scope] = true
	}
	return nil
}

// modifyActivate starts a new track on the element a names.
func (x *executor) modifyActivate(a ActivateTarget) error {
	n := x.proc.Node(a.NodeID)
	home := a.ScopeID
	if home == "" {
		var err error
		if home, err = x.homeOf(n, true); err != nil {
			return err
		}
	} else {
		chain, err := x.checkHome(n, home)
		if err != nil {
			return err
		}
		for _, owner := range chain {
			if home, err = x.openContainer(n, home, owner); err != nil {
				return err
			}
		}
	}
	if len(a.Variables) > 0 {
		sc := x.st.Scopes.Get(home)
		if sc.Vars == nil {
			sc.Vars = map[string]any{}
		}
		for _, name := range slices.Sorted(maps.Keys(a.Variables)) {
			sc.Vars[name] = a.Variables[name]
			x.fact(FactVariableSet, n.ID, home, "", map[string]any{"name": name})
		}
		x.st.Scopes.Touch(home)
		x.varsChanged = true
	}
	x.newTrack(home, n.ID, "")
	return nil
}

// checkHome refuses a scope that is not an open instance of n's container
// or of a container around it. For an ancestor it returns the containers
// between, outermost first, whose new instances the activation opens under
// s; each must be one a modification may open.
func (x *executor) checkHome(n *bpmn.Node, s scope.ID) ([]*bpmn.Node, error) {
	if x.st.Scopes.Get(s) == nil {
		return nil, fmt.Errorf("activate %s: instance has no open scope %q: %w", n.ID, s, ErrInvalidModification)
	}
	at := x.graphOf(s)
	var chain []*bpmn.Node
	for g := n.Parent; g != at; g = g.Owner.Parent {
		if g.Owner == nil {
			return nil, fmt.Errorf("activate %s: scope %s is not an instance of %s or of a container around it: %w", n.ID, s, containerName(n), ErrInvalidModification)
		}
		chain = append(chain, g.Owner)
	}
	slices.Reverse(chain)
	for _, owner := range chain {
		if err := openable(n, owner); err != nil {
			return nil, err
		}
	}
	return chain, nil
}

// openable refuses a container a modification cannot open to start n in
// it: a multi-instance or loop activity, an event sub-process, a
// compensation handler.
func openable(n, owner *bpmn.Node) error {
	if owner.Loop != nil || owner.TriggeredByEvent || owner.ForCompensation {
		return fmt.Errorf("activate %s: no instance of %s is open, and a %s is not opened by a modification; activate %s itself: %w",
			n.ID, owner.ID, containerKind(owner), owner.ID, ErrInvalidModification)
	}
	return nil
}

// homeOf returns the one open instance of n's container; with open it
// opens one (and its parents) when there is none, else it only checks
// that one could be opened.
func (x *executor) homeOf(n *bpmn.Node, open bool) (scope.ID, error) {
	g := n.Parent
	if g.Owner == nil {
		return scope.RootID, nil
	}
	var found []scope.ID
	for _, sc := range x.st.Scopes.All() {
		if x.graphOf(sc.ID) == g {
			found = append(found, sc.ID)
		}
	}
	switch {
	case len(found) == 1:
		return found[0], nil
	case len(found) > 1:
		return "", fmt.Errorf("activate %s: %s has %d open instances (%v); name one with scopeId: %w", n.ID, containerName(n), len(found), found, ErrAmbiguousScope)
	}
	owner := g.Owner
	if err := openable(n, owner); err != nil {
		return "", err
	}
	parent, err := x.homeOf(owner, open)
	if err != nil || !open {
		return "", err
	}
	return x.openContainer(n, parent, owner)
}

// openContainer opens a new instance of sub-process owner in scope parent,
// hosted by a track of its own, to start n inside it, and returns it.
func (x *executor) openContainer(n *bpmn.Node, parent scope.ID, owner *bpmn.Node) (scope.ID, error) {
	host := x.newTrack(parent, owner.ID, "")
	x.queue = slices.DeleteFunc(x.queue, func(id string) bool { return id == host.ID }) // it hosts, it does not run
	child, err := x.st.Scopes.Open(parent, owner.ID, owner.Sub.DataNames)
	if err != nil {
		return "", fmt.Errorf("activate %s: open %s: %w", n.ID, owner.ID, err)
	}
	host.State, host.Child = TrackInScope, child.ID
	x.fact(FactElementActivated, owner.ID, parent, host.ID, map[string]any{"type": string(owner.Kind), "by": cancelledByModification})
	x.fact(FactScopeOpened, owner.ID, child.ID, host.ID, nil)
	x.armScope(child.ID)
	x.armBoundaries(host, owner)
	return child.ID, nil
}

// cancelEmptied cancels, innermost first, every scope a cancellation left
// with nothing running, and its host in turn; an emptied instance ends
// terminated. An ad-hoc region stays open (its router or people decide).
func (x *executor) cancelEmptied(emptied map[scope.ID]bool) error {
	for len(emptied) > 0 {
		next := map[scope.ID]bool{}
		for s := range emptied {
			sc := x.st.Scopes.Get(s)
			if sc == nil || x.tracksIn(s) > 0 || len(x.st.Scopes.Children(s)) > 0 || x.st.region(s) != nil {
				continue
			}
			if s == scope.RootID {
				x.terminateByModification()
				return nil
			}
			if sc.Kind == scope.KindIteration || sc.Kind == scope.KindBody {
				return fmt.Errorf("cancel: nothing would run in an iteration of %s; cancel %s itself: %w", sc.NodeID, sc.NodeID, ErrInvalidModification)
			}
			host := x.hostOf(s)
			if host == nil { // a scope no track hosts (a compensation run)
				x.cancelScope(s, cancelledByModification)
				next[sc.Parent] = true
				continue
			}
			x.stopActivity(host, cancelledByModification, "element cancelled by a modification", cancelledByModification)
			x.removeTrack(host)
			next[host.Scope] = true
		}
		emptied = next
	}
	return nil
}

// terminateByModification ends an instance a modification left with
// nothing running.
func (x *executor) terminateByModification() {
	x.cancelScope(scope.RootID, cancelledByModification)
	for _, in := range x.st.Incidents {
		x.resolveIncident(in, "instance cancelled by a modification")
	}
	x.st.Incidents = nil
	x.st.Status = StatusTerminated
	detail := map[string]any{"reason": "nothing left running after a modification"}
	if x.by != "" {
		detail["by"] = x.by
	}
	x.fact(FactInstanceTerminated, "", scope.RootID, "", detail)
}

// containerName names n's container for messages.
func containerName(n *bpmn.Node) string {
	if n.Parent.Owner == nil {
		return "the process"
	}
	return n.Parent.Owner.ID
}

// containerKind names what kind of container n is, for messages.
func containerKind(n *bpmn.Node) string {
	switch {
	case n.Loop != nil:
		return "multi-instance or loop activity"
	case n.TriggeredByEvent:
		return "event sub-process"
	default:
		return "compensation handler"
	}
}
