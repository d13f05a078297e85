package engine

import (
	"slices"
	"strconv"

	"github.com/gobpm/gobpm/internal/scope"
)

// tracksIn returns how many live tracks sit in scope s.
func (x *executor) tracksIn(s scope.ID) int {
	if x.inScope == nil {
		x.inScope = make(map[scope.ID]int)
		for _, t := range x.st.Tracks {
			x.inScope[t.Scope]++
		}
	}
	return x.inScope[s]
}

// countTrack records that d tracks joined (d > 0) or left (d < 0) scope s.
func (x *executor) countTrack(s scope.ID, d int) {
	if x.inScope == nil {
		return
	}
	if n := x.inScope[s] + d; n > 0 {
		x.inScope[s] = n
	} else {
		delete(x.inScope, s)
	}
}

// moveTrack moves track t to scope s.
func (x *executor) moveTrack(t *Track, s scope.ID) {
	x.countTrack(t.Scope, -1)
	t.Scope = s
	x.countTrack(s, 1)
}

func (x *executor) newTrack(s scope.ID, node, via string) *Track {
	x.st.NextTrack++
	t := &Track{ID: "t" + strconv.Itoa(x.st.NextTrack), Scope: s, Node: node, State: TrackReady, Via: via}
	x.st.Tracks = append(x.st.Tracks, t)
	x.countTrack(s, 1)
	x.markTrack(t)
	x.queue = append(x.queue, t.ID)
	return t
}

// newTrackAt creates a track on a node without queueing it: the caller runs it.
func (x *executor) newTrackAt(s scope.ID, node string) *Track {
	x.st.NextTrack++
	t := &Track{ID: "t" + strconv.Itoa(x.st.NextTrack), Scope: s, Node: node, State: TrackReady}
	x.st.Tracks = append(x.st.Tracks, t)
	x.countTrack(s, 1)
	x.markTrack(t)
	return t
}

func (x *executor) removeTrack(t *Track) {
	x.markTrack(t)
	x.withdrawWaits(t)
	i := x.st.trackIndex(t)
	if i < 0 {
		return
	}
	x.countTrack(t.Scope, -1)
	if ts := x.st.Tracks; i < len(ts)/2 {
		// Close to the head (a parallel body completes its iterations
		// in creation order, right after its host): shift the tracks
		// before it, not the ones after.
		copy(ts[1:i+1], ts[:i])
		ts[0] = nil
		x.st.Tracks = ts[1:]
		return
	}
	x.st.Tracks = slices.Delete(x.st.Tracks, i, i+1)
}

// endTrack removes a track that reached its end and completes its scope if
// that drained it.
func (x *executor) endTrack(t *Track) {
	x.removeTrack(t)
	x.checkDrain(t.Scope)
}
