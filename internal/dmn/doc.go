// Package dmn reads DMN 1.1–1.5 decision models and evaluates their
// decisions: decision tables with every hit policy, literal expressions and
// the other boxed expressions, business knowledge models, and the decision
// requirements graph that ties them together. FEEL comes from
// internal/feel.
//
// The package is pure: it does no I/O, reads no files and keeps no global
// mutable state beyond lazily compiled helper expressions. It imports the
// standard library, etree, x/text and internal/feel, never runtime, store,
// api or anything with I/O. The TCK harness lives in the tck sub-package.
//
// # Parsing
//
// Parse takes the document bytes and returns the immutable Definitions,
// or a *ValidationError listing every Problem found — element id, a
// stable Rule code and a human detail — so a deployment reports all of
// them at once:
//
//	defs, err := dmn.Parse(data)
//	var verr *dmn.ValidationError
//	if errors.As(err, &verr) {
//		for _, p := range verr.Problems {
//			fmt.Println(p.Element, p.Rule, p.Detail)
//		}
//	}
//	for _, w := range defs.Warnings { … } // loaded, but these elements fail
//
// Only problems with the document as a whole refuse it: malformed XML, a
// limit exceeded, a root that is not DMN, two elements with one id or one
// name, an href that resolves to nothing, a cycle among decisions,
// business knowledge models, item definitions or imports. A problem
// confined to one element is a warning (Definitions.Warnings, same
// Problem shape): an expression that does not compile or calls what does
// not exist (a wrong argument count, an unknown function or parameter
// name, @"foo", a duplicate context key), a malformed decision table, a
// decision without logic or without an id, a function of kind Java or
// PMML, an unknown typeRef (read as untyped). The model loads; that
// element evaluates to null with the problem in Result.Errors, and every
// other decision evaluates, as DMN wants.
//
// ParseAll reads the documents of one deployment together: an <import>
// of a DMN model names another document of the set by its namespace, and
// the imported model's decisions, input data, business knowledge models,
// decision services and item definitions are then visible under the
// import's name ("myimport.Say Hello(p)", typeRef "myimport.tPerson",
// requirements by "namespace#id"). Imports may nest; a cycle refuses the
// documents.
//
// Elements are matched by local name within the DMN 1.1, 1.2, 1.3, 1.4 and
// 1.5 model namespaces (http or https), whatever their prefix; DMNDI and
// vendor extensions are skipped. As with BPMN, a document larger than
// MaxDocumentSize, nesting deeper than MaxDepth or containing a <!DOCTYPE>
// is refused before it is parsed, and UTF-8, UTF-16, ISO-8859-1,
// ISO-8859-15 and windows-1252 are decoded.
//
// Every FEEL expression and unary test is compiled at parse time with the
// names of the model (decisions, input data, business knowledge models,
// decision services, item components, parameters, context entries,
// iterator variables, imported names) so names with spaces resolve, with
// the model's item definitions as the types of `instance of`, and
// leniently (feel.Options.Lenient); a problem names the decision or
// business knowledge model that holds it.
//
// # What is supported
//
//   - definitions, import (of DMN models, with ParseAll), itemDefinition
//     (typeRef, allowedValues, DMN 1.5 typeConstraint, itemComponent
//     structures, isCollection, functionItem with its outputTypeRef),
//     inputData, decision, businessKnowledgeModel with a FEEL
//     encapsulatedLogic, decisionService (output, encapsulated and input
//     decisions, input data), informationRequirement (requiredDecision,
//     requiredInput), knowledgeRequirement (of business knowledge models
//     and decision services).
//   - Boxed expressions: literalExpression, decisionTable, context (with a
//     final result entry or not), invocation with bindings, list,
//     relation, functionDefinition of kind FEEL, and DMN 1.5's
//     conditional, filter, for, some and every; a typeRef on any of them
//     coerces its value.
//   - Decision tables: input expressions with typeRef and inputValues,
//     input entries as FEEL unary tests ("-" and an empty entry match
//     anything), output entries, outputValues (priority order), default
//     output entries, several outputs (a context result), hit policies
//     UNIQUE, ANY, PRIORITY, FIRST, RULE ORDER, OUTPUT ORDER and COLLECT
//     with SUM, MIN, MAX or COUNT.
//
// Camunda 7's camunda:inputVariable names the input value inside a
// column's input entries ("cellInput" when absent); gobpm binds no such
// name — a unary test reads the input as "?" — so an input entry that uses
// it (as an identifier outside strings, and not a name of the model) is
// refused rather than silently never matching. Other vendor attributes
// (camunda:historyTimeToLive, camunda:versionTag) have no effect.
//
// Warned with RuleUnsupported (the element is an error when evaluated):
// function kinds other than FEEL — Java and PMML external functions, which
// only a Java engine can run — expression languages other than FEEL,
// imports of other than DMN models.
//
// # Evaluating
//
// Definitions.Evaluate evaluates one decision by id, after evaluating once
// each decision it requires, in dependency order:
//
//	res, err := defs.Evaluate("approval", map[string]any{"Age": 42, "Risk": "Low"})
//	if err != nil {
//		return err // only ErrUnknownDecision
//	}
//	if err := res.Err(); err != nil {
//		return err // e.g. UNIQUE violated; res.Value is nil
//	}
//	fmt.Println(res.Value, res.Matched)
//
// Values follow DMN: a failing expression is null and the failure is
// recorded in Result.Errors, and evaluation goes on. The FEEL runtime
// errors of every expression (feel.Program.EvalErrors: 1 + "a", a
// missing context entry, a built-in given null) are recorded there too;
// a decision table's input entries match quietly (an input that cannot
// be compared with a rule's test does not match that rule). In particular a
// UNIQUE table with several matching rules, or an ANY table whose matching
// rules disagree, is null with an error — never a silent pick. Values are
// coerced to their typeRef at every declared boundary (input data,
// decision and decision service results, parameters, context entries,
// table inputs and outputs, any boxed expression with a typeRef):
// singleton lists convert to and from their element, a context conforms
// to a structure when it has every component (more entries are allowed —
// input data from JSON may leave components out), and a value that does
// not conform (wrong type, not among allowedValues) is null with an
// error. Business knowledge models are FEEL functions (feel.Function)
// in the scope of the decisions that require them.
//
// Definitions.EvaluateAt is Evaluate with FEEL's clock fixed: now() and
// today() read the given time (Evaluate uses time.Now), so the runtime
// evaluates business rule tasks at the step's time, deterministically.
// EvaluateRequest takes a Request: a decision by id or name, or a
// decision service (Request.Service) evaluated as the function of its
// parameters that DMN makes of it, inputs of imported models by
// namespace (Request.Imported), and the clock.
//
// Decision services are functions of their input data and input
// decisions, in that order: an input decision's value is the argument,
// never evaluated; the output decisions are evaluated afresh inside the
// service, and the service's value is the only output's, or a context of
// all. A decision or business knowledge model that requires a service
// (knowledgeRequirement) calls it like a business knowledge model; an
// argument that does not conform to its parameter's type is an error and
// the service is not invoked.
//
// Result.Native is the decision's FEEL-native value (dates as feel.Date,
// …) for callers that compare by type. Result.Value and Result.Decisions
// are JSON-shaped (feel.ToJSON:
// temporal values as their FEEL string form; functions are null, and a
// range result is null with an error); Result.Matched lists
// the rules that produced each table's result (for FIRST the first match,
// for PRIORITY the winner, for the others every matching rule, in result
// order); Result.Entries has the requested decision's rows of named
// outputs, the shape business rule tasks map from.
//
// # Files
//
// decode.go checks limits and charsets; parse.go reads the documents
// (imports, requirements, decision services); types.go resolves typeRefs
// and coerces values (DMN 1.5 §10.3.2.9 conformance); table.go compiles
// and evaluates decision tables; boxed.go the other boxed expressions;
// eval.go evaluates the graph and decision services; problems.go holds
// the validation error types.
package dmn
