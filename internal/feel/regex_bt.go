package feel

import (
	"errors"
	"strconv"
	"strings"
	"unicode/utf8"
)

// A backtracking matcher for the XPath regular expressions RE2 cannot
// run: those with back-references ((a)\1). It parses the pattern into a
// small tree and matches by backtracking. Backtracking can take time
// exponential in the input, so every node it visits is paid for from the
// evaluation's budget (see spendFunc): a search that runs out fails the
// evaluation with the budget error — it never reads as "no match" — and
// the nesting of the search is bounded, so no pattern can exhaust the
// stack.

// errBackref marks a pattern that needs the backtracking matcher.
var errBackref = errors.New("back-reference")

// btWorkPerStep is how many visited nodes one step pays for.
const btWorkPerStep = 1

// btMaxDepth bounds the nesting of one search (every node matched
// nests the rest of the match), so that a long input cannot grow the
// stack without bound.
const btMaxDepth = 1 << 14

// errBacktrackTooDeep fails a search that would nest deeper.
var errBacktrackTooDeep = budgetErrorf("the regular expression with back-references nests deeper than %d while matching", btMaxDepth)

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
	steps     int // compile cost
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
	return &btRegex{root: root, groups: p.groups, ci: ci, multiline: multiline, steps: len(pat)}, nil
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

// btState is one search.
type btState struct {
	re    *btRegex
	s     string
	caps  []int
	work  int // nodes visited and not yet paid for
	depth int
	spend spendFunc
	broke bool // the budget is gone, or the nesting too deep (tooDeep)
	// tooDeep: the search nested deeper than btMaxDepth.
	tooDeep bool
}

// visit pays for one node; false stops the search.
func (st *btState) visit() bool {
	if st.broke {
		return false
	}
	st.work++
	if st.work >= btWorkPerStep {
		if !st.spend(st.work / btWorkPerStep) {
			st.broke = true
			return false
		}
		st.work %= btWorkPerStep
	}
	return true
}

func (st *btState) match(n *btNode, pos int, k func(int) bool) bool {
	if !st.visit() {
		return false
	}
	st.depth++
	defer func() { st.depth-- }()
	if st.depth > btMaxDepth {
		st.broke, st.tooDeep = true, true
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

func (re *btRegex) searcher(spend spendFunc) finder {
	st := &btState{re: re, caps: make([]int, 2*(re.groups+1)), spend: spend}
	return func(s string, start int) ([]int, error) {
		st.s = s
		for pos := start; pos <= len(s); {
			for i := range st.caps {
				st.caps[i] = -1
			}
			end := -1
			if st.match(re.root, pos, func(e int) bool { end = e; return true }) {
				st.caps[0], st.caps[1] = pos, end
				return append([]int(nil), st.caps...), nil
			}
			if st.broke {
				if st.tooDeep {
					return nil, errBacktrackTooDeep
				}
				return nil, errSpent
			}
			if pos == len(s) {
				break
			}
			_, size := utf8.DecodeRuneInString(s[pos:])
			pos += size
		}
		return nil, nil
	}
}

// numSubexp returns the number of capturing groups.
func (re *btRegex) numSubexp() int { return re.groups }

// cost is the compile cost: the pattern's length.
func (re *btRegex) cost() int { return re.steps }

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
