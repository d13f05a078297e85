package engine

import "github.com/gobpm/gobpm/internal/scope"

// changeSet collects the parts a step creates, changes or removes, once
// each, in the order they are first touched.
type changeSet struct {
	list []PartRef
	seen map[PartRef]bool
}

func (c *changeSet) add(kind, key string) {
	ref := PartRef{Kind: kind, Key: key}
	if c.seen == nil {
		c.seen = map[PartRef]bool{}
	}
	if !c.seen[ref] {
		c.seen[ref] = true
		c.list = append(c.list, ref)
	}
}

// markTrack records that track t was created, changed or removed.
func (x *executor) markTrack(t *Track) { x.changed.add(PartTrack, t.ID) }

// markIncident records that an incident was opened or closed.
func (x *executor) markIncident(in *Incident) { x.changed.add(PartIncident, in.ID) }

// markRegion records that the ad-hoc region of scope s changed.
func (x *executor) markRegion(s scope.ID) { x.changed.add(PartRegion, string(s)) }

// markBody records that the counters of the body of scope s changed.
func (x *executor) markBody(s scope.ID) { x.changed.add(PartBody, string(s)) }

// markResult records that iteration i's result of the body of scope s changed.
func (x *executor) markResult(s scope.ID, i int) { x.changed.add(PartResult, resultKey(s, i)) }

// finishChanges completes the step's change list with the scopes the tree
// recorded and the waits the step touched, and hands it to the effects.
func (x *executor) finishChanges() {
	for _, id := range x.st.Scopes.TakeChanged() {
		x.changed.add(PartScope, string(id))
	}
	for _, id := range x.touched {
		x.changed.add(PartWait, id)
	}
	x.fx.Changed = x.changed.list
}
