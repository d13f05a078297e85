package runtime

import (
	"context"
	"fmt"
	"slices"
	"strconv"

	"github.com/gobpm/gobpm/internal/bpmn"
	"github.com/gobpm/gobpm/internal/engine"
	"github.com/gobpm/gobpm/internal/scope"
)

// Page sizes of an instance's scopes and tracks.
const (
	// ViewLimit is how many scopes and tracks an InstanceView carries, and
	// the page size of InstanceScopes and InstanceTracks when limit is 0.
	ViewLimit = 100
	// MaxPageLimit caps the limit of InstanceScopes and InstanceTracks.
	MaxPageLimit = 1000
)

// InstanceScopes returns the open scopes of an instance in creation order
// (the root first) after the scope with id after ("" from the start), at
// most limit, and the cursor of the next page ("" on the last one). A page
// costs its size, whatever the instance's size. ENOTFOUND for an unknown
// instance, EINVALID for an after that names no scope of it.
func (r *Runtime) InstanceScopes(ctx context.Context, id InstanceID, after string, limit int) ([]ScopeView, string, error) {
	var (
		page []ScopeView
		next string
	)
	err := r.withState(ctx, id, func(row InstanceRow, st *engine.State) error {
		proc, _, err := r.process(ctx, row.ProcessKey, row.ProcessVersion)
		if err != nil {
			proc = nil
		}
		if _, ok := scopeSeq(after); after != "" && !ok {
			return &Error{Code: EINVALID, Message: fmt.Sprintf("%q is not a scope cursor of instance %s", after, id), Field: "cursor"}
		}
		page, next = scopePage(st, proc, after, pageLimit(limit))
		return nil
	})
	return page, next, err
}

// InstanceTracks returns the live tracks of an instance in creation order
// after the track with id after ("" from the start), at most limit, and
// the cursor of the next page ("" on the last one). ENOTFOUND for an
// unknown instance, EINVALID for a malformed after.
func (r *Runtime) InstanceTracks(ctx context.Context, id InstanceID, after string, limit int) ([]TrackView, string, error) {
	var (
		page []TrackView
		next string
	)
	err := r.withState(ctx, id, func(_ InstanceRow, st *engine.State) error {
		if _, ok := trackSeq(after); after != "" && !ok {
			return &Error{Code: EINVALID, Message: fmt.Sprintf("%q is not a track cursor of instance %s", after, id), Field: "cursor"}
		}
		page, next = trackPage(st, after, pageLimit(limit))
		return nil
	})
	return page, next, err
}

// pageLimit applies the default and the cap to a requested page size.
func pageLimit(limit int) int {
	switch {
	case limit <= 0:
		return ViewLimit
	case limit > MaxPageLimit:
		return MaxPageLimit
	}
	return limit
}

// scopePage returns up to limit scopes after the scope id after, in
// creation order, with their armed handlers, and the next cursor. Scope
// ids carry their creation number ("s17"; the root is 0), so the page
// probes the ids after the cursor instead of sorting every scope; when most
// numbers are closed scopes it sorts the open ones instead.
func scopePage(st *engine.State, proc *bpmn.Process, after string, limit int) ([]ScopeView, string) {
	from := int64(-1)
	if after != "" {
		from, _ = scopeSeq(after)
	}
	var picked []*scope.Scope
	more := false
	if span := int64(st.Scopes.Next) - from; span <= int64(4*len(st.Scopes.Scopes)+limit) {
		for seq := from + 1; seq <= int64(st.Scopes.Next); seq++ {
			id := scope.RootID
			if seq > 0 {
				id = scope.ID("s" + strconv.FormatInt(seq, 10))
			}
			sc := st.Scopes.Get(id)
			if sc == nil {
				continue
			}
			if len(picked) == limit {
				more = true
				break
			}
			picked = append(picked, sc)
		}
	} else {
		all := st.Scopes.All()
		i, _ := slices.BinarySearchFunc(all, from+1, func(sc *scope.Scope, seq int64) int {
			return int(int64(sc.Seq) - seq)
		})
		all = all[i:]
		if len(all) > limit {
			all, more = all[:limit], true
		}
		picked = all
	}
	ids := make([]scope.ID, len(picked))
	for i, sc := range picked {
		ids[i] = sc.ID
	}
	var handlers map[scope.ID][]engine.Handler
	if proc != nil {
		handlers = engine.ArmedHandlersOf(proc, st, ids)
	}
	out := make([]ScopeView, 0, len(picked))
	for _, sc := range picked {
		vars := scope.CloneVars(sc.Vars)
		if vars == nil {
			vars = map[string]any{}
		}
		hs := []HandlerView{}
		for _, h := range handlers[sc.ID] {
			hs = append(hs, HandlerView{NodeID: h.NodeID, Kind: h.Kind, Trigger: h.Trigger, Name: h.Name, Interrupting: h.Interrupting})
		}
		out = append(out, ScopeView{ID: string(sc.ID), ParentID: string(sc.Parent), NodeID: sc.NodeID, Path: sc.Path, State: scopeState(sc),
			Variables: vars, Handlers: hs, Kind: sc.Kind, Index: sc.Index})
	}
	next := ""
	if more {
		next = out[len(out)-1].ID
	}
	return out, next
}

// trackPage returns up to limit tracks after the track id after, in
// creation order, and the next cursor. Tracks are kept in creation order
// with ascending ids, so the page starts by binary search.
func trackPage(st *engine.State, after string, limit int) ([]TrackView, string) {
	from := int64(0)
	if after != "" {
		from, _ = trackSeq(after)
	}
	i, _ := slices.BinarySearchFunc(st.Tracks, from+1, func(t *engine.Track, n int64) int {
		m, _ := trackSeq(t.ID)
		return int(m - n)
	})
	tracks := st.Tracks[i:]
	more := len(tracks) > limit
	if more {
		tracks = tracks[:limit]
	}
	out := make([]TrackView, 0, len(tracks))
	for _, t := range tracks {
		out = append(out, TrackView{ID: t.ID, ScopeID: string(t.Scope), NodeID: t.Node, State: string(t.State)})
	}
	next := ""
	if more {
		next = out[len(out)-1].ID
	}
	return out, next
}

// scopeSeq reads the creation number of a scope id ("root" is 0).
func scopeSeq(id string) (int64, bool) {
	if id == string(scope.RootID) {
		return 0, true
	}
	if len(id) < 2 || id[0] != 's' {
		return 0, false
	}
	n, err := strconv.ParseInt(id[1:], 10, 64)
	return n, err == nil && n > 0
}

// trackSeq reads the creation number of a track id ("t12").
func trackSeq(id string) (int64, bool) {
	if len(id) < 2 || id[0] != 't' {
		return 0, false
	}
	n, err := strconv.ParseInt(id[1:], 10, 64)
	return n, err == nil && n > 0
}
