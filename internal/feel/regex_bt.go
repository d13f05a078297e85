package feel

import (
	"errors"
	"strconv"
	"strings"
	"unicode/utf8"
)

// A backtracking matcher for the XPath regular expressions RE2 cannot
// run: those with back-references ((a)\1). It parses the pattern into a
// small tree and matches by backtracking with a step budget (an
// expression that would need more steps does not match), so that no
// pattern can run away.

// matcher is what matches, replace and split need of a compiled pattern;
// *regexp.Regexp and *btRegex implement it.
type matcher interface {
	MatchString(s string) bool
	Split(s string, n int) []string
	ReplaceAllString(src, repl string) string
	NumSubexp() int
}

// errBackref marks a pattern that needs the backtracking matcher.
var errBackref = errors.New("back-reference")

// btMaxSteps bounds the work of one match.
const btMaxSteps = 1 << 20

type btKind uint8

const (
	btAlt btKind = iota
	btConcat
	btRepeat
	btGroup
	btSet
	btBOL
	btEOL
	btRef
)

type btNode struct {
	kind     btKind
	subs     []*btNode
	set      *runeSet
	min, max int // repeat; max < 0: unbounded
	greedy   bool
	idx      int // group index (0: not capturing), back-reference number
}

// btRegex is a pattern compiled for the backtracking matcher.
type btRegex struct {
	root      *btNode
	groups    int
	ci        bool // case-insensitive back-references
	multiline bool
}

// compileBacktrack parses pat (already stripped for the flag x) for the
// backtracking matcher.
func compileBacktrack(pat string, dotAll, ci, multiline bool) (*btRegex, error) {
	p := &rxParser{src: pat, dotAll: dotAll, ci: ci, closed: map[int]bool{}}
	root, err := p.btAlt(0)
	if err != nil {
		return nil, err
	}
	if p.i < len(p.src) {
		return nil, errors.New("unmatched ')'")
	}
	return &btRegex{root: root, groups: p.groups, ci: ci, multiline: multiline}, nil
}

func (p *rxParser) btAlt(depth int) (*btNode, error) {
	alt := &btNode{kind: btAlt}
	for {
		c, err := p.btConcat(depth)
		if err != nil {
			return nil, err
		}
		alt.subs = append(alt.subs, c)
		if p.i < len(p.src) && p.src[p.i] == '|' {
			p.i++
			continue
		}
		return alt, nil
	}
}

func (p *rxParser) btConcat(depth int) (*btNode, error) {
	cat := &btNode{kind: btConcat}
	for p.i < len(p.src) {
		r, size := p.peek()
		if r == '|' || (r == ')' && depth > 0) {
			break
		}
		var atom *btNode
		switch r {
		case ')':
			return nil, errors.New("unmatched ')'")
		case '(':
			p.i++
			idx := 0
			if strings.HasPrefix(p.src[p.i:], "?:") {
				p.i += 2
			} else {
				p.groups++
				idx = p.groups
			}
			inner, err := p.btAlt(depth + 1)
			if err != nil {
				return nil, err
			}
			if p.i >= len(p.src) || p.src[p.i] != ')' {
				return nil, errors.New("missing ')'")
			}
			p.i++
			if idx > 0 {
				p.closed[idx] = true
			}
			atom = &btNode{kind: btGroup, idx: idx, subs: []*btNode{inner}}
		case '[':
			set, err := p.class()
			if err != nil {
				return nil, err
			}
			atom = &btNode{kind: btSet, set: set}
		case '.':
			p.i++
			set := setOf('\n', '\r').negate()
			if p.dotAll {
				set = setOf().negate()
			}
			atom = &btNode{kind: btSet, set: set}
		case '^':
			p.i++
			atom = &btNode{kind: btBOL}
		case '$':
			p.i++
			atom = &btNode{kind: btEOL}
		case '\\':
			if p.i+1 < len(p.src) && p.src[p.i+1] >= '1' && p.src[p.i+1] <= '9' {
				j := p.i + 2
				n := int(p.src[p.i+1] - '0')
				for j < len(p.src) && isDigit(p.src[j]) && n*10+int(p.src[j]-'0') <= p.groups {
					n = n*10 + int(p.src[j]-'0')
					j++
				}
				if !p.closed[n] {
					return nil, errors.New("back-reference to a group that is not closed before it")
				}
				p.i = j
				atom = &btNode{kind: btRef, idx: n}
				break
			}
			set, lit, err := p.escapeSet()
			if err != nil {
				return nil, err
			}
			if set == nil {
				set = setOf(lit)
			}
			atom = &btNode{kind: btSet, set: p.folded(set)}
		case '*', '+', '?', '{', ']', '}':
			return nil, errors.New("misplaced " + string(r))
		default:
			p.i += size
			atom = &btNode{kind: btSet, set: p.folded(setOf(r))}
		}
		atom, err := p.btQuantifier(atom)
		if err != nil {
			return nil, err
		}
		cat.subs = append(cat.subs, atom)
	}
	return cat, nil
}

func (p *rxParser) btQuantifier(atom *btNode) (*btNode, error) {
	if p.i >= len(p.src) {
		return atom, nil
	}
	rep := &btNode{kind: btRepeat, subs: []*btNode{atom}, greedy: true}
	switch p.src[p.i] {
	case '*':
		rep.min, rep.max = 0, -1
		p.i++
	case '+':
		rep.min, rep.max = 1, -1
		p.i++
	case '?':
		rep.min, rep.max = 0, 1
		p.i++
	case '{':
		end := strings.IndexByte(p.src[p.i:], '}')
		if end < 0 {
			return nil, errors.New("unterminated quantifier")
		}
		lo, hi, comma := strings.Cut(p.src[p.i+1:p.i+end], ",")
		a, err := strconv.Atoi(lo)
		if err != nil {
			return nil, errors.New("invalid quantifier")
		}
		rep.min, rep.max = a, a
		if comma {
			rep.max = -1
			if hi != "" {
				if rep.max, err = strconv.Atoi(hi); err != nil || rep.max < a {
					return nil, errors.New("invalid quantifier")
				}
			}
		}
		p.i += end + 1
	default:
		return atom, nil
	}
	if p.i < len(p.src) && p.src[p.i] == '?' {
		rep.greedy = false
		p.i++
	}
	return rep, nil
}

// btState is one match attempt.
type btState struct {
	re    *btRegex
	s     string
	caps  []int
	steps int
}

func (st *btState) match(n *btNode, pos int, k func(int) bool) bool {
	st.steps++
	if st.steps > btMaxSteps {
		return false
	}
	switch n.kind {
	case btAlt:
		for _, b := range n.subs {
			if st.match(b, pos, k) {
				return true
			}
		}
		return false
	case btConcat:
		return st.seq(n.subs, pos, k)
	case btGroup:
		if n.idx == 0 {
			return st.match(n.subs[0], pos, k)
		}
		oldS, oldE := st.caps[2*n.idx], st.caps[2*n.idx+1]
		if st.match(n.subs[0], pos, func(end int) bool {
			ps, pe := st.caps[2*n.idx], st.caps[2*n.idx+1]
			st.caps[2*n.idx], st.caps[2*n.idx+1] = pos, end
			if k(end) {
				return true
			}
			st.caps[2*n.idx], st.caps[2*n.idx+1] = ps, pe
			return false
		}) {
			return true
		}
		st.caps[2*n.idx], st.caps[2*n.idx+1] = oldS, oldE
		return false
	case btRepeat:
		return st.repeat(n, pos, 0, k)
	case btSet:
		if pos >= len(st.s) {
			return false
		}
		r, size := utf8.DecodeRuneInString(st.s[pos:])
		if !n.set.has(r) {
			return false
		}
		return k(pos + size)
	case btBOL:
		if pos == 0 || (st.re.multiline && st.s[pos-1] == '\n') {
			return k(pos)
		}
		return false
	case btEOL:
		if pos == len(st.s) || (st.re.multiline && st.s[pos] == '\n') {
			return k(pos)
		}
		return false
	case btRef:
		s, e := st.caps[2*n.idx], st.caps[2*n.idx+1]
		if s < 0 {
			return k(pos) // an unset group matches the empty string
		}
		ref := st.s[s:e]
		if strings.HasPrefix(st.s[pos:], ref) {
			return k(pos + len(ref))
		}
		if st.re.ci && len(st.s)-pos >= len(ref) && strings.EqualFold(st.s[pos:pos+len(ref)], ref) {
			return k(pos + len(ref))
		}
		return false
	}
	return false
}

func (st *btState) seq(items []*btNode, pos int, k func(int) bool) bool {
	if len(items) == 0 {
		return k(pos)
	}
	return st.match(items[0], pos, func(next int) bool { return st.seq(items[1:], next, k) })
}

func (st *btState) repeat(n *btNode, pos, count int, k func(int) bool) bool {
	more := func() bool {
		if n.max >= 0 && count >= n.max {
			return false
		}
		return st.match(n.subs[0], pos, func(next int) bool {
			if next == pos { // an empty iteration ends the loop
				return false
			}
			return st.repeat(n, next, count+1, k)
		})
	}
	if count < n.min {
		return more()
	}
	if n.greedy {
		return more() || k(pos)
	}
	return k(pos) || more()
}

// find returns the submatch positions of the leftmost match at or after
// start, or nil.
func (re *btRegex) find(s string, start int) []int {
	st := &btState{re: re, s: s, caps: make([]int, 2*(re.groups+1))}
	for pos := start; pos <= len(s); {
		for i := range st.caps {
			st.caps[i] = -1
		}
		end := -1
		if st.match(re.root, pos, func(e int) bool { end = e; return true }) {
			st.caps[0], st.caps[1] = pos, end
			return append([]int(nil), st.caps...)
		}
		if pos == len(s) || st.steps > btMaxSteps {
			return nil
		}
		_, size := utf8.DecodeRuneInString(s[pos:])
		pos += size
	}
	return nil
}

// findAll returns every non-overlapping match.
func (re *btRegex) findAll(s string) [][]int {
	var out [][]int
	for pos := 0; pos <= len(s); {
		m := re.find(s, pos)
		if m == nil {
			break
		}
		out = append(out, m)
		if m[1] == m[0] {
			if m[1] == len(s) {
				break
			}
			_, size := utf8.DecodeRuneInString(s[m[1]:])
			pos = m[1] + size
		} else {
			pos = m[1]
		}
	}
	return out
}

// MatchString reports whether s contains a match.
func (re *btRegex) MatchString(s string) bool { return re.find(s, 0) != nil }

// NumSubexp returns the number of capturing groups.
func (re *btRegex) NumSubexp() int { return re.groups }

// Split splits s around the matches (n < 0: all).
func (re *btRegex) Split(s string, n int) []string {
	var out []string
	last := 0
	for _, m := range re.findAll(s) {
		if n > 0 && len(out) == n-1 {
			break
		}
		out = append(out, s[last:m[0]])
		last = m[1]
	}
	return append(out, s[last:])
}

// ReplaceAllString replaces every match by repl, expanding ${n} and $$
// (the forms xpathReplacement writes).
func (re *btRegex) ReplaceAllString(s, repl string) string {
	var b strings.Builder
	last := 0
	for _, m := range re.findAll(s) {
		b.WriteString(s[last:m[0]])
		for i := 0; i < len(repl); i++ {
			if repl[i] != '$' || i+1 >= len(repl) {
				b.WriteByte(repl[i])
				continue
			}
			if repl[i+1] == '$' {
				b.WriteByte('$')
				i++
				continue
			}
			if repl[i+1] == '{' {
				end := strings.IndexByte(repl[i:], '}')
				if n, err := strconv.Atoi(repl[i+2 : i+end]); err == nil && n <= re.groups && m[2*n] >= 0 {
					b.WriteString(s[m[2*n]:m[2*n+1]])
				}
				i += end
				continue
			}
			b.WriteByte('$')
		}
		last = m[1]
	}
	b.WriteString(s[last:])
	return b.String()
}

// has reports whether r is in the set.
func (s *runeSet) has(r rune) bool {
	lo, hi := 0, len(s.ranges)
	for lo < hi {
		m := (lo + hi) / 2
		switch {
		case r < s.ranges[m].lo:
			hi = m
		case r > s.ranges[m].hi:
			lo = m + 1
		default:
			return true
		}
	}
	return false
}
