package auth

import "slices"

// UserID names a user: a built-in user's name, or the configured claim of
// an OIDC identity. Task assignees and candidate users compare against it.
type UserID string

// GroupID names a group: a built-in group, or one mapped from an OIDC
// claim. Candidate groups compare against it.
type GroupID string

// Principal is who is asking, with everything needed to decide what they
// may do. Whoever authenticates the request builds it (the store resolves a
// built-in user's or token owner's roles and grants, including those given
// to the user's groups); Allowed and Filter only read it.
//
// The zero Principal, and any Principal without a User, is anonymous and is
// allowed nothing.
type Principal struct {
	// User is the authenticated user; for a token, its owner.
	User UserID
	// Groups are the user's groups, for candidate-group rules. Grants and
	// roles given to groups must already be in Roles and Grants: Allowed
	// does not look groups up.
	Groups []GroupID
	// Roles are the built-in roles given to the user or their groups.
	Roles []Role
	// Grants are the grants given to the user or their groups.
	Grants []Grant
	// Restrictions narrow a token below its owner's rights: the token may
	// do only what the owner's roles and grants allow and every restriction
	// allows too. They can never widen anything. None means unrestricted.
	Restrictions []Restriction
}

// Restriction lists what a token may do, within what its owner may do. A
// Restriction with no grants allows nothing.
type Restriction struct {
	// Grants are what the token may do, each within its owner's rights.
	Grants []Grant `json:"grants"`
}

// Excess returns the grants of want that r does not allow: those that no
// grant of r contains (see Grant.Contains), in want's order. A token minted
// under r may carry only grants for which Excess is empty.
func (r Restriction) Excess(want []Grant) []Grant {
	var out []Grant
	for _, w := range want {
		if !slices.ContainsFunc(r.Grants, func(g Grant) bool { return g.Contains(w) }) {
			out = append(out, w)
		}
	}
	return out
}

// Within returns the grants of want that every restriction of rs allows
// (see Excess), in want's order: what a token narrowed by all of rs may
// still be narrowed to. With no restrictions it returns want.
func Within(want []Grant, rs []Restriction) []Grant {
	out := make([]Grant, 0, len(want))
	for _, w := range want {
		if !slices.ContainsFunc(rs, func(r Restriction) bool { return len(r.Excess([]Grant{w})) > 0 }) {
			out = append(out, w)
		}
	}
	return out
}

// InGroup reports whether p's user is in group g.
func (p Principal) InGroup(g GroupID) bool { return slices.Contains(p.Groups, g) }

// Allowed reports whether p may do perm on the resource of kind whose key
// is key. It holds when p has a user, one of p's roles or grants covers
// (perm, kind, key), and every one of p's Restrictions has a grant that
// covers it too. For KindSystem the key is ignored; for any other kind an
// empty key is never allowed. Invalid grants and unknown roles cover
// nothing.
func Allowed(p Principal, perm Permission, kind ResourceKind, key string) bool {
	if p.User == "" {
		return false
	}
	covered := func(gs []Grant) bool {
		return slices.ContainsFunc(gs, func(g Grant) bool { return g.Covers(perm, kind, key) })
	}
	owner := covered(p.Grants) || slices.ContainsFunc(p.Roles, func(r Role) bool { return covered(r.Grants()) })
	if !owner {
		return false
	}
	for _, r := range p.Restrictions {
		if !covered(r.Grants) {
			return false
		}
	}
	return true
}

// Filter returns the keys of kind on which p has perm, in a form a list can
// apply in Go (Match) or translate into a query (Clauses). For every kind
// with keys and every key, Filter(perm, kind).Match(key) ==
// Allowed(p, perm, kind, key). KindSystem has no keys: ask Allowed.
func (p Principal) Filter(perm Permission, kind ResourceKind) Filter {
	if p.User == "" {
		return Filter{none: true}
	}
	patterns := func(gs []Grant) []Pattern {
		var ps []Pattern
		for _, g := range gs {
			if g.Permission == perm && g.Kind == kind && g.Validate() == nil {
				ps = append(ps, g.Pattern)
			}
		}
		return ps
	}
	owner := patterns(p.Grants)
	for _, r := range p.Roles {
		owner = append(owner, patterns(r.Grants())...)
	}
	sets := [][]Pattern{owner}
	for _, r := range p.Restrictions {
		sets = append(sets, patterns(r.Grants))
	}
	var f Filter
	for _, ps := range sets {
		switch {
		case len(ps) == 0:
			return Filter{none: true}
		case slices.ContainsFunc(ps, Pattern.IsAny):
			// Every key passes this clause: leave it out.
		default:
			f.clauses = append(f.clauses, ps)
		}
	}
	return f
}

// Filter selects resource keys: a key passes when, in every clause, it
// matches at least one pattern. Principal.Filter builds it. The zero Filter
// passes every key.
type Filter struct {
	none    bool
	clauses [][]Pattern
}

// Match reports whether key passes f. The empty key never passes.
func (f Filter) Match(key string) bool {
	if f.none || key == "" {
		return false
	}
	for _, ps := range f.clauses {
		if !slices.ContainsFunc(ps, func(p Pattern) bool { return p.Match(key) }) {
			return false
		}
	}
	return true
}

// All reports whether every (non-empty) key passes f, so a list needs no
// filtering.
func (f Filter) All() bool { return !f.none && len(f.clauses) == 0 }

// None reports whether no key passes f, so a list is empty without asking
// the store.
func (f Filter) None() bool { return f.none }

// Clauses returns f as a conjunction of disjunctions: a key passes when, in
// every returned slice, it matches one of the patterns. It returns nil both
// when All and when None hold; ask those first. The slices are copies.
func (f Filter) Clauses() [][]Pattern {
	if f.none {
		return nil
	}
	out := make([][]Pattern, len(f.clauses))
	for i, ps := range f.clauses {
		out[i] = slices.Clone(ps)
	}
	return out
}
