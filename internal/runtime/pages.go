package runtime

import (
	"context"
	"fmt"

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
		var ok bool
		if page, next, ok = scopePage(st, proc, after, pageLimit(limit)); !ok {
			return &Error{Code: EINVALID, Message: fmt.Sprintf("%q is not a scope cursor of instance %s", after, id), Field: "cursor"}
		}
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
		var ok bool
		if page, next, ok = trackPage(st, after, pageLimit(limit)); !ok {
			return &Error{Code: EINVALID, Message: fmt.Sprintf("%q is not a track cursor of instance %s", after, id), Field: "cursor"}
		}
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

// scopePage copies a page of scopes (State.ScopesAfter) with their armed
// handlers, and returns the next cursor ("" on the last page); ok is false
// for a malformed cursor.
func scopePage(st *engine.State, proc *bpmn.Process, after string, limit int) (_ []ScopeView, next string, ok bool) {
	picked, more, ok := st.ScopesAfter(after, limit)
	if !ok {
		return nil, "", false
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
	if more {
		next = out[len(out)-1].ID
	}
	return out, next, true
}

// trackPage copies a page of tracks (State.TracksAfter) and returns the
// next cursor ("" on the last page); ok is false for a malformed cursor.
func trackPage(st *engine.State, after string, limit int) (_ []TrackView, next string, ok bool) {
	tracks, more, ok := st.TracksAfter(after, limit)
	if !ok {
		return nil, "", false
	}
	out := make([]TrackView, 0, len(tracks))
	for _, t := range tracks {
		out = append(out, TrackView{ID: t.ID, ScopeID: string(t.Scope), NodeID: t.Node, State: string(t.State)})
	}
	if more {
		next = out[len(out)-1].ID
	}
	return out, next, true
}
