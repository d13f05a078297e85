package engine

import (
	"slices"

	"github.com/gobpm/gobpm/internal/bpmn"
	"github.com/gobpm/gobpm/internal/scope"
)

// fireInclusiveJoins fires every inclusive join that has tokens waiting and
// that no other track of its scope can still reach. It reports whether any fired.
func (x *executor) fireInclusiveJoins() bool {
	if !x.proc.HasInclusiveJoins() {
		return false // no join to fire: a step over n tracks must not scan them
	}
	fired := false
	for _, t := range slices.Clone(x.st.Tracks) {
		if t.State != TrackJoining || x.st.Track(t.ID) == nil {
			continue
		}
		n := x.proc.Node(t.Node)
		if n == nil || n.Kind != bpmn.KindInclusiveGateway {
			continue
		}
		if x.canStillArrive(n, t.Scope) {
			continue
		}
		// Consume one waiting token per incoming flow; t carries on.
		seen := map[string]bool{t.Via: true}
		for _, o := range slices.Clone(x.st.Tracks) {
			if o != t && o.State == TrackJoining && o.Node == n.ID && o.Scope == t.Scope && !seen[o.Via] {
				seen[o.Via] = true
				x.removeTrack(o)
			}
		}
		t.State = TrackReady
		x.markTrack(t)
		x.inclusiveFork(t, n)
		fired = true
	}
	return fired
}

// canStillArrive reports whether a track of scope s that is not waiting at
// the join g could still reach it.
func (x *executor) canStillArrive(g *bpmn.Node, s scope.ID) bool {
	for _, o := range x.st.Tracks {
		if x.flowScope(o) != s || (o.Node == g.ID && o.State == TrackJoining) {
			continue
		}
		if n := x.proc.Node(o.Node); n != nil && reaches(n, g) {
			return true
		}
	}
	return false
}

// reaches reports whether g is reachable from n over sequence flows (and the
// flows of n's boundary events, and links) within one graph.
func reaches(n, g *bpmn.Node) bool {
	seen := map[*bpmn.Node]bool{}
	stack := []*bpmn.Node{n}
	for len(stack) > 0 {
		c := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[c] {
			continue
		}
		seen[c] = true
		next := slices.Clone(c.Outgoing)
		for _, b := range c.Boundaries {
			next = append(next, b.Outgoing...)
		}
		for _, f := range next {
			if f.Target == g {
				return true
			}
			stack = append(stack, f.Target)
		}
		if c.LinkTarget != nil {
			stack = append(stack, c.LinkTarget) // a link catch is never a join
		}
	}
	return false
}
