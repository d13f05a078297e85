package auth_test

import (
	"testing"

	"github.com/gobpm/gobpm/internal/auth"
)

func TestPatternContains(t *testing.T) {
	t.Parallel()
	cases := []struct {
		p, q string
		want bool
	}{
		{"*", "*", true},
		{"*", "order", true},
		{"*", "order-*", true},
		{"order-*", "order-1", true},
		{"order-*", "order-*", true},
		{"order-*", "order-eu-*", true},
		{"order-*", "order-*-eu", true},
		{"order-*", "order-", true},
		{"order-*", "*", false},
		{"order-*", "order*", false}, // "order" and "orderly" are not "order-…"
		{"order-*", "invoice-1", false},
		{"*-eu", "order-*-eu", true},
		{"*-eu", "order-*", false},
		{"order-*-eu", "order-*-eu", true},
		{"order-*-eu", "order-x*-eu", true},
		{"order-*-eu", "order-*", false},
		{"order-*-eu", "*-eu", false},
		{"order", "order", true},
		{"order", "order-*", false},
		{"order", "*", false},
		{"order", "orde", false},
		{"a*a", "a*", false}, // "ab" matches a* but not a*a
		{"ab*", "a*b", false},
		{"a*", "a*b", true},
	}
	for _, c := range cases {
		p, q := auth.MustParsePattern(c.p), auth.MustParsePattern(c.q)
		if got := p.Contains(q); got != c.want {
			t.Errorf("%q.Contains(%q) = %v, want %v", c.p, c.q, got, c.want)
		}
	}
	var zero auth.Pattern
	if zero.Contains(auth.Any()) || auth.Any().Contains(zero) || zero.Contains(zero) {
		t.Error("the zero pattern contains, or is contained by, something")
	}
}

// TestPatternContainsAgreesWithMatch checks Contains against its meaning
// for every small pattern over {a, b}: p contains q exactly when every key
// q matches is matched by p. Keys over {a, b, c} up to five characters
// find every counterexample: one exists, if at all, with the '*' of q
// standing for nothing or for one character outside the patterns' own.
func TestPatternContainsAgreesWithMatch(t *testing.T) {
	t.Parallel()
	patterns := smallPatterns("ab", 3)
	keys := allStrings("abc", 5)
	for _, ps := range patterns {
		p := auth.MustParsePattern(ps)
		for _, qs := range patterns {
			q := auth.MustParsePattern(qs)
			contained := true
			for _, k := range keys {
				if q.Match(k) && !p.Match(k) {
					contained = false
					break
				}
			}
			if got := p.Contains(q); got != contained {
				t.Errorf("%q.Contains(%q) = %v, but by their keys %v", ps, qs, got, contained)
			}
		}
	}
}

// smallPatterns returns every pattern of up to n characters over alphabet,
// each with no '*' or one anywhere.
func smallPatterns(alphabet string, n int) []string {
	var out []string
	for _, s := range allStrings(alphabet, n) {
		if s != "" {
			out = append(out, s)
		}
		for i := 0; i <= len(s); i++ {
			out = append(out, s[:i]+"*"+s[i:])
		}
	}
	return out
}

// allStrings returns every string of up to n characters over alphabet,
// the empty one included.
func allStrings(alphabet string, n int) []string {
	out := []string{""}
	level := []string{""}
	for range n {
		var next []string
		for _, s := range level {
			for _, r := range alphabet {
				next = append(next, s+string(r))
			}
		}
		out = append(out, next...)
		level = next
	}
	return out
}

func TestGrantContainsAndRestrictionExcess(t *testing.T) {
	t.Parallel()
	g := func(perm auth.Permission, kind auth.ResourceKind, pattern string) auth.Grant {
		t.Helper()
		gr, err := auth.NewGrant(perm, kind, pattern)
		if err != nil {
			t.Fatal(err)
		}
		return gr
	}
	readOrders := g(auth.PermRead, auth.KindProcess, "order-*")
	cases := []struct {
		name string
		g, h auth.Grant
		want bool
	}{
		{"narrower pattern", readOrders, g(auth.PermRead, auth.KindProcess, "order-1"), true},
		{"same", readOrders, readOrders, true},
		{"wider pattern", readOrders, g(auth.PermRead, auth.KindProcess, "*"), false},
		{"other permission", readOrders, g(auth.PermStart, auth.KindProcess, "order-1"), false},
		{"other kind", readOrders, g(auth.PermRead, auth.KindDecision, "order-1"), false},
		{"system", g(auth.PermActAs, auth.KindSystem, "*"), g(auth.PermActAs, auth.KindSystem, "*"), true},
		{"admin is not act-as", g(auth.PermAdmin, auth.KindSystem, "*"), g(auth.PermActAs, auth.KindSystem, "*"), false},
		{"invalid contains nothing", auth.Grant{Permission: auth.PermRead, Kind: auth.KindSystem, Pattern: auth.Any()},
			auth.Grant{Permission: auth.PermRead, Kind: auth.KindSystem, Pattern: auth.Any()}, false},
	}
	for _, c := range cases {
		if got := c.g.Contains(c.h); got != c.want {
			t.Errorf("%s: %s contains %s = %v, want %v", c.name, c.g, c.h, got, c.want)
		}
	}

	r := auth.Restriction{Grants: []auth.Grant{readOrders, g(auth.PermWork, auth.KindJobType, "pay")}}
	want := []auth.Grant{g(auth.PermRead, auth.KindProcess, "order-eu"), g(auth.PermRead, auth.KindProcess, "*"),
		g(auth.PermWork, auth.KindJobType, "pay"), g(auth.PermActAs, auth.KindSystem, "*")}
	excess := r.Excess(want)
	if len(excess) != 2 || excess[0] != want[1] || excess[1] != want[3] {
		t.Errorf("Excess = %v, want [%s %s]", excess, want[1], want[3])
	}
	other := auth.Restriction{Grants: []auth.Grant{g(auth.PermRead, auth.KindProcess, "*-eu")}}
	within := auth.Within(want, []auth.Restriction{r, other})
	if len(within) != 1 || within[0] != want[0] {
		t.Errorf("Within both = %v, want [%s]", within, want[0])
	}
	if got := auth.Within(want, nil); len(got) != len(want) {
		t.Errorf("Within no restriction = %v, want all of %v", got, want)
	}
}
