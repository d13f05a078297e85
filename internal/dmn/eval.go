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

// MaxCallDepth bounds nested invocations of business knowledge models,
// decision services and FEEL functions defined in boxed contexts during
// one evaluation.
const MaxCallDepth = 64

// maxErrors bounds the errors one evaluation records.
const maxErrors = 100

// Result is the outcome of evaluating one decision (or decision service).
type Result struct {
	// Value is the decision's value, JSON-shaped as feel.ToJSON makes it
	// (nil, bool, string, json.Number, []any, map[string]any; temporal
	// values as their FEEL string form), functions null. It is nil when
	// the decision failed or its value has no JSON shape, a range say
	// (see Errors).
	Value any
	// Native is the decision's value as FEEL holds it (feel.EvalValue's
	// shape): numbers as json.Number, temporal values as feel.Date,
	// feel.Time, feel.DateTime, feel.Duration and feel.YearsMonths,
	// ranges as *feel.Range, functions as feel.Function. Comparing by
	// value and type (the DMN TCK does) needs this form.
	Native any
	// Outputs holds, for a decision service, the FEEL-native value of
	// each output decision by name.
	Outputs map[string]any
	// Decisions holds the JSON-shaped value of every decision evaluated
	// on the way — the requested one and all it requires, directly or
	// not — by decision id (by name for a decision without an id).
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
	// Errors lists what went wrong while evaluating: FEEL runtime errors
	// (an operation on operands it is not defined for, such as 1 + "a"
	// or a missing context entry: DMN's "null with a message"), hit
	// policy violations, values that do not conform to their type,
	// expressions that did not compile (see Definitions.Warnings),
	// invocations of non-functions. Each failed expression evaluates to
	// null and evaluation goes on, as DMN prescribes; a non-empty Errors
	// means the result must not be trusted.
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
	// evaluated (its name when it has no id).
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

// DecisionService returns the decision service with the given id or
// name, or nil.
func (d *Definitions) DecisionService(idOrName string) *DecisionService {
	return d.services[idOrName]
}

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
// inputs is null. A decision sees the input data, decisions, business
// knowledge models and decision services it requires (those of imported
// models under the import's name); any other entry of inputs is visible
// too, under its key, after them, so decision tables written against
// plain process variables (as Camunda models often are) evaluate.
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
	// instead of a decision: its parameters (input data and input
	// decisions) are read from Inputs by name, an input decision missing
	// there is null (never evaluated). The result has the service's value
	// and, in Outputs, each output decision's.
	Service string
	// Inputs holds the values of the model's input data by name (see
	// Evaluate).
	Inputs map[string]any
	// Imported holds the values of the input data of imported models: by
	// the imported model's namespace, then by input data name. (An entry
	// of Inputs named after an import, holding a context of values by
	// name, serves too.)
	Imported map[string]map[string]any
	// Now is the clock of FEEL's now() and today(); zero means time.Now.
	Now time.Time
}

// EvaluateRequest evaluates what req names (see Evaluate). The error is
// ErrUnknownDecision when req names nothing the model holds.
func (d *Definitions) EvaluateRequest(req Request) (Result, error) {
	now := req.Now
	if now.IsZero() {
		now = time.Now()
	}
	r := &run{
		defs:    d,
		req:     req,
		now:     now,
		values:  make(map[*Decision]any),
		inputsV: make(map[*InputData]any),
		log:     &runLog{},
	}
	if req.Service != "" {
		s := d.services[req.Service]
		if s == nil {
			return Result{}, fmt.Errorf("%w: no decision service %q", ErrUnknownDecision, req.Service)
		}
		args := make([]any, 0, len(s.InputData)+len(s.InputDecisions))
		for _, in := range s.InputData {
			args = append(args, normalize(req.Inputs[in.Name]))
		}
		for _, dd := range s.InputDecisions {
			args = append(args, normalize(req.Inputs[dd.Name]))
		}
		v, outs, child := r.service(s, args, true)
		res := Result{
			Value:     r.export(v, elementOr(s.ID, s.Name)),
			Native:    v,
			Outputs:   outs,
			Decisions: map[string]any{},
			Matched:   r.log.matched,
			Errors:    r.log.errors,
		}
		for _, x := range child.order {
			res.Decisions[elementOr(x.ID, x.Name)] = toJSON(child.values[x], nil)
		}
		if v != nil {
			res.Entries = []map[string]any{{s.Name: res.Value}}
		}
		return res, nil
	}
	dec := d.decisions[req.Decision]
	if dec == nil {
		dec = d.byName[req.Decision]
	}
	if dec == nil {
		return Result{}, fmt.Errorf("%w: %q", ErrUnknownDecision, req.Decision)
	}
	r.top = dec
	v := r.decision(dec)
	value := r.export(v, elementOr(dec.ID, dec.Name))
	res := Result{
		Value:     value,
		Native:    v,
		Decisions: make(map[string]any, len(r.order)),
		Matched:   r.log.matched,
		Errors:    r.log.errors,
	}
	for _, x := range r.order {
		if x == dec {
			res.Decisions[elementOr(x.ID, x.Name)] = res.Value
		} else {
			res.Decisions[elementOr(x.ID, x.Name)] = toJSON(r.values[x], nil)
		}
	}
	if r.entries != nil {
		res.Entries = r.entries
	} else if dec.Table == nil && v != nil {
		res.Entries = []map[string]any{{dec.Name: res.Value}}
	}
	return res, nil
}

// run is the state of one Evaluate call, or of one decision service
// invocation within it (which evaluates its decisions afresh).
type run struct {
	defs    *Definitions // the model evaluated
	req     Request
	now     time.Time         // the clock of now() and today()
	values  map[*Decision]any // evaluated decisions
	order   []*Decision       // in evaluation order
	inputsV map[*InputData]any
	raw     *rawScope
	top     *Decision
	depth   *int // shared by the runs of one evaluation
	log     *runLog
	entries []map[string]any // Result.Entries of the top decision's table
}

// runLog collects the errors and matched rules of an evaluation, for
// the top run and every decision service run within it.
type runLog struct {
	errors  []EvalError
	dropped int
	matched []MatchedRule
}

func (r *run) fail(element, format string, args ...any) {
	if len(r.log.errors) >= maxErrors {
		r.log.dropped++
		return
	}
	r.log.errors = append(r.log.errors, EvalError{Element: element, Message: fmt.Sprintf(format, args...)})
}

// feelErrors records the runtime errors of a FEEL evaluation of src.
func (r *run) feelErrors(owner, src string, errs []feel.RuntimeError) {
	for _, e := range errs {
		r.fail(owner, "%q: %s", abbreviate(src), e.Msg)
	}
}

// enter counts one level of nested invocation; false (with an error)
// when the limit is reached. Every successful enter is paired with leave.
func (r *run) enter(owner string) bool {
	if r.depth == nil {
		r.depth = new(int)
	}
	if *r.depth >= MaxCallDepth {
		r.fail(owner, "calls nest deeper than %d", MaxCallDepth)
		return false
	}
	*r.depth++
	return true
}

func (r *run) leave() { *r.depth-- }

// decision evaluates d once, its requirements first.
func (r *run) decision(d *Decision) any {
	if v, ok := r.values[d]; ok {
		return v
	}
	owner := elementOr(d.ID, d.Name)
	sc := r.scope(d.model, d.RequiredDecisions, d.RequiredInputs, d.RequiredKnowledge, d.RequiredServices)
	var v any
	if d.logic != nil {
		v = d.logic.eval(r, sc, owner)
	}
	v, why := conform(v, d.typ)
	if why != "" {
		r.fail(owner, "result does not conform to %s: %s", d.TypeRef, why)
	}
	r.values[d] = v
	r.order = append(r.order, d)
	return v
}

// scope builds the FEEL scope of an element of model m from its
// requirements: each by its name, or — for an element of an imported
// model — as an entry of a context named after the import.
func (r *run) scope(m *Definitions, ds []*Decision, ins []*InputData, bkms []*BKM, services []*DecisionService) feel.Scope {
	vars := make(map[string]any, len(ds)+len(ins)+len(bkms)+len(services))
	bind := func(of *Definitions, name string, v any) {
		if of == m || of == nil {
			vars[name] = v
			return
		}
		imp := importName(m, of)
		if imp == "" {
			vars[name] = v
			return
		}
		c, _ := vars[imp].(map[string]any)
		if c == nil {
			c = map[string]any{}
			vars[imp] = c
		}
		c[name] = v
	}
	for _, rd := range ds {
		bind(rd.model, rd.Name, r.decision(rd))
	}
	for _, in := range ins {
		bind(in.model, in.Name, r.input(in))
	}
	for _, b := range bkms {
		bind(b.model, b.Name, &bkmFunc{r: r, b: b})
	}
	for _, s := range services {
		bind(s.model, s.Name, &serviceFunc{r: r, s: s})
	}
	var parent feel.Scope
	if m == r.defs {
		if r.raw == nil {
			r.raw = &rawScope{inputs: r.req.Inputs}
		}
		parent = r.raw
	}
	return &mapScope{vars: vars, parent: parent, now: r.now}
}

// importName is the name under which model m imports model of ("" when
// it does not).
func importName(m, of *Definitions) string {
	for _, im := range m.Imports {
		if im.Model == of {
			return im.Name
		}
	}
	return ""
}

// input returns the coerced value of an input data: from Request.Inputs
// for the evaluated model's, from Request.Imported (or an Inputs entry
// named after the import) for an imported model's.
func (r *run) input(in *InputData) any {
	if v, ok := r.inputsV[in]; ok {
		return v
	}
	var raw any
	if in.model == r.defs || in.model == nil {
		raw = r.req.Inputs[in.Name]
	} else {
		vals, ok := r.req.Imported[in.model.Namespace]
		if ok {
			raw = vals[in.Name]
		} else if imp := importName(r.defs, in.model); imp != "" {
			if c, ok := r.req.Inputs[imp].(map[string]any); ok {
				raw = c[in.Name]
			}
		}
	}
	v, why := conformInput(raw, in.typ)
	if why != "" {
		r.fail(elementOr(in.ID, in.Name), "input %q does not conform to %s: %s", in.Name, in.TypeRef, why)
	}
	r.inputsV[in] = v
	return v
}

// service evaluates a decision service with its arguments (input data,
// then input decisions): a fresh run where the input decisions have the
// given values and the input data the given values, evaluating the
// output decisions. It returns the service's value, each output's, and
// the run.
func (r *run) service(s *DecisionService, args []any, fromJSON bool) (any, map[string]any, *run) {
	child := &run{
		defs:    r.defs,
		req:     r.req,
		now:     r.now,
		values:  make(map[*Decision]any),
		inputsV: make(map[*InputData]any),
		raw:     r.raw,
		depth:   r.depth,
		log:     r.log,
	}
	owner := elementOr(s.ID, s.Name)
	coerce := func(v any, t *dmnType) (any, string) {
		if fromJSON {
			return conformInput(v, t)
		}
		return conform(v, t)
	}
	arg := func(i int) any {
		if i < len(args) {
			return args[i]
		}
		return nil
	}
	// An argument that does not conform: invoked as a function, the
	// service is not invoked (null); invoked directly, the argument is
	// null.
	for i, in := range s.InputData {
		v, why := coerce(arg(i), in.typ)
		if why != "" {
			r.fail(owner, "input %q does not conform to %s: %s", in.Name, in.TypeRef, why)
			if !fromJSON {
				return nil, nil, child
			}
		}
		child.inputsV[in] = v
	}
	for j, d := range s.InputDecisions {
		v, why := coerce(arg(len(s.InputData)+j), d.typ)
		if why != "" {
			r.fail(owner, "input decision %q does not conform to %s: %s", d.Name, d.TypeRef, why)
			if !fromJSON {
				return nil, nil, child
			}
		}
		child.values[d] = v
	}
	outs := make(map[string]any, len(s.OutputDecisions))
	for _, d := range s.OutputDecisions {
		outs[d.Name] = child.decision(d)
	}
	var v any
	if len(s.OutputDecisions) == 1 {
		v = outs[s.OutputDecisions[0].Name]
	} else {
		m := make(map[string]any, len(outs))
		for k, x := range outs {
			m[k] = x
		}
		v = m
	}
	v, why := conform(v, s.typ)
	if why != "" {
		r.fail(owner, "result does not conform to %s: %s", s.TypeRef, why)
	}
	// The outputs as the service returns them (after its coercion).
	if len(s.OutputDecisions) == 1 {
		outs[s.OutputDecisions[0].Name] = v
	} else if m, ok := v.(map[string]any); ok {
		outs = m
	} else {
		for k := range outs {
			outs[k] = nil
		}
	}
	return v, outs, child
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
	sc := f.r.scope(f.b.model, nil, nil, f.b.RequiredKnowledge, f.b.RequiredServices)
	return f.b.fn.call(f.r, sc, elementOr(f.b.ID, f.b.Name), args), nil
}

// serviceFunc is a decision service as a FEEL function, bound to one run.
type serviceFunc struct {
	r *run
	s *DecisionService
}

// Params returns the service's parameter names: input data, then input
// decisions.
func (f *serviceFunc) Params() []string { return f.s.Parameters() }

// Call invokes the decision service.
func (f *serviceFunc) Call(args []any) (any, error) {
	owner := elementOr(f.s.ID, f.s.Name)
	if !f.r.enter(owner) {
		return nil, nil
	}
	defer f.r.leave()
	in := make([]any, len(args))
	for i, a := range args {
		in[i] = normalize(a)
	}
	v, _, _ := f.r.service(f.s, in, false)
	return v, nil
}

// export turns a FEEL-native value of the requested decision into its
// JSON shape (see toJSON); a value JSON cannot hold (a range) is null and
// recorded as an error of the decision.
func (r *run) export(v any, owner string) any {
	return toJSON(v, func(err error) { r.fail(owner, "%v", err) })
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
