package feel

import (
	"fmt"
)

// MaxSourceLen is the longest expression text, in bytes, that Compile accepts.
const MaxSourceLen = 8192

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

// Program is a compiled FEEL expression. It is immutable and safe for
// concurrent use by multiple goroutines.
type Program struct {
	src  string
	root node
}

// Compile parses src into a Program. It rejects syntax errors, calls of
// unknown functions or with a wrong number of arguments, sources longer
// than MaxSourceLen bytes and nesting deeper than MaxDepth. Errors are
// *Error values naming the position and the problem.
func Compile(src string) (*Program, error) {
	if len(src) > MaxSourceLen {
		return nil, errorAt(0, fmt.Sprintf("expression too long: %d bytes (limit %d)", len(src), MaxSourceLen))
	}
	toks, err := lex(src)
	if err != nil {
		return nil, err
	}
	root, err := parse(toks)
	if err != nil {
		return nil, err
	}
	return &Program{src: src, root: root}, nil
}

// Source returns the text the program was compiled from.
func (p *Program) Source() string { return p.src }

// Eval evaluates the program against scope (which may be nil: every name
// is then null) and returns a JSON-shaped value: nil, bool, string,
// json.Number, []any or map[string]any. FEEL turns most runtime problems
// (type mismatches, division by zero, missing names) into null; Eval
// returns an error only when the result cannot be expressed as JSON
// (a range, for example) or a resource limit is exceeded.
func (p *Program) Eval(scope Scope) (any, error) {
	ev := &evaluator{}
	v := ev.eval(p.root, &env{root: scope})
	if ev.err != nil {
		return nil, ev.err
	}
	return export(v, 0)
}
