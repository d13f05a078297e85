package conformance

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/gobpm/gobpm/internal/timer"
)

// stepKind says what a step does.
type stepKind int

// The step vocabulary of SCENARIOS.md, plus a few gobpm-specific checks
// (expect failed, expect incident, expect new timers, expect scopes, expect
// running children, expect ad-hoc regions, expect completed user tasks,
// expect ad-hoc stopped by).
const (
	stStart                stepKind = iota // start K [with v=x, …]
	stComplete                             // complete X [with v=x, …]
	stCorrelate                            // correlate message M
	stBroadcast                            // broadcast signal S
	stAdvance                              // advance the clock by D
	stCancel                               // cancel
	stActivate                             // activate A (ad-hoc)
	stFinishAdhoc                          // finish ad-hoc S (ad-hoc)
	stExpectTasks                          // expect open user tasks {…}
	stExpectSubs                           // expect subscriptions {…}
	stExpectTimers                         // expect timers N
	stExpectNewTimers                      // expect new timers N: N timers, each new or re-armed (later due) since the previous timers step
	stExpectTree                           // expect scope tree …
	stExpectEnded                          // expect ended (completed or terminated)
	stExpectNotEnded                       // expect not ended
	stExpectFailed                         // expect failed (status failed with an open incident)
	stExpectIncident                       // expect incident "text": an open incident mentions text
	stExpectScopes                         // expect scopes X N: N open scopes of element X
	stExpectChildren                       // expect running children N
	stExpectEnabled                        // expect enabled {…} (ad-hoc): the candidates of the open ad-hoc regions
	stExpectRegions                        // expect ad-hoc regions N: N open ad-hoc regions
	stExpectCompletedTasks                 // expect completed user tasks {…}: the user tasks the history shows completed
	stExpectStopReason                     // expect ad-hoc stopped by "reason": the history holds exactly one region stop, with this reason
)

// actions are the step kinds that call the runtime and so may carry
// ": expect rejected".
var actions = map[stepKind]bool{
	stStart: true, stComplete: true, stCorrelate: true, stBroadcast: true,
	stCancel: true, stActivate: true, stFinishAdhoc: true,
}

// step is one parsed step.
type step struct {
	// text is the step as written, for failure messages.
	text string
	kind stepKind
	// arg is the process key, element id, message or signal name, duration
	// or incident text.
	arg  string
	vars map[string]any
	// set is a sorted multiset of element ids or names.
	set []string
	n   int
	// tree is the canonical rendering of an expected scope tree.
	tree string
	// rejected: the call must fail and change nothing.
	rejected bool
}

// parseSteps splits a "; "-separated step list and parses every step.
func parseSteps(text string) ([]step, error) {
	var out []step
	for _, part := range strings.Split(text, ";") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		s, err := parseStep(part)
		if err != nil {
			return nil, fmt.Errorf("step %q: %w", part, err)
		}
		out = append(out, s)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no steps")
	}
	return out, nil
}

// parseStep parses one step of the vocabulary.
func parseStep(text string) (step, error) {
	s := step{text: text}
	body := text
	if b, ok := strings.CutSuffix(body, ": expect rejected"); ok {
		s.rejected, body = true, strings.TrimSpace(b)
	}
	var err error
	rest := func(prefix string) (string, bool) {
		r, ok := strings.CutPrefix(body, prefix)
		return strings.TrimSpace(r), ok
	}
	if r, ok := rest("start "); ok {
		s.kind = stStart
		s.arg, s.vars, err = parseWith(r)
	} else if r, ok := rest("complete "); ok {
		s.kind = stComplete
		s.arg, s.vars, err = parseWith(r)
	} else if r, ok := rest("correlate message "); ok {
		s.kind, s.arg = stCorrelate, r
	} else if r, ok := rest("broadcast signal "); ok {
		s.kind, s.arg = stBroadcast, r
	} else if r, ok := rest("advance the clock by "); ok {
		s.kind, s.arg = stAdvance, r
		_, err = timer.Parse(timer.KindDuration, r)
	} else if body == "cancel" {
		s.kind = stCancel
	} else if r, ok := rest("activate "); ok {
		s.kind, s.arg = stActivate, r
	} else if r, ok := rest("finish ad-hoc "); ok {
		s.kind, s.arg = stFinishAdhoc, r
	} else if r, ok := rest("expect open user tasks "); ok {
		s.kind = stExpectTasks
		s.set, err = parseSet(r)
	} else if r, ok := rest("expect subscriptions "); ok {
		s.kind = stExpectSubs
		s.set, err = parseSet(r)
	} else if r, ok := rest("expect enabled "); ok {
		s.kind = stExpectEnabled
		s.set, err = parseSet(r)
	} else if r, ok := rest("expect ad-hoc regions "); ok {
		s.kind = stExpectRegions
		s.n, err = parseCount(r)
	} else if r, ok := rest("expect completed user tasks "); ok {
		s.kind = stExpectCompletedTasks
		s.set, err = parseSet(r)
	} else if r, ok := rest("expect ad-hoc stopped by "); ok {
		s.kind = stExpectStopReason
		s.arg, err = strconv.Unquote(r)
	} else if r, ok := rest("expect timers "); ok {
		s.kind = stExpectTimers
		s.n, err = parseCount(r)
	} else if r, ok := rest("expect new timers "); ok {
		s.kind = stExpectNewTimers
		s.n, err = parseCount(r)
	} else if r, ok := rest("expect scope tree "); ok {
		s.kind = stExpectTree
		var t *treeNode
		if t, err = parseTree(r); err == nil {
			s.tree = t.String()
		}
	} else if body == "expect ended" {
		s.kind = stExpectEnded
	} else if body == "expect not ended" {
		s.kind = stExpectNotEnded
	} else if body == "expect failed" {
		s.kind = stExpectFailed
	} else if r, ok := rest("expect incident "); ok {
		s.kind = stExpectIncident
		s.arg, err = strconv.Unquote(r)
	} else if r, ok := rest("expect scopes "); ok {
		s.kind = stExpectScopes
		id, num, found := strings.Cut(r, " ")
		if !found {
			return s, fmt.Errorf("want: expect scopes <element> <count>")
		}
		s.arg = id
		s.n, err = parseCount(num)
	} else if r, ok := rest("expect running children "); ok {
		s.kind = stExpectChildren
		s.n, err = parseCount(r)
	} else {
		return s, fmt.Errorf("not in the step vocabulary")
	}
	if err != nil {
		return s, err
	}
	if (s.kind == stStart || s.kind == stComplete || s.kind == stCorrelate || s.kind == stBroadcast ||
		s.kind == stActivate || s.kind == stFinishAdhoc) && (s.arg == "" || strings.ContainsAny(s.arg, " {},")) {
		return s, fmt.Errorf("bad name %q", s.arg)
	}
	if s.rejected && !actions[s.kind] {
		return s, fmt.Errorf("only an action can be rejected")
	}
	return s, nil
}

func parseCount(text string) (int, error) {
	n, err := strconv.Atoi(strings.TrimSpace(text))
	if err != nil || n < 0 {
		return 0, fmt.Errorf("bad count %q", text)
	}
	return n, nil
}

// parseWith splits "X with a=1, b=\"s\"" into X and its variables. Values
// are JSON literals; numbers stay json.Number as the runtime expects.
func parseWith(text string) (string, map[string]any, error) {
	name, assigns, found := strings.Cut(text, " with ")
	name = strings.TrimSpace(name)
	if !found {
		return name, nil, nil
	}
	vars := map[string]any{}
	for _, a := range splitTop(assigns) {
		k, v, ok := strings.Cut(a, "=")
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if !ok || k == "" || v == "" {
			return "", nil, fmt.Errorf("bad assignment %q (want name=literal)", a)
		}
		dec := json.NewDecoder(strings.NewReader(v))
		dec.UseNumber()
		var val any
		if err := dec.Decode(&val); err != nil || dec.More() {
			return "", nil, fmt.Errorf("bad literal %q for %s", v, k)
		}
		vars[k] = val
	}
	return name, vars, nil
}

// splitTop splits at commas outside double quotes.
func splitTop(text string) []string {
	var (
		out   []string
		cur   strings.Builder
		quote bool
	)
	for _, r := range text {
		switch {
		case r == '"':
			quote = !quote
		case r == ',' && !quote:
			out = append(out, strings.TrimSpace(cur.String()))
			cur.Reset()
			continue
		}
		cur.WriteRune(r)
	}
	return append(out, strings.TrimSpace(cur.String()))
}

// parseSet parses "{a, b ×2}" into the sorted multiset [a b b]; "{}" is empty.
func parseSet(text string) ([]string, error) {
	inner, ok := strings.CutPrefix(strings.TrimSpace(text), "{")
	if ok {
		inner, ok = strings.CutSuffix(inner, "}")
	}
	if !ok {
		return nil, fmt.Errorf("want {…}, got %q", text)
	}
	out := []string{}
	if strings.TrimSpace(inner) == "" {
		return out, nil
	}
	for _, item := range strings.Split(inner, ",") {
		fields := strings.Fields(item)
		times := 1
		switch {
		case len(fields) == 2 && strings.HasPrefix(fields[1], "×"):
			n, err := strconv.Atoi(strings.TrimPrefix(fields[1], "×"))
			if err != nil || n < 1 {
				return nil, fmt.Errorf("bad multiplicity in %q", item)
			}
			times = n
		case len(fields) != 1:
			return nil, fmt.Errorf("bad set item %q", item)
		}
		for range times {
			out = append(out, fields[0])
		}
	}
	slices.Sort(out)
	return out, nil
}

// treeNode is a scope tree: an element id with its children (nested scopes
// and the elements the scope's tracks stand at).
type treeNode struct {
	name string
	kids []*treeNode
}

// String renders the tree canonically: "a", "a › b", "a › {b, c › d}",
// children in sorted order, so equal trees render equally.
func (n *treeNode) String() string {
	switch len(n.kids) {
	case 0:
		return n.name
	case 1:
		return n.name + " › " + n.kids[0].String()
	}
	kids := make([]string, len(n.kids))
	for i, k := range n.kids {
		kids[i] = k.String()
	}
	slices.Sort(kids)
	return n.name + " › {" + strings.Join(kids, ", ") + "}"
}

// parseTree parses "process › {a › b, c}".
func parseTree(text string) (*treeNode, error) {
	toks := tokenizeTree(text)
	p := &treeParser{toks: toks}
	n, err := p.tree()
	if err != nil {
		return nil, err
	}
	if p.pos != len(toks) {
		return nil, fmt.Errorf("unexpected %q in scope tree", toks[p.pos])
	}
	return n, nil
}

func tokenizeTree(text string) []string {
	var (
		toks []string
		cur  strings.Builder
	)
	flush := func() {
		if cur.Len() > 0 {
			toks = append(toks, cur.String())
			cur.Reset()
		}
	}
	for _, r := range text {
		switch r {
		case '›', '{', '}', ',':
			flush()
			toks = append(toks, string(r))
		case ' ', '\t':
			flush()
		default:
			cur.WriteRune(r)
		}
	}
	flush()
	return toks
}

type treeParser struct {
	toks []string
	pos  int
}

func (p *treeParser) peek() string {
	if p.pos < len(p.toks) {
		return p.toks[p.pos]
	}
	return ""
}

// tree := name [ "›" ( tree | "{" tree { "," tree } "}" ) ]
func (p *treeParser) tree() (*treeNode, error) {
	name := p.peek()
	if name == "" || strings.ContainsAny(name, "›{},") {
		return nil, fmt.Errorf("scope tree: want an element id, got %q", name)
	}
	p.pos++
	n := &treeNode{name: name}
	if p.peek() != "›" {
		return n, nil
	}
	p.pos++
	if p.peek() != "{" {
		kid, err := p.tree()
		if err != nil {
			return nil, err
		}
		n.kids = []*treeNode{kid}
		return n, nil
	}
	p.pos++
	for {
		kid, err := p.tree()
		if err != nil {
			return nil, err
		}
		n.kids = append(n.kids, kid)
		switch p.peek() {
		case ",":
			p.pos++
		case "}":
			p.pos++
			return n, nil
		default:
			return nil, fmt.Errorf("scope tree: want , or }, got %q", p.peek())
		}
	}
}
