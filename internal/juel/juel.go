package juel

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Limits on what Compile accepts. They bound the work of compiling and of
// every evaluation (EL has no loops, so an evaluation visits each node of
// the tree at most once).
const (
	// MaxSourceLen is the longest source text Compile accepts, in bytes.
	MaxSourceLen = 64 << 10
	// MaxDepth is the deepest nesting Compile accepts: of parentheses and
	// unary operators while parsing, and of the resulting syntax tree
	// (a chain a+b+c+… nests one level per operator).
	MaxDepth = 200
)

// Sentinels that errors.Is finds in an *Error, for callers that branch on
// the kind of failure.
var (
	// ErrSyntax marks text that is not valid EL 2.2.
	ErrSyntax = errors.New("syntax error")
	// ErrUnsupported marks valid EL that gobpm refuses to run because it
	// cannot run it exactly as Camunda 7 would: calls of beans and
	// functions, methods it does not know, execution members other than
	// the supported ones, EL 3.0 syntax, and texts beyond the limits.
	ErrUnsupported = errors.New("not supported")
	// ErrUnknownIdentifier marks an evaluation that read a variable the
	// scope does not have (Camunda 7 throws PropertyNotFoundException
	// "Cannot resolve identifier" there).
	ErrUnknownIdentifier = errors.New("cannot resolve identifier")
)

// Error is a compile-time or run-time failure of an expression.
type Error struct {
	// Src is the whole expression text as given to Compile.
	Src string
	// Pos is the 1-based byte offset into Src of the token or operator at
	// fault; 0 when the failure concerns the text as a whole.
	Pos int
	// Msg says what is wrong, without position or source.
	Msg string
	// Err is ErrSyntax, ErrUnsupported, ErrUnknownIdentifier or nil (for
	// other run-time failures such as a bad coercion or a division by
	// zero).
	Err error
}

// Error returns the problem with its position and the expression text,
// e.g. `juel: at 7: unexpected ')' in "${a + )}"`.
func (e *Error) Error() string {
	src := e.Src
	const limit = 80
	if len(src) > limit {
		cut := limit
		for cut > 0 && !utf8.RuneStart(src[cut]) {
			cut--
		}
		src = src[:cut] + "…"
	}
	if e.Pos > 0 {
		return fmt.Sprintf("juel: at %d: %s in %q", e.Pos, e.Msg, src)
	}
	return fmt.Sprintf("juel: %s in %q", e.Msg, src)
}

// Unwrap returns the sentinel that classifies the error, if any.
func (e *Error) Unwrap() error { return e.Err }

// errorAt builds an *Error from a 0-based byte offset; Compile and Eval
// fill in Src.
func errorAt(off int, kind error, format string, args ...any) *Error {
	return &Error{Pos: off + 1, Msg: fmt.Sprintf(format, args...), Err: kind}
}

// Scope is the read-only view an expression evaluates against. Lookup
// resolves a top-level variable name and reports whether the variable
// exists (a variable that exists may hold nil). Its method set is that of
// expr.Scope, so any expr.Scope is a Scope.
type Scope interface {
	Lookup(name string) (value any, ok bool)
}

// Execution is the optional interface of a Scope that evaluates on behalf
// of a process instance; it backs Camunda's built-in `execution` object.
// Execution returns the process instance's id and its business key, ""
// when the instance has none (which `execution.processBusinessKey` shows
// as null, as Camunda does). execution.getVariable and hasVariable need
// only Lookup and work on any Scope.
type Execution interface {
	Execution() (processInstanceID, businessKey string)
}

// Expression is a compiled JUEL text. It is immutable and safe for
// concurrent use.
type Expression struct {
	src      string
	parts    []part
	deferred bool
}

// part is a piece of the text: literal text (node nil) or an eval
// expression.
type part struct {
	text string
	node node
}

// Compile compiles src, the text as written in a model: a single ${…} or
// #{…} eval expression, composite text mixing literal text and ${…} parts
// (`Hello ${name}!`), or plain text without ${ (a literal string). A
// backslash before ${ or #{ makes it literal text. The text is taken as
// is; Camunda trims the text of XML elements before compiling, and callers
// reading element text should do the same.
//
// Compile refuses, with an *Error wrapping ErrSyntax or ErrUnsupported,
// anything gobpm cannot run exactly as Camunda 7 would: function calls
// (`now()`, `fn:x()`), methods other than those package juel implements,
// calls with other argument counts, execution members other than
// getVariable, hasVariable, processInstanceId, processBusinessKey and
// their getters, EL 3.0 syntax (assignment, `;`, lambdas, `+=`, list, set
// and map literals), mixed ${…} and #{…}, and texts longer than
// MaxSourceLen or nested deeper than MaxDepth.
func Compile(src string) (*Expression, error) {
	e, err := compile(src)
	if err != nil {
		var je *Error
		if errors.As(err, &je) {
			je.Src = src
		}
		return nil, err
	}
	return e, nil
}

func compile(src string) (*Expression, error) {
	if len(src) > MaxSourceLen {
		return nil, &Error{Msg: fmt.Sprintf("expression is %d bytes long, more than the %d allowed", len(src), MaxSourceLen), Err: ErrUnsupported}
	}
	e := &Expression{src: src}
	var text strings.Builder
	flush := func() {
		if text.Len() > 0 {
			e.parts = append(e.parts, part{text: text.String()})
			text.Reset()
		}
	}
	seen := byte(0) // '$' or '#' once an eval expression was seen
	for i := 0; i < len(src); {
		c := src[i]
		if c == '\\' && i+2 < len(src) && (src[i+1] == '$' || src[i+1] == '#') && src[i+2] == '{' {
			text.WriteString(src[i+1 : i+3])
			i += 3
			continue
		}
		if (c == '$' || c == '#') && i+1 < len(src) && src[i+1] == '{' {
			if seen != 0 && seen != c {
				return nil, errorAt(i, ErrSyntax, "cannot mix ${…} and #{…} in one text")
			}
			seen = c
			flush()
			n, end, err := parseEval(src, i+2)
			if err != nil {
				return nil, err
			}
			e.parts = append(e.parts, part{node: n})
			i = end
			continue
		}
		text.WriteByte(c)
		i++
	}
	flush()
	e.deferred = seen == '#'
	return e, nil
}

// Source returns the text as given to Compile.
func (e *Expression) Source() string { return e.src }

// Composite reports whether Eval returns text: true for literal text and
// for text mixing literal parts and eval expressions (or holding more
// than one), false for a single ${…} or #{…}, whose value Eval returns as
// it is.
func (e *Expression) Composite() bool {
	return len(e.parts) != 1 || e.parts[0].node == nil
}

// Literal returns the text and true when the expression has no eval
// expression at all, so a caller can treat it as a constant.
func (e *Expression) Literal() (string, bool) {
	var b strings.Builder
	for _, p := range e.parts {
		if p.node != nil {
			return "", false
		}
		b.WriteString(p.text)
	}
	return b.String(), true
}

// Deferred reports whether the expression uses the deferred form #{…},
// which evaluates exactly as ${…} does.
func (e *Expression) Deferred() bool { return e.deferred }

// String returns the source text.
func (e *Expression) String() string { return e.src }

// Eval evaluates the expression against scope (nil means no variables).
// A single eval expression returns its JSON-shaped value: nil, bool,
// string, json.Number, []any or map[string]any. Values read from the
// scope and returned untouched are returned as they are (Go integers and
// floats become json.Number); numbers the expression computed are written
// as Jackson writes the Java value (5, 3.5, 2.0, 1.0E10). Composite text
// returns a string, each part coerced to String as EL does (null is "").
//
// Errors are *Error values: ErrUnknownIdentifier for a variable the scope
// lacks, and no sentinel for other failures (a coercion EL refuses, such
// as 'abc' + 1; division by zero; a method called on null or on a value
// of the wrong type; an index out of range for List.get or substring).
func (e *Expression) Eval(scope Scope) (any, error) {
	ev := &env{scope: scope, src: e.src}
	if !e.Composite() {
		n := e.parts[0].node
		v, err := n.eval(ev)
		if err != nil {
			return nil, err
		}
		out, err := toJSON(v)
		if err != nil {
			return nil, ev.fail(n, err)
		}
		return out, nil
	}
	var b strings.Builder
	for _, p := range e.parts {
		if p.node == nil {
			b.WriteString(p.text)
			continue
		}
		v, err := p.node.eval(ev)
		if err != nil {
			return nil, err
		}
		s, err := coerceString(v)
		if err != nil {
			return nil, ev.fail(p.node, err)
		}
		b.WriteString(s)
	}
	return b.String(), nil
}
