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
// document's `expressionLanguage`. FEEL is the default. A leading `=`
// (Camunda 8 style) and a `${…}` wrapper (Camunda 7 style) are accepted and
// stripped before compilation.
//
// This package imports no I/O.
package expr

import (
	"errors"
	"fmt"
	"strings"

	"github.com/gobpm/gobpm/internal/feel"
)

// Scope is the read-only view an expression evaluates against. Lookup
// resolves a top-level variable name (walk-up through scopes is the
// caller's business). A Scope that also has a Now() time.Time method
// (feel.Clock) is the clock of FEEL's now() and today(); the engine's
// scopes return the step's time, so evaluation never reads the wall clock.
type Scope interface {
	Lookup(name string) (value any, ok bool)
}

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

// ErrUnsupportedLanguage is returned by Compile for a language other than FEEL.
var ErrUnsupportedLanguage = errors.New("expression language not supported")

// Compile compiles src in the given language. It strips a leading `=` and a
// `${…}` wrapper first. Errors describe the position and the problem.
func Compile(language, src string) (Expression, error) {
	if !feelLanguages[strings.TrimSpace(language)] {
		return nil, fmt.Errorf("%w: %q (only FEEL is supported)", ErrUnsupportedLanguage, language)
	}
	body := Unwrap(src)
	compiled, err := feel.Compile(body)
	if err != nil {
		return nil, err
	}
	return compiledExpr{src: src, fn: compiled}, nil
}

// Unwrap strips the Camunda 8 leading `=` and the Camunda 7 `${…}` wrapper
// from an expression text and trims surrounding space.
func Unwrap(src string) string {
	s := strings.TrimSpace(src)
	if strings.HasPrefix(s, "=") {
		return strings.TrimSpace(s[1:])
	}
	if (strings.HasPrefix(s, "${") || strings.HasPrefix(s, "#{")) && strings.HasSuffix(s, "}") {
		return strings.TrimSpace(s[2 : len(s)-1])
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
