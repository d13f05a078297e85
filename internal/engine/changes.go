package engine

import (
	"slices"

	"github.com/gobpm/gobpm/internal/scope"
)

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
		x.st.Tracks = slices.DeleteFunc(x.st.Tracks, func(t *Track) bool { return sw.goneTracks[t] })
	}
	if len(sw.goneWaits) > 0 {
		x.st.Waits = slices.DeleteFunc(x.st.Waits, func(w *Wait) bool { return sw.goneWaits[w] })
		x.st.waitsOf = nil // rebuilt when next needed
	}
}
