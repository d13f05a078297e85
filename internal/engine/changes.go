package engine

import (
	"slices"

	"github.com/gobpm/gobpm/internal/scope"
)

// changeSet collects the parts a step creates, changes or removes. It only
// appends (a part touched twice is listed twice); unique returns each
// once, in the order they were first touched, so a step that touches
// 100,000 parts builds one map of the right size instead of growing one.
type changeSet struct {
	list []PartRef
}

func (c *changeSet) add(kind, key string) {
	c.list = append(c.list, PartRef{Kind: kind, Key: key})
}

// unique returns the touched parts, each once, in first-touch order.
func (c *changeSet) unique() []PartRef {
	if len(c.list) < 2 {
		return c.list
	}
	seen := make(map[PartRef]struct{}, len(c.list))
	out := c.list[:0]
	for _, ref := range c.list {
		if _, dup := seen[ref]; !dup {
			seen[ref] = struct{}{}
			out = append(out, ref)
		}
	}
	return out
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
	x.fx.Changed = x.changed.unique()
}

// sweep batches the removals of one cancellation, so cancelling a scope
// with n tracks and waits costs O(n), not O(n²): the live tracks and waits
// are indexed once, removed ones are only marked, and endSweep drops them
// from the state's lists in one pass each.
type sweep struct {
	tracks     map[scope.ID][]*Track // live tracks by scope, in creation order
	waits      map[string][]*Wait    // waits by track id
	handlers   map[scope.ID][]*Wait  // handler waits by scope
	goneTracks map[*Track]bool
	goneWaits  map[*Wait]bool
}

// beginSweep starts a sweep unless one runs; it reports whether it did
// (the caller then ends it).
func (x *executor) beginSweep() bool {
	if x.sw != nil {
		return false
	}
	sw := &sweep{tracks: map[scope.ID][]*Track{}, waits: map[string][]*Wait{}, handlers: map[scope.ID][]*Wait{},
		goneTracks: map[*Track]bool{}, goneWaits: map[*Wait]bool{}}
	for _, t := range x.st.Tracks {
		sw.tracks[t.Scope] = append(sw.tracks[t.Scope], t)
	}
	for _, w := range x.st.Waits {
		if w.TrackID != "" {
			sw.waits[w.TrackID] = append(sw.waits[w.TrackID], w)
		}
		if w.Handler {
			sw.handlers[w.ScopeID] = append(sw.handlers[w.ScopeID], w)
		}
	}
	x.sw = sw
	return true
}

// endSweep drops the swept tracks and waits from the state.
func (x *executor) endSweep() {
	sw := x.sw
	x.sw = nil
	if len(sw.goneTracks) > 0 {
		x.st.Tracks = slices.DeleteFunc(x.st.Tracks, func(t *Track) bool {
			if sw.goneTracks[t] {
				x.countTrack(t.Scope, -1)
				return true
			}
			return false
		})
	}
	if len(sw.goneWaits) > 0 {
		x.st.Waits = slices.DeleteFunc(x.st.Waits, func(w *Wait) bool { return sw.goneWaits[w] })
		x.st.waitsOf = nil // rebuilt when next needed
	}
}
