package auth

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxPatternBytes is the longest pattern ParsePattern accepts.
const MaxPatternBytes = 256

// Pattern matches resource keys (process keys, decision keys, job types).
//
// # The pattern rule
//
// A pattern is 1 to MaxPatternBytes bytes of valid UTF-8 with no white
// space and no control characters, and holds at most one '*'. The '*'
// stands for any run of characters, the empty run included, and may stand
// anywhere: "*" matches every key, "order-*" every key that starts with
// "order-", "*-eu" every key that ends with "-eu", "order-*-eu" both at
// once, and "order" only the key "order". Matching is case-sensitive and
// byte-wise, as keys are compared everywhere else.
//
// One '*' keeps a pattern a prefix and a suffix, so a store can translate
// it into an index-friendly condition (see Prefix and Suffix) and a reader
// can tell at a glance what it covers. A key that itself contains '*' (job
// types are free text) can only be matched through a wildcard.
//
// The zero Pattern matches nothing: no key is empty.
type Pattern struct {
	prefix, suffix string
	wild           bool
}

// ParsePattern parses s under the pattern rule, or returns an error
// wrapping ErrInvalidPattern that says which part of the rule s breaks.
func ParsePattern(s string) (Pattern, error) {
	fail := func(why string) (Pattern, error) {
		return Pattern{}, fmt.Errorf("pattern %q: %s: %w", s, why, ErrInvalidPattern)
	}
	switch {
	case s == "":
		return fail("empty")
	case len(s) > MaxPatternBytes:
		return fail(fmt.Sprintf("longer than %d bytes", MaxPatternBytes))
	case !utf8.ValidString(s):
		return fail("not valid UTF-8")
	case strings.Count(s, "*") > 1:
		return fail("more than one '*'")
	}
	for _, r := range s {
		if unicode.IsSpace(r) || unicode.IsControl(r) {
			return fail("white space or control character")
		}
	}
	prefix, suffix, wild := strings.Cut(s, "*")
	return Pattern{prefix: prefix, suffix: suffix, wild: wild}, nil
}

// MustParsePattern is ParsePattern for patterns written in code; it panics
// on a pattern that breaks the rule.
func MustParsePattern(s string) Pattern {
	p, err := ParsePattern(s)
	if err != nil {
		panic(err)
	}
	return p
}

// Any returns the pattern "*", which matches every key.
func Any() Pattern { return Pattern{wild: true} }

// Match reports whether key matches p. The empty key matches no pattern.
func (p Pattern) Match(key string) bool {
	if key == "" {
		return false
	}
	if !p.wild {
		return p.prefix != "" && key == p.prefix
	}
	return len(key) >= len(p.prefix)+len(p.suffix) &&
		strings.HasPrefix(key, p.prefix) && strings.HasSuffix(key, p.suffix)
}

// Contains reports whether every key q matches also matches p: "*"
// contains every pattern, "order-*" contains "order-1", "order-eu-*" and
// "order-*-eu", and "order" contains only "order". A pattern without '*'
// contains exactly the patterns equal to it; one with a '*' contains a
// wildcard pattern when that pattern's prefix starts with p's prefix and
// its suffix ends with p's suffix (the '*' may stand for the empty run, and
// for any character, so nothing weaker suffices), and a plain key when p
// matches it. The zero Pattern contains nothing and is contained by
// nothing.
func (p Pattern) Contains(q Pattern) bool {
	switch {
	case p.IsZero() || q.IsZero():
		return false
	case !q.wild:
		return p.Match(q.prefix)
	case !p.wild:
		return false
	}
	return strings.HasPrefix(q.prefix, p.prefix) && strings.HasSuffix(q.suffix, p.suffix)
}

// IsAny reports whether p is "*".
func (p Pattern) IsAny() bool { return p.wild && p.prefix == "" && p.suffix == "" }

// IsZero reports whether p is the zero Pattern, which matches nothing.
func (p Pattern) IsZero() bool { return p == Pattern{} }

// Wildcard reports whether p holds a '*'. Without one, p matches exactly
// the key Prefix.
func (p Pattern) Wildcard() bool { return p.wild }

// Prefix returns the part of p before its '*', or all of p if it has none.
func (p Pattern) Prefix() string { return p.prefix }

// Suffix returns the part of p after its '*' ("" if it has none).
func (p Pattern) Suffix() string { return p.suffix }

// String returns p as ParsePattern reads it.
func (p Pattern) String() string {
	if !p.wild {
		return p.prefix
	}
	return p.prefix + "*" + p.suffix
}

// MarshalText returns p as ParsePattern reads it.
func (p Pattern) MarshalText() ([]byte, error) {
	if p.IsZero() {
		return nil, fmt.Errorf("marshal pattern: zero pattern: %w", ErrInvalidPattern)
	}
	return []byte(p.String()), nil
}

// UnmarshalText parses text with ParsePattern, so a decoded pattern always
// obeys the rule.
func (p *Pattern) UnmarshalText(text []byte) error {
	v, err := ParsePattern(string(text))
	if err != nil {
		return err
	}
	*p = v
	return nil
}
