package dmn

import (
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/beevik/etree"
	"github.com/gobpm/gobpm/internal/feel"
)

var hitPolicies = map[string]HitPolicy{
	"UNIQUE": HitUnique, "ANY": HitAny, "PRIORITY": HitPriority, "FIRST": HitFirst,
	"RULE ORDER": HitRuleOrder, "OUTPUT ORDER": HitOutputOrder, "COLLECT": HitCollect,
}

var aggregations = map[string]Aggregation{
	"SUM": AggregateSum, "MIN": AggregateMin, "MAX": AggregateMax, "COUNT": AggregateCount,
}

// decisionTable reads and compiles a <decisionTable>.
func (p *parser) decisionTable(e *etree.Element, el string) expression {
	t := &DecisionTable{ID: e.SelectAttrValue("id", ""), HitPolicy: HitUnique}
	bad, badWarn := len(p.problems), len(p.warnings)
	if hp := strings.TrimSpace(e.SelectAttrValue("hitPolicy", "")); hp != "" {
		h, ok := hitPolicies[hp]
		if !ok {
			p.warn(el, RuleInvalidTable, "unknown hitPolicy %q (want UNIQUE, ANY, PRIORITY, FIRST, RULE ORDER, OUTPUT ORDER or COLLECT)", hp)
		}
		t.HitPolicy = h
	}
	if ag := strings.TrimSpace(e.SelectAttrValue("aggregation", "")); ag != "" {
		a, ok := aggregations[ag]
		switch {
		case !ok:
			p.warn(el, RuleInvalidTable, "unknown aggregation %q (want SUM, MIN, MAX or COUNT)", ag)
		case t.HitPolicy != HitCollect:
			p.warn(el, RuleInvalidTable, "aggregation %s needs hit policy COLLECT, not %s", ag, t.HitPolicy)
		}
		t.Aggregation = a
	}
	var cellVars []string
	for i, ie := range children(e, "input") {
		in := &TableInput{ID: ie.SelectAttrValue("id", ""), Label: ie.SelectAttrValue("label", "")}
		p.noteID(ie, in.ID)
		what := fmt.Sprintf("input %d", i+1)
		cellVars = append(cellVars, p.cellVariable(ie))
		if x := child(ie, "inputExpression"); x != nil {
			if lang := x.SelectAttrValue("expressionLanguage", ""); !isFEEL(lang) {
				p.warn(el, RuleUnsupported, "%s: expressionLanguage %q is not supported; only FEEL is", what, lang)
			}
			in.Expression = textOf(x)
			in.TypeRef = strings.TrimSpace(x.SelectAttrValue("typeRef", ""))
			in.expr, in.bad = p.compileProgram(in.Expression, el, what+" expression")
			in.typ = p.resolveType(in.TypeRef, el)
		} else {
			p.warn(el, RuleInvalidTable, "%s has no inputExpression", what)
		}
		if iv := child(ie, "inputValues"); iv != nil {
			in.InputValues = textOf(iv)
			if in.InputValues != "" {
				in.values, _ = p.compileTests(in.InputValues, el, what+" inputValues")
			}
		}
		t.Inputs = append(t.Inputs, in)
	}
	outs := children(e, "output")
	if len(outs) == 0 {
		p.warn(el, RuleInvalidTable, "decision table has no output")
	}
	names := map[string]bool{}
	for i, oe := range outs {
		out := &TableOutput{
			ID:      oe.SelectAttrValue("id", ""),
			Name:    strings.TrimSpace(oe.SelectAttrValue("name", "")),
			Label:   oe.SelectAttrValue("label", ""),
			TypeRef: strings.TrimSpace(oe.SelectAttrValue("typeRef", "")),
		}
		p.noteID(oe, out.ID)
		what := fmt.Sprintf("output %d", i+1)
		if out.Name != "" {
			what = fmt.Sprintf("output %q", out.Name)
		}
		if len(outs) > 1 {
			switch {
			case out.Name == "":
				p.warn(el, RuleInvalidTable, "output %d has no name; a table with several outputs needs every output named", i+1)
			case names[out.Name]:
				p.warn(el, RuleInvalidTable, "output name %q is used twice", out.Name)
			}
			names[out.Name] = true
		}
		out.typ = p.resolveType(out.TypeRef, el)
		if ov := child(oe, "outputValues"); ov != nil {
			out.OutputValues = textOf(ov)
			for _, item := range splitTests(out.OutputValues) {
				ut, _ := p.compileTests(item, el, what+" outputValues")
				out.priority = append(out.priority, ut)
			}
		}
		if de := child(oe, "defaultOutputEntry"); de != nil {
			out.Default = textOf(de)
			if out.Default != "" {
				out.def, _ = p.compileProgram(out.Default, el, what+" defaultOutputEntry")
			}
		}
		t.Outputs = append(t.Outputs, out)
	}
	if t.Aggregation != AggregateNone && len(t.Outputs) > 1 {
		p.warn(el, RuleInvalidTable, "aggregation %s needs exactly one output, not %d", t.Aggregation, len(t.Outputs))
	}
	if t.HitPolicy == HitPriority || t.HitPolicy == HitOutputOrder {
		has := false
		for _, o := range t.Outputs {
			has = has || len(o.priority) > 0
		}
		if !has && len(t.Outputs) > 0 {
			p.warn(el, RuleInvalidTable, "hit policy %s needs outputValues on at least one output to order by", t.HitPolicy)
		}
	}
	for i, re := range children(e, "rule") {
		rule := &TableRule{ID: re.SelectAttrValue("id", ""), Index: i + 1}
		p.noteID(re, rule.ID)
		what := fmt.Sprintf("rule %d", i+1)
		if rule.ID != "" {
			what = fmt.Sprintf("rule %d (%s)", i+1, rule.ID)
		}
		ins, outs := children(re, "inputEntry"), children(re, "outputEntry")
		if len(ins) != len(t.Inputs) {
			p.warn(el, RuleInvalidTable, "%s has %d input entries for %d inputs", what, len(ins), len(t.Inputs))
		}
		if len(outs) != len(t.Outputs) {
			p.warn(el, RuleInvalidTable, "%s has %d output entries for %d outputs", what, len(outs), len(t.Outputs))
		}
		for j, ie := range ins {
			p.noteID(ie, ie.SelectAttrValue("id", ""))
			if lang := ie.SelectAttrValue("expressionLanguage", ""); !isFEEL(lang) {
				p.warn(el, RuleUnsupported, "%s input entry %d: expressionLanguage %q is not supported; only FEEL is", what, j+1, lang)
			}
			src := textOf(ie)
			if j < len(cellVars) {
				p.checkCellVariable(src, cellVars[j], el, fmt.Sprintf("%s input entry %d", what, j+1))
			}
			rule.InputEntries = append(rule.InputEntries, src)
			var ut *feel.UnaryTests
			if src != "-" && src != "" { // "" is read like "-", as Camunda does
				var msg string
				if ut, msg = p.compileTests(src, el, fmt.Sprintf("%s input entry %d", what, j+1)); msg != "" && rule.bad == "" {
					rule.bad = msg
				}
			}
			rule.tests = append(rule.tests, ut)
		}
		for j, oe := range outs {
			p.noteID(oe, oe.SelectAttrValue("id", ""))
			if lang := oe.SelectAttrValue("expressionLanguage", ""); !isFEEL(lang) {
				p.warn(el, RuleUnsupported, "%s output entry %d: expressionLanguage %q is not supported; only FEEL is", what, j+1, lang)
			}
			src := textOf(oe)
			rule.OutputEntries = append(rule.OutputEntries, src)
			var prog *feel.Program
			var msg string
			if src != "" { // an empty output entry is null
				prog, msg = p.compileProgram(src, el, fmt.Sprintf("%s output entry %d", what, j+1))
			}
			rule.outputs = append(rule.outputs, prog)
			rule.outBad = append(rule.outBad, msg)
		}
		t.Rules = append(t.Rules, rule)
	}
	if len(p.problems) > bad {
		return &errExpr{msg: "the decision table is invalid"}
	}
	// A malformed table is an error as a whole; an entry that does not
	// compile is one when it is used.
	var msgs []string
	for _, w := range p.warnings[badWarn:] {
		if w.Rule == RuleInvalidTable || w.Rule == RuleUnsupported {
			msgs = append(msgs, w.Detail)
		}
	}
	if len(msgs) > 0 {
		return &errExpr{msg: "the decision table is invalid: " + strings.Join(msgs, "; ")}
	}
	return t
}

// splitTests splits a comma-separated list of unary tests at its top-level
// commas (outside strings, brackets, parentheses and braces).
func splitTests(src string) []string {
	var out []string
	depth, start := 0, 0
	inStr := false
	for i := 0; i < len(src); i++ {
		c := src[i]
		switch {
		case inStr:
			if c == '\\' {
				i++
			} else if c == '"' {
				inStr = false
			}
		case c == '"':
			inStr = true
		case c == '(' || c == '[' || c == '{':
			depth++
		case c == ')' || c == ']' || c == '}':
			depth--
		case c == ',' && depth == 0:
			out = append(out, strings.TrimSpace(src[start:i]))
			start = i + 1
		}
	}
	if last := strings.TrimSpace(src[start:]); last != "" || len(out) > 0 {
		out = append(out, last)
	}
	return out
}

// hit is a matched rule with its evaluated outputs.
type hit struct {
	rule    *TableRule
	outputs []any
}

// eval evaluates the table: input expressions, rule matching, the hit
// policy and the result shape (a single output's value, or a context of
// named outputs; a list of those for multiple-hit policies).
func (t *DecisionTable) eval(r *run, sc feel.Scope, owner string) any {
	inputs := make([]any, len(t.Inputs))
	for i, in := range t.Inputs {
		if in.expr == nil {
			r.fail(owner, "%s", in.bad)
			return nil
		}
		v, errs, err := in.expr.EvalErrors(sc)
		r.feelErrors(owner, in.Expression, errs)
		if err != nil {
			r.fail(owner, "input %d (%s): %v", i+1, abbreviate(in.Expression), err)
			return nil
		}
		v, why := conform(v, in.typ)
		if why != "" {
			r.fail(owner, "input %d (%s) does not conform to %s: %s", i+1, abbreviate(in.Expression), in.TypeRef, why)
			return nil
		}
		if in.values != nil && v != nil {
			ok, err := in.values.Match(v, sc)
			if err != nil || !ok {
				r.fail(owner, "input %d (%s) = %s is not among its input values (%s)", i+1, abbreviate(in.Expression), describe(v), in.InputValues)
				return nil
			}
		}
		// Converted once for all the rules' tests.
		inputs[i] = feel.Prepare(v)
	}

	var hits []hit
	for _, rule := range t.Rules {
		if !t.matches(r, rule, inputs, sc, owner) {
			continue
		}
		hits = append(hits, hit{rule: rule, outputs: t.outputs(r, rule, sc, owner)})
		if t.HitPolicy == HitFirst {
			break
		}
	}

	if len(hits) == 0 {
		return t.defaults(r, sc, owner)
	}
	switch t.HitPolicy {
	case HitUnique:
		if len(hits) > 1 {
			r.fail(owner, "hit policy UNIQUE violated: rules %s all match", ruleList(hits))
			t.record(r, owner, hits)
			return nil
		}
	case HitAny:
		for _, h := range hits[1:] {
			if !equalOutputs(h.outputs, hits[0].outputs) {
				r.fail(owner, "hit policy ANY violated: rules %d and %d match with different outputs", hits[0].rule.Index, h.rule.Index)
				t.record(r, owner, hits)
				return nil
			}
		}
	case HitPriority:
		hits = t.byPriority(hits)[:1]
	case HitOutputOrder:
		hits = t.byPriority(hits)
	}
	t.record(r, owner, hits)
	switch t.HitPolicy {
	case HitUnique, HitAny, HitPriority, HitFirst:
		return t.shape(hits[0].outputs)
	}
	if t.Aggregation != AggregateNone {
		vals := make([]any, len(hits))
		for i, h := range hits {
			vals[i] = h.outputs[0]
		}
		v := aggregate(r, owner, t.Aggregation, vals)
		if r.top != nil && owner == r.top.ID && r.top.Table == t {
			r.entries = []map[string]any{{t.outputName(0, r): r.export(v, owner)}}
		}
		return v
	}
	list := make([]any, len(hits))
	for i, h := range hits {
		list[i] = t.shape(h.outputs)
	}
	return list
}

// matches reports whether every input entry of rule accepts its input.
func (t *DecisionTable) matches(r *run, rule *TableRule, inputs []any, sc feel.Scope, owner string) bool {
	if rule.bad != "" {
		r.fail(owner, "%s", rule.bad)
		return false
	}
	for i, ut := range rule.tests {
		if ut == nil {
			continue
		}
		ok, err := ut.Match(inputs[i], sc)
		if err != nil {
			r.fail(owner, "rule %d input entry %d (%s): %v", rule.Index, i+1, abbreviate(rule.InputEntries[i]), err)
			return false
		}
		if !ok {
			return false
		}
	}
	return true
}

// outputs evaluates the output entries of a matched rule.
func (t *DecisionTable) outputs(r *run, rule *TableRule, sc feel.Scope, owner string) []any {
	out := make([]any, len(t.Outputs))
	for i, prog := range rule.outputs {
		if prog == nil && i < len(rule.outBad) && rule.outBad[i] != "" {
			r.fail(owner, "%s", rule.outBad[i])
			continue
		}
		if prog == nil || i >= len(t.Outputs) {
			continue
		}
		v, errs, err := prog.EvalErrors(sc)
		r.feelErrors(owner, rule.OutputEntries[i], errs)
		if err != nil {
			r.fail(owner, "rule %d output entry %d (%s): %v", rule.Index, i+1, abbreviate(rule.OutputEntries[i]), err)
			continue
		}
		out[i] = t.conformOutput(r, i, v, owner)
	}
	return out
}

func (t *DecisionTable) conformOutput(r *run, i int, v any, owner string) any {
	o := t.Outputs[i]
	v, why := conform(v, o.typ)
	if why != "" {
		r.fail(owner, "output %s does not conform to %s: %s", t.outputName(i, r), o.TypeRef, why)
	}
	return v
}

// defaults is the result when no rule matches: the default output entries,
// else null — except for C#, whose count of no values is 0 (FEEL's
// count([]); sum, min and max of [] are null).
func (t *DecisionTable) defaults(r *run, sc feel.Scope, owner string) any {
	has := false
	out := make([]any, len(t.Outputs))
	for i, o := range t.Outputs {
		if o.def == nil {
			continue
		}
		has = true
		v, errs, err := o.def.EvalErrors(sc)
		r.feelErrors(owner, o.Default, errs)
		if err != nil {
			r.fail(owner, "default output entry of %s: %v", t.outputName(i, r), err)
			continue
		}
		out[i] = t.conformOutput(r, i, v, owner)
	}
	if !has {
		if t.HitPolicy == HitCollect && t.Aggregation == AggregateCount {
			return aggregate(r, owner, AggregateCount, nil)
		}
		return nil
	}
	if r.top != nil && owner == r.top.ID && r.top.Table == t {
		r.entries = []map[string]any{t.entry(out, r)}
	}
	return t.shape(out)
}

// shape turns one rule's outputs into the table's value: the single
// output's value, or a context of the named outputs.
func (t *DecisionTable) shape(outputs []any) any {
	if len(t.Outputs) == 1 {
		return outputs[0]
	}
	m := make(map[string]any, len(outputs))
	for i, o := range t.Outputs {
		m[o.Name] = outputs[i]
	}
	return m
}

// outputName names output i in results and messages: its name, else the
// name of the decision owning the table, else its label.
func (t *DecisionTable) outputName(i int, r *run) string {
	o := t.Outputs[i]
	switch {
	case o.Name != "":
		return o.Name
	case len(t.Outputs) == 1 && r != nil && r.top != nil && r.top.Table == t:
		return r.top.Name
	case o.Label != "":
		return o.Label
	}
	return fmt.Sprintf("output %d", i+1)
}

func (t *DecisionTable) entry(outputs []any, r *run) map[string]any {
	m := make(map[string]any, len(outputs))
	for i, v := range outputs {
		m[t.outputName(i, r)] = r.export(v, r.top.ID)
	}
	return m
}

// record notes the hit rules in the result (and, for the requested
// decision's own table, its entries).
func (t *DecisionTable) record(r *run, owner string, hits []hit) {
	for _, h := range hits {
		r.log.matched = append(r.log.matched, MatchedRule{DecisionID: owner, RuleID: h.rule.ID, RuleIndex: h.rule.Index})
	}
	if r.top != nil && owner == r.top.ID && r.top.Table == t && t.Aggregation == AggregateNone {
		r.entries = make([]map[string]any, len(hits))
		for i, h := range hits {
			r.entries[i] = t.entry(h.outputs, r)
		}
	}
}

func ruleList(hits []hit) string {
	parts := make([]string, len(hits))
	for i, h := range hits {
		parts[i] = fmt.Sprint(h.rule.Index)
	}
	return strings.Join(parts, ", ")
}

// byPriority sorts hits by the priority of their outputs: for each output
// with outputValues, in output order, the position of the value in that
// list (values not in it last); ties keep rule order.
func (t *DecisionTable) byPriority(hits []hit) []hit {
	ranks := make([][]int, len(hits))
	for i, h := range hits {
		for j, o := range t.Outputs {
			if len(o.priority) == 0 {
				continue
			}
			ranks[i] = append(ranks[i], rank(o.priority, h.outputs[j]))
		}
	}
	idx := make([]int, len(hits))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool {
		ra, rb := ranks[idx[a]], ranks[idx[b]]
		for k := range ra {
			if ra[k] != rb[k] {
				return ra[k] < rb[k]
			}
		}
		return false
	})
	out := make([]hit, len(hits))
	for i, k := range idx {
		out[i] = hits[k]
	}
	return out
}

// rank is the position of v among the output values (len when absent).
func rank(tests []*feel.UnaryTests, v any) int {
	for i, ut := range tests {
		if ut == nil {
			continue
		}
		if ok, err := ut.Match(v, emptyScope{}); err == nil && ok {
			return i
		}
	}
	return len(tests)
}

// equalOutputs compares two rules' outputs with FEEL equality.
func equalOutputs(a, b []any) bool {
	for i := range a {
		if !feelEqual(a[i], b[i]) {
			return false
		}
	}
	return true
}

var (
	helperOnce sync.Once
	eqProg     *feel.Program
	aggProgs   map[Aggregation]*feel.Program
)

func helpers() {
	helperOnce.Do(func() {
		eqProg, _ = feel.CompileWith("a = b", feel.Options{})
		aggProgs = map[Aggregation]*feel.Program{}
		for a, src := range map[Aggregation]string{
			AggregateSum: "sum(l)", AggregateMin: "min(l)", AggregateMax: "max(l)", AggregateCount: "count(l)",
		} {
			aggProgs[a], _ = feel.CompileWith(src, feel.Options{})
		}
	})
}

// pairScope holds a and b.
type pairScope struct{ a, b any }

func (s pairScope) Lookup(name string) (any, bool) {
	switch name {
	case "a":
		return s.a, true
	case "b":
		return s.b, true
	}
	return nil, false
}

// feelEqual is FEEL's = (null = null is true).
func feelEqual(a, b any) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	if sa, ok := a.(string); ok {
		sb, ok := b.(string)
		return ok && sa == sb
	}
	if ba, ok := a.(bool); ok {
		bb, ok := b.(bool)
		return ok && ba == bb
	}
	helpers()
	if eqProg == nil {
		return false
	}
	v, err := eqProg.EvalValue(pairScope{a, b})
	return err == nil && v == true
}

// aggregate applies a COLLECT aggregation with FEEL's sum, min, max and
// count (C+ over no values is null, C# is 0).
func aggregate(r *run, owner string, a Aggregation, vals []any) any {
	helpers()
	prog := aggProgs[a]
	if prog == nil {
		r.fail(owner, "aggregation %s is not available", a)
		return nil
	}
	if vals == nil {
		vals = []any{}
	}
	v, err := prog.EvalValue(oneVar{"l", vals})
	if err != nil {
		r.fail(owner, "aggregation %s: %v", a, err)
		return nil
	}
	if v == nil && len(vals) > 0 {
		r.fail(owner, "aggregation %s over %d values is null (values of mixed or non-%s types)", a, len(vals), map[Aggregation]string{AggregateSum: "numeric", AggregateMin: "comparable", AggregateMax: "comparable", AggregateCount: "list"}[a])
	}
	return v
}

// oneVar is a scope holding a single variable.
type oneVar struct {
	name string
	v    any
}

func (s oneVar) Lookup(name string) (any, bool) {
	if name == s.name {
		return s.v, true
	}
	return nil, false
}
