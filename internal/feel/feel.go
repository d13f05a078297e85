package feel

import (
	"fmt"
	"strings"
	"time"
)

// MaxSourceLen is the longest expression text, in bytes, that Compile accepts.
const MaxSourceLen = 32768

// MaxDepth is the deepest nesting that Compile accepts. The whole
// expression is level 1; every bracketed expression, list element,
// context value, argument, if branch, filter and unary minus opens one
// more level.
const MaxDepth = 64

// Scope resolves top-level variable names during evaluation. Lookup reports
// ok=false for a name that is not defined; FEEL then reads it as null.
type Scope interface {
	Lookup(name string) (value any, ok bool)
}

// Clock is implemented by a Scope that fixes the time of its evaluation:
// now() and today() then read Now instead of Options.Now or the wall
// clock, so a caller that passes the time into every step (the engine)
// evaluates deterministically.
type Clock interface {
	Now() time.Time
}

// clockOf picks the clock of one evaluation: the scope's when it is a
// Clock, else fallback (Options.Now; nil means time.Now).
func clockOf(scope Scope, fallback func() time.Time) func() time.Time {
	if c, ok := scope.(Clock); ok {
		return c.Now
	}
	return fallback
}

// Error is a compile error: the 1-based byte position in the source where
// the problem was found and a description of it. Its text reads
// `at 5: unexpected ")"`.
type Error struct {
	Pos int    // 1-based byte offset into the source
	Msg string // what is wrong, without the position
}

// Error returns the position and the problem, e.g. `at 5: unexpected ")"`.
func (e *Error) Error() string { return fmt.Sprintf("at %d: %s", e.Pos, e.Msg) }

// errorAt builds an *Error from a 0-based byte offset.
func errorAt(off int, msg string) *Error { return &Error{Pos: off + 1, Msg: msg} }

// Options tune compilation.
type Options struct {
	// Names lists known variable and function names; they may contain
	// spaces and the other characters FEEL allows in names ("Applicant
	// Age", "Monthly Salary", "Loan-to-value"). The lexer matches the
	// longest known name. A call f(…) of a name that is neither built in
	// nor known (nor bound by an enclosing context, function or
	// iteration) is a compile error, so list the names of functions the
	// Scope will provide (e.g. business knowledge models) here.
	Names []string
	// Now is the clock of now() and today() when the evaluation Scope is
	// not a Clock; nil means time.Now.
	Now func() time.Time
	// Types resolves type names FEEL does not define (DMN item
	// definitions, "tPerson", "import.tPerson") in `instance of` and in
	// typed parameters of function definitions. It returns nil for an
	// unknown name. Nil knows no names.
	Types func(name string) TypeFunc
	// Lenient defers to evaluation the problems DMN wants reported
	// there rather than at deployment: a call of an unknown function, of
	// a built-in with a wrong number of arguments or unknown parameter
	// names, an invalid @"…" literal, a duplicate context key, an unknown
	// type, an external function. Such a part of the expression
	// evaluates to null with a runtime error (see EvalErrors); Problems
	// lists them after compilation. Syntax errors still fail Compile.
	Lenient bool
}

// TypeFunc reports whether a value (in the form EvalValue returns) is an
// instance of a type Options.Types names.
type TypeFunc func(v any) bool

// RuntimeError is a FEEL runtime error: an operation whose operands FEEL
// does not define it for (1 + "a", date("x"), 1/0, a missing context
// entry) and that therefore yielded null — DMN's "null with a message".
type RuntimeError struct {
	Msg string // what went wrong
}

// Error returns the message.
func (e RuntimeError) Error() string { return e.Msg }

// Program is a compiled FEEL expression. It is immutable and safe for
// concurrent use by multiple goroutines.
type Program struct {
	src      string
	root     node
	now      func() time.Time
	deferred []string
	// constant is the native value of a program that is a literal (a
	// decision table's output entry "High", 0.05), exported once.
	constant any
	isConst  bool
}

// Compile parses src into a Program: Compile(src) is CompileWith(src, Options{}).
func Compile(src string) (*Program, error) { return CompileWith(src, Options{}) }

// CompileWith parses src into a Program. It rejects syntax errors, calls
// of unknown functions or of built-ins with a wrong number of arguments,
// sources longer than MaxSourceLen bytes and nesting deeper than
// MaxDepth. Errors are *Error values naming the position and the problem.
func CompileWith(src string, opts Options) (*Program, error) {
	p, err := newParserFor(src, opts)
	if err != nil {
		return nil, err
	}
	root, err := p.parseAll()
	if err != nil {
		return nil, err
	}
	prog := &Program{src: src, root: root, now: opts.Now, deferred: p.deferred}
	if lit, ok := root.(litNode); ok {
		if v, err := exportNative(lit.v, 0); err == nil {
			prog.constant, prog.isConst = v, true
		}
	}
	return prog, nil
}

// Problems lists the problems lenient compilation deferred to evaluation
// (see Options.Lenient), each as "at N: message"; nil otherwise.
func (p *Program) Problems() []string { return p.deferred }

// newParserFor checks the source length, lexes src and readies a parser.
func newParserFor(src string, opts Options) (*parser, error) {
	if len(src) > MaxSourceLen {
		return nil, errorAt(0, fmt.Sprintf("expression too long: %d bytes (limit %d)", len(src), MaxSourceLen))
	}
	toks, err := lex(src, newNameSet(opts.Names))
	if err != nil {
		return nil, err
	}
	names := make(map[string]bool, len(opts.Names))
	for _, n := range opts.Names {
		names[strings.Join(strings.Fields(n), " ")] = true
	}
	p := newParser(src, toks, names)
	p.types, p.lenient = opts.Types, opts.Lenient
	return p, nil
}

// Source returns the text the program was compiled from.
func (p *Program) Source() string { return p.src }

// Eval evaluates the program against scope (which may be nil: every name
// is then null) and returns a JSON-shaped value, as ToJSON makes it:
// nil, bool, string, json.Number, []any or map[string]any, temporal
// values as their FEEL string form. FEEL turns most runtime problems
// (type mismatches, division by zero, missing names) into null; Eval
// returns an error only when the result cannot be expressed as JSON
// (a range or a function), a resource limit is exceeded or a Function
// from the scope fails.
func (p *Program) Eval(scope Scope) (any, error) {
	ev, v, err := p.run(scope)
	if err != nil {
		return nil, err
	}
	return ev.export(v, 0)
}

// ToJSON converts a FEEL-native value (as EvalValue returns, or as a
// Function returns to Go) to the JSON shape Eval returns: numbers become
// json.Number, Date, Time, DateTime, Duration and YearsMonths their FEEL
// string form ("2025-03-01", "P1DT2H"), lists and contexts are converted
// element by element. A range, a function or a Go value FEEL does not
// know is an error.
func ToJSON(v any) (any, error) { return export(v, 0) }

// EvalValue evaluates the program like Eval but returns the FEEL-native
// result: as Eval, plus Date, Time, DateTime, Duration, YearsMonths,
// Function and *Range values (also inside lists and contexts).
func (p *Program) EvalValue(scope Scope) (any, error) {
	ev, v, err := p.run(scope)
	if err != nil {
		return nil, err
	}
	return ev.exportNative(v, 0)
}

// Prepare converts v (in any form a Scope may hold) to the form FEEL
// computes with, so that a value matched against many unary tests — the
// input of a decision table's rules — is converted once. The result is
// only good for passing back to FEEL (as a Match input or a Scope value).
func Prepare(v any) any { return norm(v) }

// EvalErrors evaluates the program like EvalValue and also returns the
// runtime errors of the evaluation: every operation that yielded null
// because its operands were invalid (see RuntimeError). The value is
// still the FEEL result (usually null when there are errors, but an
// error in a part whose value did not matter — a filter element, an
// unused branch — leaves the result standing). err is as EvalValue's.
//
// Eval and EvalValue ignore these errors; callers that must tell a null
// result from a failed evaluation (a DMN decision, a BPMN condition that
// should raise an incident) use EvalErrors.
func (p *Program) EvalErrors(scope Scope) (any, []RuntimeError, error) {
	if p.isConst {
		return p.constant, nil, nil
	}
	ev := p.evaluator(scope, false)
	v := ev.eval(p.root, &env{root: scope})
	if ev.err != nil {
		return nil, ev.runtimeErrors(), ev.err
	}
	out, err := ev.exportNative(v, 0)
	return out, ev.runtimeErrors(), err
}

func (p *Program) evaluator(scope Scope, quiet bool) *evaluator {
	return newEvaluator(clockOf(scope, p.now), limitsOf(scope), quiet)
}

// run evaluates the program; the evaluator it returns has the rest of
// the budget, for converting the result.
func (p *Program) run(scope Scope) (*evaluator, any, error) {
	ev := p.evaluator(scope, true)
	v := ev.eval(p.root, &env{root: scope})
	if ev.err != nil {
		return nil, nil, ev.err
	}
	return ev, v, nil
}
