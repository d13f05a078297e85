package dmn

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/gobpm/gobpm/internal/feel"
)

// ErrUnknownDecision is returned (wrapped) by Evaluate for a decision id the
// definitions do not hold.
var ErrUnknownDecision = errors.New("dmn: unknown decision")

// MaxCallDepth bounds nested invocations of business knowledge models and
// FEEL functions defined in boxed contexts during one evaluation.
const MaxCallDepth = 64

// Result is the outcome of evaluating one decision.
type Result struct {
	// Value is the decision's value, JSON-shaped as feel.ToJSON makes it
	// (nil, bool, string, json.Number, []any, map[string]any; temporal
	// values as their FEEL string form), functions null. It is nil when
	// the decision failed or its value has no JSON shape, a range say
	// (see Errors).
	Value any
	// Outputs holds, for a decision service, the FEEL-native value of
	// each output decision by name.
	Outputs map[string]any
	// Native is the decision's value as FEEL holds it (feel.EvalValue's
	// shape): numbers as json.Number, temporal values as feel.Date,
	// feel.Time, feel.DateTime, feel.Duration and feel.YearsMonths,
	// ranges as *feel.Range, functions as feel.Function. Comparing by
	// value and type (the DMN TCK does) needs this form.
	Native any
	// Decisions holds the JSON-shaped value of every decision evaluated
	// on the way — the requested one and all it requires, directly or
	// not — by decision id.
	Decisions map[string]any
	// Matched lists the decision table rules that produced a result, in
	// evaluation order, for every table evaluated (those of required
	// decisions and of invoked business knowledge models included).
	Matched []MatchedRule
	// Entries is the requested decision's result as rows of named outputs,
	// the shape business rule tasks map from (gobpm:mapDecisionResult):
	// for a decision table one map per hit rule (output name → value; a
	// single unnamed output is named after the decision), in result
	// order, or one map holding the aggregate for C+, C<, C> and C#; for
	// any other decision logic one map {decision name: value}. It is empty
	// when no rule matched and no default output applies.
	Entries []map[string]any
	// Errors lists what went wrong while evaluating: hit policy
	// violations, values that do not conform to their type, FEEL runtime
	// errors, invocations of non-functions. Each failed expression
	// evaluates to null and evaluation goes on, as DMN prescribes; a
	// non-empty Errors means the result must not be trusted.
	Errors []EvalError
}

// Err returns nil when the evaluation recorded no error, else an error
// listing them.
func (r Result) Err() error {
	if len(r.Errors) == 0 {
		return nil
	}
	msgs := make([]string, len(r.Errors))
	for i, e := range r.Errors {
		msgs[i] = e.Error()
	}
	return fmt.Errorf("dmn: evaluation failed: %s", strings.Join(msgs, "; "))
}

// MatchedRule identifies one decision table rule that contributed to a result.
type MatchedRule struct {
	// DecisionID is the id of the decision (or business knowledge model)
	// whose table holds the rule.
	DecisionID string
	// RuleID is the rule's id ("" when it has none).
	RuleID string
	// RuleIndex is the rule's 1-based position in its table.
	RuleIndex int
}

// EvalError is one error recorded while evaluating.
type EvalError struct {
	// Element is the id of the decision or business knowledge model being
	// evaluated.
	Element string
	// Message describes the error.
	Message string
}

// Error renders the error as "element: message".
func (e EvalError) Error() string { return e.Element + ": " + e.Message }

// Decision returns the decision with the given id, or nil.
func (d *Definitions) Decision(id string) *Decision { return d.decisions[id] }

// DecisionByName returns the decision with the given name, or nil.
func (d *Definitions) DecisionByName(name string) *Decision { return d.byName[name] }

// Evaluate evaluates the decision with id decisionID and, first and once
// each, every decision it requires, in dependency order. It is EvaluateAt
// at time.Now.
//
// inputs holds the input data values by input data name, JSON-shaped
// (float64 and Go integers are accepted as numbers; a string is read as
// a date, time, date and time or duration where the input's type asks for
// one). Each declared input data value is coerced to its typeRef: a value
// that does not conform (wrong type, not among the allowed values) is
// null and recorded in Result.Errors. A required input data missing from
// inputs is null. A decision sees the input data, decisions and business
// knowledge models it requires; any other entry of inputs is visible too,
// under its key, after them, so decision tables written against plain
// process variables (as Camunda models often are) evaluate.
//
// Evaluate returns an error only for an unknown decision id
// (ErrUnknownDecision); everything that goes wrong during evaluation is
// in Result.Errors.
func (d *Definitions) Evaluate(decisionID string, inputs map[string]any) (Result, error) {
	return d.EvaluateAt(decisionID, inputs, time.Now())
}

// EvaluateAt is Evaluate with FEEL's clock fixed: now() and today() in
// every expression of the evaluation read now, so the same inputs at the
// same now give the same result.
func (d *Definitions) EvaluateAt(decisionID string, inputs map[string]any, now time.Time) (Result, error) {
	return d.EvaluateRequest(Request{Decision: decisionID, Inputs: inputs, Now: now})
}

// Request says what EvaluateRequest evaluates, with which inputs, when.
type Request struct {
	// Decision is the id of the decision to evaluate or, when no decision
	// has that id, its name.
	Decision string
	// Service is the id or name of a decision service to evaluate
	// instead of a decision (see Result.Outputs).
	Service string
	// Inputs holds the values of the model's input data by name (see
	// Evaluate).
	Inputs map[string]any
	// Imported holds the values of the input data of imported models: by
	// the imported model's namespace, then by input data name.
	Imported map[string]map[string]any
	// Now is the clock of FEEL's now() and today(); zero means time.Now.
	Now time.Time
}

// EvaluateRequest evaluates what req names (see Evaluate). The error is
// ErrUnknownDecision when req names nothing the model holds.
func (d *Definitions) EvaluateRequest(req Request) (Result, error) {
	if req.Service != "" {
		return Result{}, fmt.Errorf("dmn: decision services are not supported")
	}
	dec := d.decisions[req.Decision]
	if dec == nil {
		dec = d.byName[req.Decision]
	}
	if dec == nil {
		return Result{}, fmt.Errorf("%w: %q", ErrUnknownDecision, req.Decision)
	}
	inputs, now := req.Inputs, req.Now
	if now.IsZero() {
		now = time.Now()
	}
	r := &run{
		defs:    d,
		inputs:  inputs,
		now:     now,
		values:  make(map[*Decision]any),
		inputsV: make(map[*InputData]any),
		top:     dec,
	}
	v := r.decision(dec)
	value := r.export(v)
	res := Result{
		Value:     value,
		Native:    v,
		Decisions: make(map[string]any, len(r.order)),
		Matched:   r.matched,
		Errors:    r.errors,
	}
	for _, x := range r.order {
		if x == dec {
			res.Decisions[x.ID] = res.Value
		} else {
			res.Decisions[x.ID] = toJSON(r.values[x], nil)
		}
	}
	if r.entries != nil {
		res.Entries = r.entries
	} else if dec.Table == nil && v != nil {
		res.Entries = []map[string]any{{dec.Name: res.Value}}
	}
	return res, nil
}

// run is the state of one Evaluate call.
type run struct {
	defs    *Definitions
	inputs  map[string]any
	now     time.Time         // the clock of now() and today()
	values  map[*Decision]any // evaluated decisions
	order   []*Decision       // in evaluation order
	inputsV map[*InputData]any
	raw     *rawScope
	top     *Decision
	depth   int

	errors  []EvalError
	matched []MatchedRule
	entries []map[string]any // Result.Entries of the top decision's table
}

func (r *run) fail(element, format string, args ...any) {
	r.errors = append(r.errors, EvalError{Element: element, Message: fmt.Sprintf(format, args...)})
}

// decision evaluates d once, its requirements first.
func (r *run) decision(d *Decision) any {
	if v, ok := r.values[d]; ok {
		return v
	}
	vars := make(map[string]any, len(d.RequiredDecisions)+len(d.RequiredInputs)+len(d.RequiredKnowledge))
	for _, rd := range d.RequiredDecisions {
		vars[rd.Name] = r.decision(rd)
	}
	for _, in := range d.RequiredInputs {
		vars[in.Name] = r.input(in)
	}
	for _, b := range d.RequiredKnowledge {
		vars[b.Name] = &bkmFunc{r: r, b: b}
	}
	if r.raw == nil {
		r.raw = &rawScope{inputs: r.inputs}
	}
	sc := &mapScope{vars: vars, parent: r.raw, now: r.now}
	var v any
	if d.logic != nil {
		v = d.logic.eval(r, sc, d.ID)
	}
	v, why := conform(v, d.typ)
	if why != "" {
		r.fail(d.ID, "result does not conform to %s: %s", d.TypeRef, why)
	}
	r.values[d] = v
	r.order = append(r.order, d)
	return v
}

// input returns the coerced value of an input data.
func (r *run) input(in *InputData) any {
	if v, ok := r.inputsV[in]; ok {
		return v
	}
	v, why := conform(r.inputs[in.Name], in.typ)
	if why != "" {
		r.fail(elementOr(in.ID, in.Name), "input %q does not conform to %s: %s", in.Name, in.TypeRef, why)
	}
	r.inputsV[in] = v
	return v
}

// mapScope is a FEEL scope of named values over a parent scope. It is a
// feel.Clock: now() and today() read the evaluation's now.
type mapScope struct {
	vars   map[string]any
	parent feel.Scope
	now    time.Time
}

// Now returns the time the evaluation runs at.
func (s *mapScope) Now() time.Time { return s.now }

// Lookup finds name in the scope or its parents.
func (s *mapScope) Lookup(name string) (any, bool) {
	if v, ok := s.vars[name]; ok {
		return v, true
	}
	if s.parent != nil {
		return s.parent.Lookup(name)
	}
	return nil, false
}

// rawScope exposes the caller's inputs, numbers normalized on first use.
type rawScope struct {
	inputs map[string]any
	mu     sync.Mutex
	cache  map[string]any
}

// Lookup finds name among the caller's inputs.
func (s *rawScope) Lookup(name string) (any, bool) {
	v, ok := s.inputs[name]
	if !ok {
		return nil, false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if c, ok := s.cache[name]; ok {
		return c, true
	}
	if s.cache == nil {
		s.cache = make(map[string]any)
	}
	n := normalize(v)
	s.cache[name] = n
	return n, true
}

// expression is a compiled boxed expression.
type expression interface {
	// eval evaluates the expression in sc; errors are recorded on r under
	// owner (the decision or BKM id) and yield nil.
	eval(r *run, sc feel.Scope, owner string) any
}

// literalExpr is a <literalExpression>.
type literalExpr struct {
	prog *feel.Program
	typ  *dmnType
}

func (e *literalExpr) eval(r *run, sc feel.Scope, owner string) any {
	v, err := e.prog.EvalValue(sc)
	if err != nil {
		r.fail(owner, "evaluating %q: %v", abbreviate(e.prog.Source()), err)
		return nil
	}
	if e.typ != nil {
		var why string
		if v, why = conform(v, e.typ); why != "" {
			r.fail(owner, "value of %q does not conform to %s: %s", abbreviate(e.prog.Source()), e.typ.name, why)
		}
	}
	return v
}

// contextExpr is a boxed <context>.
type contextExpr struct {
	entries []contextEntry
	result  *contextEntry // the final entry without a variable, if any
}

type contextEntry struct {
	name string
	typ  *dmnType
	expr expression
}

func (e *contextExpr) eval(r *run, sc feel.Scope, owner string) any {
	local := &mapScope{vars: make(map[string]any, len(e.entries)), parent: sc, now: r.now}
	out := make(map[string]any, len(e.entries))
	for _, ent := range e.entries {
		var v any
		if ent.expr != nil {
			v = ent.expr.eval(r, local, owner)
		}
		v, why := conform(v, ent.typ)
		if why != "" {
			r.fail(owner, "context entry %q does not conform to %s: %s", ent.name, ent.typ.name, why)
		}
		out[ent.name] = v
		local.vars[ent.name] = v
	}
	if e.result != nil {
		if e.result.expr == nil {
			return nil
		}
		return e.result.expr.eval(r, local, owner)
	}
	return out
}

// invocationExpr is a boxed <invocation>.
type invocationExpr struct {
	callee   expression
	bindings []binding
}

type binding struct {
	name string
	expr expression // nil: null
}

func (e *invocationExpr) eval(r *run, sc feel.Scope, owner string) any {
	if e.callee == nil {
		return nil
	}
	fv := e.callee.eval(r, sc, owner)
	fn, ok := fv.(feel.Function)
	if !ok {
		r.fail(owner, "invocation: %s is not a function", describe(fv))
		return nil
	}
	params := fn.Params()
	args := make([]any, len(params))
	for _, b := range e.bindings {
		i := indexOf(params, b.name)
		if i < 0 {
			r.fail(owner, "invocation: the function has no parameter %q (parameters: %s)", b.name, strings.Join(params, ", "))
			return nil
		}
		if b.expr != nil {
			args[i] = b.expr.eval(r, sc, owner)
		}
	}
	v, err := fn.Call(args)
	if err != nil {
		r.fail(owner, "invocation: %v", err)
		return nil
	}
	return v
}

func indexOf(list []string, s string) int {
	for i, x := range list {
		if x == s {
			return i
		}
	}
	return -1
}

// listExpr is a boxed <list>.
type listExpr struct{ items []expression }

func (e *listExpr) eval(r *run, sc feel.Scope, owner string) any {
	out := make([]any, len(e.items))
	for i, x := range e.items {
		if x != nil {
			out[i] = x.eval(r, sc, owner)
		}
	}
	return out
}

// relationExpr is a boxed <relation>: a list of contexts.
type relationExpr struct {
	columns []string
	rows    [][]expression
}

func (e *relationExpr) eval(r *run, sc feel.Scope, owner string) any {
	out := make([]any, len(e.rows))
	for i, row := range e.rows {
		m := make(map[string]any, len(e.columns))
		for j, col := range e.columns {
			if j < len(row) && row[j] != nil {
				m[col] = row[j].eval(r, sc, owner)
			} else {
				m[col] = nil
			}
		}
		out[i] = m
	}
	return out
}

// funcDef is a <functionDefinition> or a BKM's <encapsulatedLogic>.
type funcDef struct {
	params []Parameter
	body   expression
}

// eval makes a closure over the current scope.
func (f *funcDef) eval(r *run, sc feel.Scope, owner string) any {
	return &closure{r: r, fd: f, sc: sc, owner: owner}
}

// call binds args to the parameters (coercing each to its type) and
// evaluates the body over sc.
func (f *funcDef) call(r *run, sc feel.Scope, owner string, args []any) any {
	if r.depth >= MaxCallDepth {
		r.fail(owner, "calls nest deeper than %d", MaxCallDepth)
		return nil
	}
	r.depth++
	defer func() { r.depth-- }()
	vars := make(map[string]any, len(f.params))
	for i, p := range f.params {
		var a any
		if i < len(args) {
			a = args[i]
		}
		a, why := conform(a, p.typ)
		if why != "" {
			r.fail(owner, "argument %q does not conform to %s: %s", p.Name, p.TypeRef, why)
		}
		vars[p.Name] = a
	}
	return f.body.eval(r, &mapScope{vars: vars, parent: sc, now: r.now}, owner)
}

func paramNames(ps []Parameter) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.Name
	}
	return out
}

// closure is a FEEL function defined by a boxed functionDefinition.
type closure struct {
	r     *run
	fd    *funcDef
	sc    feel.Scope
	owner string
}

// Params returns the formal parameter names.
func (c *closure) Params() []string { return paramNames(c.fd.params) }

// Call evaluates the body with args bound.
func (c *closure) Call(args []any) (any, error) { return c.fd.call(c.r, c.sc, c.owner, args), nil }

// bkmFunc is a business knowledge model as a FEEL function, bound to one run.
type bkmFunc struct {
	r *run
	b *BKM
}

// Params returns the formal parameter names.
func (f *bkmFunc) Params() []string { return paramNames(f.b.Parameters) }

// Call invokes the business knowledge model.
func (f *bkmFunc) Call(args []any) (any, error) {
	if f.b.fn == nil {
		return nil, nil
	}
	vars := make(map[string]any, len(f.b.RequiredKnowledge))
	for _, k := range f.b.RequiredKnowledge {
		vars[k.Name] = &bkmFunc{r: f.r, b: k}
	}
	return f.b.fn.call(f.r, &mapScope{vars: vars, now: f.r.now}, f.b.ID, args), nil
}

// export turns a FEEL-native value of the requested decision into its
// JSON shape (see toJSON); a value JSON cannot hold (a range) is null and
// recorded as an error of the decision.
func (r *run) export(v any) any {
	return toJSON(v, func(err error) { r.fail(r.top.ID, "%v", err) })
}

// toJSON turns a FEEL-native value into its JSON shape: functions (also
// inside lists and contexts) become null, everything else goes through
// feel.ToJSON (temporal values become their FEEL string form). A value
// ToJSON refuses is null, and fail (when not nil) hears why.
func toJSON(v any, fail func(error)) any {
	switch x := v.(type) {
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = toJSON(e, fail)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = toJSON(e, fail)
		}
		return out
	case feel.Function:
		return nil
	}
	j, err := feel.ToJSON(v)
	if err != nil {
		if fail != nil {
			fail(err)
		}
		return nil
	}
	return j
}
