package feel

import (
	"regexp/syntax"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Matching with a step budget. Go's regexp runs each search in linear
// time, but replace and split search once per match, and a search may
// scan to the end of the input before it settles on a match (a*b|a over
// "aaa…" does), so replacing in 10,000 characters can take seconds — and
// regexp cannot be stopped. FEEL therefore runs the RE2 patterns on its
// own Pike VM over the program regexp/syntax compiles: the same
// leftmost-first semantics as regexp (the same algorithm as its NFA
// matcher), but every instruction visited is paid for, so a search stops
// as soon as the evaluation's budget is gone.

// spendFunc pays for n units of matcher work; false means the budget is
// gone and the match must stop.
type spendFunc func(n int) bool

// matcher is a compiled pattern. *vmRegex and *btRegex implement it.
type matcher interface {
	// searcher returns a search paid for through spend: it returns the
	// submatch positions ([start, end] pairs, -1 for a group that did not
	// take part) of the leftmost match in s at or after start, nil for no
	// match, or errSpent once spend refused. One search serves the
	// successive finds of one replace or split.
	searcher(spend spendFunc) finder
	// numSubexp returns the number of capturing groups.
	numSubexp() int
	// cost is the step cost of compiling the pattern, charged on every
	// use (cached or not) so that the budget does not depend on the cache.
	cost() int
}

// finder finds the leftmost match at or after start (see matcher); the
// error is errSpent when the budget is gone, or another budget error.
type finder func(s string, start int) ([]int, error)

// vmRegex is an RE2 pattern compiled for the Pike VM.
type vmRegex struct {
	prog      *syntax.Prog
	ncap      int // 2 × (groups + 1)
	groups    int
	startCond syntax.EmptyOp
	steps     int // compile cost
}

// maxRegexInsts bounds the program a pattern may compile to (repetitions
// count: a{1000} is a thousand instructions). Every position of the
// input may visit each instruction once, so this bounds the work per
// character.
const maxRegexInsts = 1 << 15

// compileVM compiles an RE2 pattern for the Pike VM.
func compileVM(src string) (*vmRegex, error) {
	re, err := syntax.Parse(src, syntax.Perl)
	if err != nil {
		return nil, err
	}
	if n := progSize(re); n > maxRegexInsts {
		return nil, errRegexTooLarge(n)
	}
	groups := re.MaxCap()
	prog, err := syntax.Compile(re.Simplify())
	if err != nil {
		return nil, err
	}
	if len(prog.Inst) > maxRegexInsts {
		return nil, errRegexTooLarge(len(prog.Inst))
	}
	return &vmRegex{
		prog: prog, ncap: 2 * (groups + 1), groups: groups, startCond: prog.StartCond(),
		steps: len(prog.Inst) + len(src)>>4,
	}, nil
}

// errRegexTooLarge refuses a pattern whose program would be too large.
func errRegexTooLarge(n int) error {
	return &regexTooLarge{n: n}
}

type regexTooLarge struct{ n int }

func (e *regexTooLarge) Error() string {
	return "the pattern compiles to about " + strconv.Itoa(e.n) + " instructions (limit " + strconv.Itoa(maxRegexInsts) + ")"
}

// progSize estimates, from the parse tree, the instructions a pattern
// compiles to, before anything is expanded: repetitions multiply.
func progSize(re *syntax.Regexp) int {
	sub := 0
	for _, s := range re.Sub {
		sub = min(sub+progSize(s), maxRegexInsts+1)
	}
	switch re.Op {
	case syntax.OpRepeat:
		n := re.Max
		if n < 0 {
			n = re.Min + 1
		}
		return min(max(n, 1)*(sub+1), maxRegexInsts+1)
	case syntax.OpLiteral:
		return len(re.Rune) + 1
	}
	return sub + 2
}

func (re *vmRegex) numSubexp() int { return re.groups }
func (re *vmRegex) cost() int      { return re.steps }

// vmThread is one thread of the VM: an instruction waiting for the next
// character, with its capture positions.
type vmThread struct {
	inst *syntax.Inst
	cap  []int
}

type vmEntry struct {
	pc uint32
	t  *vmThread
}

// vmQueue is a sparse set of instructions in priority order.
type vmQueue struct {
	sparse []uint32
	dense  []vmEntry
}

// vmMachine is the state of one search.
type vmMachine struct {
	re       *vmRegex
	q0, q1   vmQueue
	pool     []*vmThread
	matched  bool
	matchcap []int
	work     int // instructions visited and not yet paid for
	spend    spendFunc
	broke    bool // the budget is gone
}

// vmWorkPerStep is how many instruction visits one step pays for.
const vmWorkPerStep = 4

func (re *vmRegex) newMachine(spend spendFunc) *vmMachine {
	n := len(re.prog.Inst)
	return &vmMachine{
		re:       re,
		q0:       vmQueue{sparse: make([]uint32, n), dense: make([]vmEntry, 0, n)},
		q1:       vmQueue{sparse: make([]uint32, n), dense: make([]vmEntry, 0, n)},
		matchcap: make([]int, re.ncap),
		spend:    spend,
	}
}

// pay settles the work done so far, in whole steps.
func (m *vmMachine) pay() bool {
	if m.work >= vmWorkPerStep {
		if !m.spend(m.work / vmWorkPerStep) {
			m.broke = true
			return false
		}
		m.work %= vmWorkPerStep
	}
	return true
}

func (re *vmRegex) searcher(spend spendFunc) finder {
	m := re.newMachine(spend)
	return func(s string, start int) ([]int, error) {
		if m.broke {
			return nil, errSpent
		}
		if !m.match(s, start) {
			if m.broke {
				return nil, errSpent
			}
			return nil, nil
		}
		return append([]int(nil), m.matchcap...), nil
	}
}

// contextAt is the empty-width context between the characters around pos.
func contextAt(s string, pos int) syntax.EmptyOp {
	r1, r2 := rune(-1), rune(-1)
	if pos > 0 && pos <= len(s) {
		r1, _ = utf8.DecodeLastRuneInString(s[:pos])
	}
	if pos < len(s) {
		r2, _ = utf8.DecodeRuneInString(s[pos:])
	}
	return syntax.EmptyOpContext(r1, r2)
}

// runeAt decodes the character at pos (-1 at the end) and its width.
func runeAt(s string, pos int) (rune, int) {
	if pos >= len(s) {
		return -1, 0
	}
	r, w := utf8.DecodeRuneInString(s[pos:])
	return r, w
}

// match runs the VM from pos, as regexp's NFA matcher does: a new thread
// starts at every position until a match is found; the first thread to
// match (in priority order) cuts off the ones after it.
func (m *vmMachine) match(s string, pos int) bool {
	if m.re.startCond == ^syntax.EmptyOp(0) {
		return false
	}
	for i := range m.matchcap {
		m.matchcap[i] = -1
	}
	m.matched = false
	m.q0.dense, m.q1.dense = m.q0.dense[:0], m.q1.dense[:0]
	runq, nextq := &m.q0, &m.q1
	r, width := runeAt(s, pos)
	r1, width1 := rune(-1), 0
	if r >= 0 {
		r1, width1 = runeAt(s, pos+width)
	}
	flag := contextAt(s, pos)
	for {
		if len(runq.dense) == 0 {
			if m.re.startCond&syntax.EmptyBeginText != 0 && pos != 0 {
				break // anchored at the start, which is behind us
			}
			if m.matched {
				break
			}
		}
		if !m.matched && (pos == 0 || m.re.startCond&syntax.EmptyBeginText == 0) {
			m.matchcap[0] = pos
			m.add(runq, uint32(m.re.prog.Start), pos, m.matchcap, flag, nil)
		}
		flag = syntax.EmptyOpContext(r, r1)
		m.step(runq, nextq, pos, pos+width, r, flag)
		if !m.pay() {
			return false
		}
		if width == 0 {
			break
		}
		pos += width
		r, width = r1, width1
		if r >= 0 {
			r1, width1 = runeAt(s, pos+width)
		}
		runq, nextq = nextq, runq
	}
	return m.matched && !m.broke
}

// step advances every thread of runq over the character c at pos into
// nextq.
func (m *vmMachine) step(runq, nextq *vmQueue, pos, nextPos int, c rune, nextCond syntax.EmptyOp) {
	for j := 0; j < len(runq.dense); j++ {
		t := runq.dense[j].t
		if t == nil {
			continue
		}
		m.work++
		i := t.inst
		add := false
		switch i.Op {
		case syntax.InstMatch:
			t.cap[1] = pos
			copy(m.matchcap, t.cap)
			// Leftmost-first: the threads after this one can only find
			// worse matches.
			for _, d := range runq.dense[j+1:] {
				if d.t != nil {
					m.pool = append(m.pool, d.t)
				}
			}
			runq.dense = runq.dense[:0]
			m.matched = true
		case syntax.InstRune:
			add = c >= 0 && i.MatchRune(c)
		case syntax.InstRune1:
			add = c == i.Rune[0]
		case syntax.InstRuneAny:
			add = c >= 0
		case syntax.InstRuneAnyNotNL:
			add = c >= 0 && c != '\n'
		}
		if add {
			t = m.add(nextq, i.Out, nextPos, t.cap, nextCond, t)
		}
		if t != nil {
			m.pool = append(m.pool, t)
		}
	}
	runq.dense = runq.dense[:0]
}

// add follows the empty transitions from pc at pos and queues the
// instructions that wait for a character (or match). t is a thread to
// reuse; the one not used is returned.
func (m *vmMachine) add(q *vmQueue, pc uint32, pos int, cap []int, cond syntax.EmptyOp, t *vmThread) *vmThread {
	for {
		m.work++
		if pc == 0 {
			return t
		}
		if j := q.sparse[pc]; j < uint32(len(q.dense)) && q.dense[j].pc == pc {
			return t
		}
		j := len(q.dense)
		q.dense = q.dense[:j+1]
		d := &q.dense[j]
		d.t, d.pc = nil, pc
		q.sparse[pc] = uint32(j)
		i := &m.re.prog.Inst[pc]
		switch i.Op {
		case syntax.InstAlt, syntax.InstAltMatch:
			t = m.add(q, i.Out, pos, cap, cond, t)
			pc = i.Arg
			continue
		case syntax.InstEmptyWidth:
			if syntax.EmptyOp(i.Arg)&^cond == 0 {
				pc = i.Out
				continue
			}
		case syntax.InstNop:
			pc = i.Out
			continue
		case syntax.InstCapture:
			if int(i.Arg) < len(cap) {
				old := cap[i.Arg]
				cap[i.Arg] = pos
				m.add(q, i.Out, pos, cap, cond, nil)
				cap[i.Arg] = old
				return t
			}
			pc = i.Out
			continue
		case syntax.InstMatch, syntax.InstRune, syntax.InstRune1, syntax.InstRuneAny, syntax.InstRuneAnyNotNL:
			if t == nil {
				t = m.alloc()
			}
			t.inst = i
			if &t.cap[0] != &cap[0] {
				copy(t.cap, cap)
			}
			d.t = t
			return nil
		}
		return t // InstFail, or an empty-width test that fails here
	}
}

func (m *vmMachine) alloc() *vmThread {
	if n := len(m.pool); n > 0 {
		t := m.pool[n-1]
		m.pool = m.pool[:n-1]
		return t
	}
	return &vmThread{cap: make([]int, m.re.ncap)}
}

// The operations FEEL's matches, replace and split need, over any
// matcher, with the semantics of Go's regexp (MatchString,
// FindAllStringSubmatchIndex, Split, ReplaceAllString).

// errSpent stops a search whose budget is gone; the evaluation has
// recorded why.
var errSpent = budgetErrorf("the regular expression ran out of budget")

// matchString reports whether s contains a match.
func matchString(re matcher, s string, spend spendFunc) (bool, error) {
	m, err := re.searcher(spend)(s, 0)
	return m != nil, err
}

// findAll returns every successive non-overlapping match (an empty match
// right after a previous match is skipped), or errSpent.
func findAll(re matcher, s string, spend spendFunc) ([][]int, error) {
	var out [][]int
	find := re.searcher(spend)
	prevEnd := -1
	for pos := 0; pos <= len(s); {
		m, err := find(s, pos)
		if err != nil {
			return nil, err
		}
		if m == nil {
			break
		}
		accept := true
		if m[1] == pos {
			if m[0] == prevEnd {
				accept = false
			}
			_, w := runeAt(s, pos)
			pos += max(w, 1)
		} else {
			pos = m[1]
		}
		prevEnd = m[1]
		if accept {
			out = append(out, m)
		}
	}
	return out, nil
}

// splitAll splits s around the matches of re (as regexp's Split with
// n < 0).
func splitAll(re matcher, s string, spend spendFunc) ([]string, error) {
	ms, err := findAll(re, s, spend)
	if err != nil {
		return nil, err
	}
	if len(s) == 0 {
		return []string{""}, nil
	}
	out := make([]string, 0, len(ms)+1)
	beg, end := 0, 0
	for _, m := range ms {
		end = m[0]
		if m[1] != 0 {
			out = append(out, s[beg:end])
		}
		beg = m[1]
	}
	if end != len(s) {
		out = append(out, s[beg:])
	}
	return out, nil
}

// replaceAll replaces every match of re in s by tmpl, expanding ${n} and
// $$ (the forms xpathReplacement writes). It fails with errSpent, or
// errStringTooLong for a result longer than maxStringLen.
func replaceAll(re matcher, s, tmpl string, spend spendFunc) (string, error) {
	ms, err := findAll(re, s, spend)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	last := 0
	for _, m := range ms {
		b.WriteString(s[last:m[0]])
		expand(&b, tmpl, s, m, re.numSubexp())
		last = m[1]
		if b.Len() > maxStringLen {
			return "", errStringTooLong
		}
	}
	b.WriteString(s[last:])
	if b.Len() > maxStringLen {
		return "", errStringTooLong
	}
	return b.String(), nil
}

// expand writes tmpl with ${n} replaced by group n of match m and $$ by $.
func expand(b *strings.Builder, tmpl, s string, m []int, groups int) {
	for i := 0; i < len(tmpl); i++ {
		if tmpl[i] != '$' || i+1 >= len(tmpl) {
			b.WriteByte(tmpl[i])
			continue
		}
		switch tmpl[i+1] {
		case '$':
			b.WriteByte('$')
			i++
		case '{':
			end := strings.IndexByte(tmpl[i:], '}')
			if end < 0 {
				b.WriteByte('$')
				continue
			}
			if n, err := strconv.Atoi(tmpl[i+2 : i+end]); err == nil && n <= groups && m[2*n] >= 0 {
				b.WriteString(s[m[2*n]:m[2*n+1]])
			}
			i += end
		default:
			b.WriteByte('$')
		}
	}
}
