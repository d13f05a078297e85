// Package feel implements the core of FEEL, the expression language of
// DMN (DMN 1.5, chapter 10), for gobpm's expression seam (package expr).
//
// A source text is compiled once, at deployment, into an immutable
// Program; the Program is then evaluated any number of times, from any
// number of goroutines, against a read-only Scope of variables.
//
//	prog, err := feel.Compile(`amount > 1000 and customer.tier = "gold"`)
//	if err != nil {
//		return err // e.g. `at 8: unexpected ")"`
//	}
//	v, err := prog.Eval(scope) // true, false or nil
//
// # Values
//
// Values go in and come out JSON-shaped: nil, bool, string, json.Number,
// []any and map[string]any. Numbers may also be passed in as float64 or Go
// integers. Internally numbers are apd decimals with 34 significant
// digits (like decimal128), so 0.1 + 0.2 = 0.3 and 1/3 has 34 digits;
// results come back as json.Number in canonical text ("0.3", "10").
// Ranges exist only during evaluation: a program whose result is a range
// fails in Eval.
//
// # Language
//
// Supported: number, string (with \" \\ \n \r \t \uXXXX escapes), boolean
// and null literals; names and paths (a.b.c; a missing name or key is
// null; a path over a list maps over its elements); + - * / ** and unary
// minus (division by zero is null); string concatenation with +;
// = != < <= > >= (numbers and strings are ordered, booleans only compare
// for equality, mismatched types give null); three-valued and/or; if
// then else; list literals, 1-based indexing (negative from the end) and
// boolean filters over `item`; context literals whose entries may use
// earlier ones; ranges [a..b], (a..b), ]a..b[ and mixed forms;
// `x between a and b`; `x in` a value, list, range, comparison test
// (`x in >= 5`) or parenthesised list of tests; // and /* */ comments.
//
// Built-in functions: not, string length, upper case, lower case,
// contains, starts with, ends with, substring, string, number, count,
// list contains, sum, min, max, abs, floor, ceiling, decimal, modulo.
// Calling any other function is a compile error.
//
// Not yet supported: names containing spaces, for/some/every, temporal
// types, user-defined functions, named arguments and DMN unary tests.
//
// # Structure
//
// lexer.go splits the source into tokens (names are single words; the
// parser joins words into multi-word function names, which is where
// names with spaces will be added); parser.go builds the AST; eval.go
// walks it; value.go holds the value model and decimal conversion;
// builtins.go the function library.
//
// # Limits
//
// Compile rejects sources longer than MaxSourceLen bytes and nesting
// deeper than MaxDepth. Evaluation refuses to build strings longer than
// 1 MiB. No input makes Compile or Eval panic.
//
// This package imports no I/O and nothing else from gobpm.
package feel
