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
// Parse takes the document bytes and returns the validated, immutable
// Definitions or a *ValidationError listing every Problem found — element
// id, a stable Rule code and a human detail — so a deployment reports all
// of them at once:
//
//	defs, err := dmn.Parse(data)
//	var verr *dmn.ValidationError
//	if errors.As(err, &verr) {
//		for _, p := range verr.Problems {
//			fmt.Println(p.Element, p.Rule, p.Detail)
//		}
//	}
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
// item components, parameters, context entries) so names with spaces
// resolve; a syntax error names the decision or business knowledge model
// that holds it. Requirements (href="#id") must resolve, typeRefs must
// name a FEEL type or an item definition, and cycles among decisions,
// among business knowledge models or among item definitions are refused.
//
// # What is supported
//
//   - definitions, itemDefinition (typeRef, allowedValues, DMN 1.5
//     typeConstraint, itemComponent structures, isCollection),
//     inputData, decision, businessKnowledgeModel with a FEEL
//     encapsulatedLogic, informationRequirement (requiredDecision,
//     requiredInput), knowledgeRequirement.
//   - Boxed expressions: literalExpression, decisionTable, context (with a
//     final result entry or not), invocation with bindings, list, relation
//     and functionDefinition of kind FEEL.
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
// Refused with RuleUnsupported: decision services, imports, the DMN 1.4/1.5
// conditional, filter, for, every and some boxed expressions, function
// kinds other than FEEL and expression languages other than FEEL.
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
// recorded in Result.Errors, and evaluation goes on. In particular a
// UNIQUE table with several matching rules, or an ANY table whose matching
// rules disagree, is null with an error — never a silent pick. Values are
// coerced to their typeRef at every declared boundary (input data,
// decision results, parameters, context entries, table inputs and
// outputs): singleton lists convert to and from their element, and a value
// that does not conform (wrong type, not among allowedValues) is null with
// an error. Business knowledge models are FEEL functions (feel.Function)
// in the scope of the decisions that require them.
//
// Definitions.EvaluateAt is Evaluate with FEEL's clock fixed: now() and
// today() read the given time (Evaluate uses time.Now), so the runtime
// evaluates business rule tasks at the step's time, deterministically.
//
// Result.Value and Result.Decisions are JSON-shaped (feel.ToJSON:
// temporal values as their FEEL string form; functions are null, and a
// range result is null with an error); Result.Matched lists
// the rules that produced each table's result (for FIRST the first match,
// for PRIORITY the winner, for the others every matching rule, in result
// order); Result.Entries has the requested decision's rows of named
// outputs, the shape business rule tasks map from.
//
// # Files
//
// decode.go checks limits and charsets; parse.go reads the document;
// types.go resolves typeRefs and coerces values; table.go compiles and
// evaluates decision tables; eval.go evaluates the graph and the other
// boxed expressions; problems.go holds the validation error types.
package dmn
