package scope

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
)

// ID identifies a scope within one instance.
type ID string

// RootID is the id of every instance's root scope.
const RootID ID = "root"

// Scope is one execution context: a data container and the parent of the
// tracks that run inside it.
type Scope struct {
	ID     ID `json:"id"`
	Parent ID `json:"parent,omitempty"`
	// NodeID is the container node the scope instantiates ("" for the root).
	NodeID string `json:"nodeId,omitempty"`
	// Path is the display path of container node ids.
	Path string `json:"path"`
	// Vars are the scope's local variables (JSON-shaped values).
	Vars map[string]any `json:"vars"`
	// Seq orders scopes by creation.
	Seq int `json:"seq"`
	// Interrupted is set once an interrupting event sub-process fired in
	// the scope: its other handlers are disarmed and it runs only the handler.
	Interrupted bool `json:"interrupted,omitempty"`
	// Kind is KindBody for a multi-instance or loop body, KindIteration for
	// one of its iterations, "" for every other scope.
	Kind string `json:"kind,omitempty"`
	// Index is an iteration's 1-based index.
	Index int `json:"index,omitempty"`
}

// Scope kinds of loop bodies and their iterations.
const (
	KindBody      = "body"
	KindIteration = "iteration"
)

// Tree is the set of open scopes of one instance, keyed by id.
// Closed scopes are removed: their locals are disposed.
type Tree struct {
	Scopes map[ID]*Scope `json:"scopes"`
	// Next is the counter that mints scope ids.
	Next int `json:"next"`

	// kids indexes child ids by parent, in creation order. It is derived
	// from Scopes, built on first use, and kept up to date by Open and Close.
	kids map[ID][]ID
	// changed lists the scopes opened, closed or written since the last
	// TakeChanged, once each, in order; seen is its set.
	changed []ID
	seen    map[ID]bool
}

// Touch records that scope id changed (its variables, its flags) without
// Open, Close or Set, which record it themselves.
func (t *Tree) Touch(id ID) {
	if t.seen == nil {
		t.seen = map[ID]bool{}
	}
	if !t.seen[id] {
		t.seen[id] = true
		t.changed = append(t.changed, id)
	}
}

// TakeChanged returns the scopes opened, closed or changed since the last
// call, in the order they were first touched, and starts a new record.
func (t *Tree) TakeChanged() []ID {
	out := t.changed
	t.changed, t.seen = nil, nil
	return out
}

// index returns the child index, building it when needed.
func (t *Tree) index() map[ID][]ID {
	if t.kids == nil {
		t.kids = map[ID][]ID{}
		all := make([]*Scope, 0, len(t.Scopes))
		for _, s := range t.Scopes {
			all = append(all, s)
		}
		sort.Slice(all, func(i, j int) bool { return all[i].Seq < all[j].Seq })
		for _, s := range all {
			if s.ID != RootID {
				t.kids[s.Parent] = append(t.kids[s.Parent], s.ID)
			}
		}
	}
	return t.kids
}

// NewTree returns a tree holding only the root scope with the given variables.
func NewTree(vars map[string]any) *Tree {
	if vars == nil {
		vars = map[string]any{}
	}
	return &Tree{Scopes: map[ID]*Scope{RootID: {ID: RootID, Path: "/", Vars: vars}}}
}

// Get returns the scope with the given id, or nil.
func (t *Tree) Get(id ID) *Scope { return t.Scopes[id] }

// Open creates a child scope of parent for the container node nodeID, with
// the declared local names initialised to null. It returns the new scope.
func (t *Tree) Open(parent ID, nodeID string, declared []string) (*Scope, error) {
	p := t.Scopes[parent]
	if p == nil {
		return nil, fmt.Errorf("scope: open %s under %s: %w", nodeID, parent, ErrUnknownScope)
	}
	t.Next++
	path := p.Path + "/" + nodeID
	if p.Path == "/" {
		path = "/" + nodeID
	}
	s := &Scope{ID: ID("s" + strconv.Itoa(t.Next)), Parent: parent, NodeID: nodeID, Path: path, Vars: map[string]any{}, Seq: t.Next}
	for _, name := range declared {
		s.Vars[name] = nil
	}
	kids := t.index()
	t.Scopes[s.ID] = s
	kids[parent] = append(kids[parent], s.ID)
	t.Touch(s.ID)
	return s, nil
}

// Close removes a scope and every scope below it, disposing their locals.
// It returns the ids removed, deepest first.
func (t *Tree) Close(id ID) []ID {
	var removed []ID
	for _, c := range t.Children(id) {
		removed = append(removed, t.Close(c.ID)...)
	}
	if s, ok := t.Scopes[id]; ok {
		kids := t.index()
		delete(t.Scopes, id)
		delete(kids, id)
		if id != RootID {
			// Siblings are in creation order: find id by its Seq. Closing
			// the oldest (a cancellation closes children in order) is free.
			siblings := kids[s.Parent]
			i, found := sort.Search(len(siblings), func(i int) bool { return t.Scopes[siblings[i]] == nil || t.Scopes[siblings[i]].Seq >= s.Seq }), false
			if i < len(siblings) && siblings[i] == id {
				found = true
			} else {
				i = slices.Index(siblings, id) // not in Seq order (a hand-built tree)
				found = i >= 0
			}
			switch {
			case found && i == 0:
				kids[s.Parent] = siblings[1:]
			case found:
				kids[s.Parent] = slices.Delete(siblings, i, i+1)
			}
		}
		removed = append(removed, id)
		t.Touch(id)
	}
	return removed
}

// Children returns the direct child scopes of id in creation order.
func (t *Tree) Children(id ID) []*Scope {
	ids := t.index()[id]
	out := make([]*Scope, 0, len(ids))
	for _, k := range ids {
		out = append(out, t.Scopes[k])
	}
	return out
}

// All returns every open scope, root first, then in creation order.
func (t *Tree) All() []*Scope {
	out := make([]*Scope, 0, len(t.Scopes))
	for _, s := range t.Scopes {
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Seq < out[j].Seq })
	return out
}

// IsWithin reports whether id is ancestor or equal to the scope inner.
func (t *Tree) IsWithin(inner, ancestor ID) bool {
	for s := t.Scopes[inner]; s != nil; s = t.Scopes[s.Parent] {
		if s.ID == ancestor {
			return true
		}
		if s.ID == RootID {
			break
		}
	}
	return false
}

// Lookup reads a variable by walking up from the scope id to the root.
func (t *Tree) Lookup(id ID, name string) (any, bool) {
	for s := t.Scopes[id]; s != nil; s = t.Scopes[s.Parent] {
		if v, ok := s.Vars[name]; ok {
			return v, true
		}
		if s.ID == RootID {
			break
		}
	}
	return nil, false
}

// Visible returns every variable visible from the scope id (inner names
// shadow outer ones).
func (t *Tree) Visible(id ID) map[string]any {
	var chain []*Scope
	for s := t.Scopes[id]; s != nil; s = t.Scopes[s.Parent] {
		chain = append(chain, s)
		if s.ID == RootID {
			break
		}
	}
	out := map[string]any{}
	for i := len(chain) - 1; i >= 0; i-- {
		for k, v := range chain[i].Vars {
			out[k] = v
		}
	}
	return out
}

// Set writes a variable by the rule of docs/scopes.md#variables: the innermost scope from id
// upward that already holds the name gets the value; otherwise the name is
// created at the root. (Declared names are created null when their scope
// opens, so "the scope that declares it" already holds them.) It returns the
// scope written to.
func (t *Tree) Set(id ID, name string, value any) (ID, error) {
	if t.Scopes[id] == nil {
		return "", fmt.Errorf("scope: set %q in %s: %w", name, id, ErrUnknownScope)
	}
	for s := t.Scopes[id]; s != nil; s = t.Scopes[s.Parent] {
		if _, ok := s.Vars[name]; ok {
			s.Vars[name] = value
			t.Touch(s.ID)
			return s.ID, nil
		}
		if s.ID == RootID {
			break
		}
	}
	root := t.Scopes[RootID]
	if root.Vars == nil {
		root.Vars = map[string]any{}
	}
	root.Vars[name] = value
	t.Touch(RootID)
	return RootID, nil
}

// Clone returns a deep copy of the tree.
func (t *Tree) Clone() *Tree {
	c := &Tree{Scopes: make(map[ID]*Scope, len(t.Scopes)), Next: t.Next}
	for id, s := range t.Scopes {
		cp := *s
		cp.Vars = CloneVars(s.Vars)
		c.Scopes[id] = &cp
	}
	return c
}

// CloneVars deep-copies a map of JSON-shaped values.
func CloneVars(m map[string]any) map[string]any {
	if m == nil {
		return nil
	}
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = CloneValue(v)
	}
	return out
}

// CloneValue deep-copies one JSON-shaped value.
func CloneValue(v any) any {
	switch x := v.(type) {
	case map[string]any:
		return CloneVars(x)
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = CloneValue(e)
		}
		return out
	default:
		return v
	}
}
