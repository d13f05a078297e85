// Package expr is the expression seam of gobpm: every expression in a model
// (sequence-flow conditions, script bodies, and later completion conditions,
// router expressions, correlation keys) is compiled here once, at deployment,
// and evaluated later against a read-only view of the instance data.
//
// # Values
//
// Expressions read and produce JSON-shaped Go values, the same shapes the
// runtime stores as variables:
//
//	nil                 null
//	bool                boolean
//	string              string
//	json.Number         number (exact decimal text; never float64)
//	[]any               list
//	map[string]any      context / object
//
// Implementations convert numbers to exact decimals internally, so
// 0.1 + 0.2 = 0.3 holds.
//
// # Languages
//
// The language is chosen by the expression's `language` attribute or the
// document's `expressionLanguage`. FEEL is the default; a leading `=`
// (Camunda 8 style) is stripped before compilation. Text with a `${…}` or
// `#{…}` part (Camunda 7 style), or any text whose language is JUEL, is a
// JUEL (Unified EL) expression evaluated by package juel with EL's own
// semantics — never FEEL in disguise: `${not approved}` and
// `${empty items}` mean what they mean in Camunda 7.
//
// This package imports no I/O.
package expr

import (
	"errors"
	"fmt"
	"strings"

	"github.com/gobpm/gobpm/internal/feel"
	"github.com/gobpm/gobpm/internal/juel"
)

// Scope is the read-only view an expression evaluates against. Lookup
// resolves a top-level variable name (walk-up through scopes is the
// caller's business). A Scope that also has a Now() time.Time method
// (feel.Clock) is the clock of FEEL's now() and today(); the engine's
// scopes return the step's time, so evaluation never reads the wall clock.
type Scope interface {
	Lookup(name string) (value any, ok bool)
}

// Limits bound the work of one FEEL evaluation: a step budget charged by
// the work done, and optionally a wall-clock deadline and a cancellation
// channel (see feel.Limits). A Scope that also has an
// EvalLimits() Limits method (feel.Limited) sets the limits of the
// evaluations against it; the engine's scopes pass the runtime's.
type Limits = feel.Limits

// ErrBudget is wrapped by the error of an evaluation that hit one of its
// limits (steps, deadline, cancellation, sizes): errors.Is finds it.
var ErrBudget = feel.ErrBudget

// ErrUnknownVariable is wrapped by the error of a JUEL evaluation that read
// a variable its scope does not hold (FEEL reads such a name as null).
var ErrUnknownVariable = juel.ErrUnknownIdentifier

// MapScope is a Scope over a plain map.
type MapScope map[string]any

// Lookup returns the value stored under name.
func (m MapScope) Lookup(name string) (any, bool) {
	v, ok := m[name]
	return v, ok
}

// Expression is a compiled expression. It is immutable and safe for
// concurrent use.
type Expression interface {
	// Eval evaluates the expression against scope and returns a JSON-shaped value.
	Eval(scope Scope) (any, error)
	// Source returns the expression text as written in the model.
	Source() string
}

// Language names accepted in the `language` / `expressionLanguage` attributes
// that select FEEL.
var feelLanguages = map[string]bool{
	"":                                      true,
	"feel":                                  true,
	"FEEL":                                  true,
	"http://www.omg.org/spec/FEEL/20140401": true,
	"https://www.omg.org/spec/DMN/20191111/FEEL/":  true,
	"http://www.omg.org/spec/DMN/20180521/FEEL/":   true,
	"https://www.omg.org/spec/DMN/20230324/FEEL/":  true,
	"https://www.omg.org/spec/DMN/20211108/FEEL/":  true,
	"http://www.omg.org/spec/DMN/20151101/FEEL":    true,
	"http://www.omg.org/spec/DMN/20151101/dmn.xsd": true,
}

// juelLanguages are the language names that select JUEL.
var juelLanguages = map[string]bool{
	"juel": true, "JUEL": true, "el": true, "EL": true,
	"http://java.sun.com/products/jsp/": true, // Camunda 7's expressionLanguage for JUEL
}

// ErrUnsupportedLanguage is returned by Compile for a language other than
// FEEL and JUEL.
var ErrUnsupportedLanguage = errors.New("expression language not supported")

// Compile compiles src in the given language: JUEL when IsJUEL, FEEL
// otherwise (a leading `=` stripped). Errors describe the position and the problem.
func Compile(language, src string) (Expression, error) {
	language = strings.TrimSpace(language)
	if IsJUEL(language, src) {
		compiled, err := juel.Compile(strings.TrimSpace(src))
		if err != nil {
			return nil, err
		}
		return juelExpr{src: src, x: compiled}, nil
	}
	if !feelLanguages[language] {
		return nil, fmt.Errorf("%w: %q (FEEL and JUEL are supported)", ErrUnsupportedLanguage, language)
	}
	compiled, err := feel.Compile(Unwrap(src))
	if err != nil {
		return nil, err
	}
	return compiledExpr{src: src, fn: compiled}, nil
}

// IsJUEL reports whether src in language is a JUEL expression: the
// language names JUEL, or the text — not a Camunda 8 `=` expression —
// holds a `${…}` or `#{…}` part (composite text such as "Hello ${name}"
// included).
func IsJUEL(language, src string) bool {
	if juelLanguages[strings.TrimSpace(language)] {
		return true
	}
	s := strings.TrimSpace(src)
	return !strings.HasPrefix(s, "=") && (strings.Contains(s, "${") || strings.Contains(s, "#{"))
}

// juelExpr is a compiled JUEL expression.
type juelExpr struct {
	src string
	x   *juel.Expression
}

func (j juelExpr) Eval(scope Scope) (any, error) { return j.x.Eval(scope) }
func (j juelExpr) Source() string                { return j.src }

// Condition evaluates x as a condition (a sequence flow's, a loop's, a
// conditional event's). FEEL: true holds; null and any other value do not
// (as DMN and BPMN engines read FEEL conditions). JUEL: the value must be a
// boolean, as in Camunda 7, where anything else is an error — an error
// becomes an incident, never a branch taken.
func Condition(x Expression, scope Scope) (bool, error) {
	v, err := x.Eval(scope)
	if err != nil {
		return false, err
	}
	if _, ok := x.(juelExpr); ok {
		b, ok := v.(bool)
		if !ok {
			return false, fmt.Errorf("the condition %s returned %s, not a boolean", x.Source(), describe(v))
		}
		return b, nil
	}
	return Truthy(v), nil
}

// describe names a value's JSON type for an error message.
func describe(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case []any:
		return "a list"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%v", v)
}

// Unwrap strips the Camunda 8 leading `=` from a FEEL expression text and
// trims surrounding space. (A `${…}` text is JUEL, never unwrapped into
// FEEL.)
func Unwrap(src string) string {
	s := strings.TrimSpace(src)
	if strings.HasPrefix(s, "=") {
		return strings.TrimSpace(s[1:])
	}
	return s
}

type compiledExpr struct {
	src string
	fn  *feel.Program
}

func (c compiledExpr) Eval(scope Scope) (any, error) { return c.fn.Eval(scope) }
func (c compiledExpr) Source() string                { return c.src }

// Truthy reports whether v is the boolean true. FEEL conditions that yield
// null or a non-boolean count as false, as in DMN/BPMN engines.
func Truthy(v any) bool {
	b, ok := v.(bool)
	return ok && b
}
