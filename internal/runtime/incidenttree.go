package runtime

import (
	"cmp"
	"context"
	"fmt"
	"slices"
)

// IncidentMark says whether an instance or its call tree has open incidents.
type IncidentMark struct {
	// Own: the instance itself has an open incident.
	Own bool
	// InTree: a descendant (a called child, recursively) has an open
	// incident.
	InTree bool
}

// IncidentMarks returns the marks of the instances ids that have open
// incidents themselves or below them in their call tree; the others are
// absent. It costs one store query, whatever the number of ids (the store
// walks up from the instances with open incidents, never down the trees).
func (r *Runtime) IncidentMarks(ctx context.Context, ids []InstanceID) (map[InstanceID]IncidentMark, error) {
	out := map[InstanceID]IncidentMark{}
	if len(ids) == 0 {
		return out, nil
	}
	rows, err := r.store.IncidentAncestry(ctx, ids)
	if err != nil {
		return nil, fmt.Errorf("incident marks: %w", err)
	}
	for _, a := range rows {
		m := out[a.AncestorID]
		if a.Depth == 0 {
			m.Own = true
		} else {
			m.InTree = true
		}
		out[a.AncestorID] = m
	}
	return out, nil
}

// IncidentTree places an instance with an open incident in its call tree.
type IncidentTree struct {
	// ProcessKey is the instance's own process key.
	ProcessKey string
	// RootID is the root of its call tree (the instance itself when
	// nothing called it), RootKey the root's process key.
	RootID  InstanceID
	RootKey string
	// Path is the instance itself and every caller above it, up to the
	// root, in that order: the instances an open incident here leaves
	// stuck.
	Path []TreeInstance
}

// TreeInstance names one instance of a call tree and its process.
type TreeInstance struct {
	ID  InstanceID
	Key string
}

// IncidentTrees places every instance with an open incident in its call
// tree, by instance, with one store query.
func (r *Runtime) IncidentTrees(ctx context.Context) (map[InstanceID]IncidentTree, error) {
	rows, err := r.store.IncidentAncestry(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("incident trees: %w", err)
	}
	slices.SortStableFunc(rows, func(a, b IncidentAncestor) int { return cmp.Compare(a.Depth, b.Depth) })
	out := map[InstanceID]IncidentTree{}
	for _, a := range rows {
		t := out[a.InstanceID]
		if a.Depth == 0 {
			t.ProcessKey = a.AncestorKey
		}
		// Rows come by depth: the last one is the root.
		t.RootID, t.RootKey = a.AncestorID, a.AncestorKey
		t.Path = append(t.Path, TreeInstance{ID: a.AncestorID, Key: a.AncestorKey})
		out[a.InstanceID] = t
	}
	return out, nil
}

// InstanceRows returns the rows of the instances ids that exist, by id,
// with one store query (a list that names instances, such as the task
// inbox, reads their process and business key so).
func (r *Runtime) InstanceRows(ctx context.Context, ids []InstanceID) (map[InstanceID]InstanceRow, error) {
	out := map[InstanceID]InstanceRow{}
	if len(ids) == 0 {
		return out, nil
	}
	rows, err := r.store.InstanceRows(ctx, ids)
	if err != nil {
		return nil, fmt.Errorf("instance rows: %w", err)
	}
	for _, row := range rows {
		out[row.ID] = row
	}
	return out, nil
}
