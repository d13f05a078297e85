// Package feel implements FEEL, the expression language of DMN (DMN 1.5,
// chapter 10), for gobpm's expression seam (package expr) and for DMN
// decisions.
//
// A source text is compiled once, at deployment, into an immutable
// Program; the Program is then evaluated any number of times, from any
// number of goroutines, against a read-only Scope of variables.
//
//	prog, err := feel.CompileWith(`Monthly Salary * 12 > 50000 and customer.tier = "gold"`,
//		feel.Options{Names: []string{"Monthly Salary"}})
//	if err != nil {
//		return err // e.g. `at 8: unexpected ")"`
//	}
//	v, err := prog.Eval(scope) // true, false or nil
//
// DMN input entries are unary tests, compiled with CompileUnaryTests and
// matched against an input value with (*UnaryTests).Match.
//
// # Runtime errors
//
// FEEL answers an invalid operation with null: 1 + "a", 10 * null,
// date("x"), 1 / 0, {a: 1}.b, abs("x"), a built-in called with null
// where it needs a value. DMN calls that "null with a message", and the
// message matters — a null that is a failure must not pass for a null
// that is an answer. EvalErrors returns the value and these messages
// (RuntimeError); UnaryTests.MatchErrors and the CallErrors method of
// functions FEEL defined (ErrorsFunction) do the same. Eval, EvalValue
// and Match keep ignoring them, so existing callers see no change: a
// caller that should fail on them (a BPMN condition raising an incident,
// a DMN decision recording an error) calls EvalErrors instead.
//
//	v, errs, err := prog.EvalErrors(scope)
//	if err != nil { … }      // a resource limit, a failing Function
//	if len(errs) > 0 { … }   // v is (usually) null because of errs[0].Msg
//
// What is an error follows the DMN TCK: arithmetic and ordering with
// null or mismatched types, = between values of different types (but not
// with null), a missing context entry, a property a value does not have,
// a call of a non-function or with wrong arguments, built-in arguments of
// the wrong type (or null where not allowed), invalid conversions. Inside
// a filter, an element whose test is null is left out without an error;
// a list projection (people.name) reads a missing entry as null.
//
// Options.Lenient (DMN uses it) compiles calls of unknown functions, of
// built-ins with a wrong argument count or unknown parameter names,
// invalid @"…" literals, duplicate context keys, unknown types and
// external functions into parts that evaluate to null with a runtime
// error, listed by Program.Problems; otherwise they are compile errors.
//
// # Values
//
// Eval returns JSON-shaped values: nil, bool, string, json.Number, []any
// and map[string]any, temporal values as their FEEL string form, and
// fails for a result JSON cannot hold (a range, a function); ToJSON makes
// the same conversion of a native value. EvalValue returns FEEL-native
// values: the same,
// plus Date, Time, DateTime, Duration (days and time), YearsMonths,
// *Range and Function. A Scope may hold all of these, and numbers as
// float64 or Go integers too. Contexts keep their entries in the order
// written or added (get entries, string()); a Go map from the Scope reads
// in sorted key order. Internally numbers are apd decimals with 34
// significant digits (decimal128), so 0.1 + 0.2 = 0.3 and 1/3 has 34
// digits; results come back as json.Number in canonical text.
//
// The temporal types are immutable values whose String method writes
// the FEEL text ("2026-01-01", "10:30:00+02:00", "P1DT2H", "P1Y2M");
// ParseDate, ParseTime, ParseDateTime and ParseDuration read it back.
//
// # Language
//
// The whole grammar of chapter 10: literals (numbers, strings with \" \\
// \n \r \t \uXXXX escapes — other backslashes stay, for regular
// expressions — booleans, null, @"…" temporal literals); names and
// paths (a.b.c, over lists element-wise, and properties such as .year,
// .month, .day, .weekday, .hour, .minute, .second, .time offset,
// .timezone, .days, .hours, .minutes, .seconds, .years, .months, and
// .start, .end, .start included, .end included of ranges); arithmetic
// + - * / ** with unary minus over numbers, strings (+) and the temporal
// types; comparisons = != < <= > >= (mismatched types give null);
// three-valued and/or; if then else; between; in with unary tests;
// `instance of` with number, string, boolean, date, time, date and time,
// days and time duration, years and months duration, list<T>,
// context<k: T>, range<T>, function<T>->T, Any and Null; list
// literals, 1-based indexing (negative from the end) and filters over
// `item` and element entries; context literals whose entries see the
// earlier ones; ranges [a..b], (a..b), ]a..b[ as values; for … in …
// return (lists, ranges, integer or date ranges a..b ascending or
// descending, several iterators, `partial`); some/every … satisfies;
// function definitions (closures, recursion through a context entry,
// typed parameters: an argument that is not an instance of its type is
// a runtime error) and calls positional or with named
// arguments, of built-ins, FEEL functions and Functions from the Scope;
// // and /* */ comments.
//
// Names may contain spaces. The lexer matches the names of
// Options.Names (longest first; they may also contain keywords and
// - + * / ' .), and the parser joins adjacent words into one name: a
// built-in function name followed by "(" first, then a name bound by an
// enclosing context, function or iteration, else all words up to the
// next keyword. A call of a name that is neither built in nor known is
// a compile error (with Options.Lenient, a runtime error) — list the
// names of Functions the Scope provides (DMN business knowledge models)
// in Options.Names.
//
// Built-in functions (DMN 1.5 §10.3.4), all callable with named
// arguments: conversion — date, date and time, time, number, string,
// duration, years and months duration, range, context; boolean — not;
// string — substring, string length, upper case, lower case, substring
// before, substring after, replace, contains, starts with, ends with,
// matches, split, string join (regular expressions are XPath's: class
// subtraction, \p{IsBlock}, \i \c, back-references; flags s m i x
// q); list — list contains, count, min, max,
// sum, mean, all, any, sublist, append, concatenate, insert before,
// remove, list replace, reverse, index of, union, distinct values,
// flatten, product, median, stddev, mode, sort; numeric — decimal,
// floor, ceiling, round up, round down, round half up, round half down,
// abs, modulo, sqrt, log, exp, odd, even; range — before, after, meets,
// met by, overlaps, overlaps before, overlaps after, finishes, finished
// by, includes, during, starts, started by, coincides; temporal — day of
// year, day of week, month of year, week of year, now, today (the clock
// is the Scope's when it implements Clock, else Options.Now, else
// time.Now); context — get value, get entries, context put,
// context merge; is.
//
// Numbers may have an exponent (1.2e3, 5E-2). Names may use any letter
// of FEEL's grammar, emoji included ({🐎: "bar"}); context keys may hold
// the other name characters ({foo+bar: 1}). A unary comparison in
// parentheses is a range value: (< 10), (>= x), (= 5), (!= 5); it is not
// the same range as the literal (null..10), whose null endpoint compares
// with nothing. A built-in's name without a call is the function as a
// value (bkm(abs), list replace(xs, 2, null)). Built-in arguments follow DMN's
// singleton-list conversions: upper case(["a"]) is "A", median(4) is 4.
// Times and dates and times compare to the second. `instance of` accepts
// the names Options.Types resolves (DMN item definitions).
//
// Not supported: `is defined`, external functions (`function(…)
// external`, a runtime error).
//
// # Structure
//
// lexer.go splits the source into tokens; parser.go builds the AST of
// ast.go; eval.go walks it; function.go holds function values, calls,
// iteration and instance of; value.go the value model, equality, order
// and string(); temporal.go and temporal_ops.go the temporal types;
// unary.go the unary tests; builtins*.go the library by topic (each
// built-in declares its parameters' types, checked before it runs);
// regex.go translates XPath regular expressions to RE2, regex_vm.go runs
// them on a Pike VM that pays for its work, regex_bt.go matches those
// with back-references; budget.go holds the limits.
//
// # Limits
//
// Compile rejects sources longer than MaxSourceLen bytes and nesting
// deeper than MaxDepth. One evaluation may take at most DefaultMaxSteps
// steps (about a million), charged by the work done: loop iterations,
// filter elements, function calls, every list element a built-in touches,
// every value = compares (nested lists and contexts element by element),
// n·log n for a sort, strings by their length, the instructions of the
// regular-expression matcher, the values of the result. It nests user
// function calls 256 deep and refuses to build strings longer than 1 MiB
// and patterns that compile to more than 32,768 instructions. A Scope
// that implements Limited sets other limits: a step budget, a wall-clock
// deadline (a safety net; the steps are the deterministic bound) and a
// cancellation channel. Exceeding a limit is an Eval error wrapping
// ErrBudget — never a value a condition could branch on. No input makes
// Compile or Eval panic.
//
// This package imports nothing else from gobpm. Zones of @"…@Europe/Paris"
// come from the system's zoneinfo or the embedded time/tzdata.
package feel
