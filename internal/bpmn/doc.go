// Package bpmn reads BPMN 2.0 XML into a validated, immutable process graph.
//
// It owns the model types the engine executes (Definitions, Process, Graph,
// Node, Flow), the XML parser and every deployment-time check of DESIGN §2.4
// ("fail at deployment, not at runtime") and §5.2 (sub-process instantiation
// shapes). It is a leaf: it imports the standard library, etree, x/text and
// the expression seam internal/expr, and never runtime, store, api or any
// package with I/O.
//
// # Parsing
//
// Parse takes the document bytes and returns the model or a
// *ValidationError listing every Problem found — element id, a stable Rule
// code and a human detail — so a deployment reports all of them at once:
//
//	defs, err := bpmn.Parse(data)
//	var verr *bpmn.ValidationError
//	if errors.As(err, &verr) {
//		for _, p := range verr.Problems {
//			fmt.Println(p.Element, p.Rule, p.Detail)
//		}
//	}
//
// Elements are matched by namespace URI and local name, whatever their
// prefix. Before parsing, a document larger than MaxDocumentSize, nesting
// deeper than MaxDepth or containing a <!DOCTYPE> is refused (no entity is
// ever expanded). UTF-8, UTF-16, ISO-8859-1, ISO-8859-15 and windows-1252 are
// decoded.
//
// # What is supported
//
// None start events; None and terminate end events; task; scriptTask (a FEEL
// script with gobpm:resultVariable or camunda:resultVariable);
// exclusiveGateway and activities with a `default` flow; parallelGateway;
// embedded subProcess; sequence flows with FEEL conditions; dataObject and
// property declarations (Graph.DataNames). Lanes, text annotations,
// associations, groups, documentation, data references and data
// associations without mappings are descriptive and accepted. Diagram
// interchange and foreign-namespace elements and attributes are ignored.
// Every other BPMN element or event definition is a RuleUnsupported problem —
// never silently ignored — and so is any gobpm attribute the parser does not
// know (RuleUnknownExtension).
//
// # Instantiation shapes
//
// Every process and sub-process must start in exactly one way: a single
// None start event (Graph.Starts holds it), or no start event at all, in
// which case every activity and gateway without incoming flows is seeded.
// Several None starts, a None start next to flow-less activities or
// gateways, and a container with nothing to start are RuleStartShape
// problems. Sequence flows never cross a container boundary (RuleCrossingFlow).
package bpmn
