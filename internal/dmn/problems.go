package dmn

import (
	"fmt"

	"github.com/gobpm/gobpm/internal/xmldoc"
)

// Rule is a stable, kebab-case code naming the rule a document breaks. The API
// returns it verbatim in deployment errors, so existing values never change.
type Rule = string

// The rule codes a Problem can carry.
const (
	// RuleMalformed: the bytes are not well-formed XML, or their declared
	// encoding is wrong or unsupported.
	RuleMalformed Rule = xmldoc.RuleMalformed
	// RuleDoctype: the document contains a <!DOCTYPE> (refused: no entity expansion).
	RuleDoctype Rule = xmldoc.RuleDoctype
	// RuleTooLarge: the document exceeds MaxDocumentSize bytes.
	RuleTooLarge Rule = xmldoc.RuleTooLarge
	// RuleTooDeep: elements nest deeper than MaxDepth.
	RuleTooDeep Rule = xmldoc.RuleTooDeep
	// RuleNotDMN: the root element is not a DMN 1.1–1.5 <definitions>.
	RuleNotDMN Rule = "not-dmn"
	// RuleUnsupported: an element or attribute value the engine cannot
	// evaluate (a non-FEEL function kind such as Java, an expression
	// language other than FEEL, an import of a non-DMN model): a warning,
	// the element is an error when evaluated. Also Camunda's cellInput in
	// an input entry, which refuses the document.
	RuleUnsupported Rule = "unsupported-element"
	// RuleMissingID: a decision, input data, business knowledge model or
	// decision service has no id (a warning: it is evaluated by name).
	RuleMissingID Rule = "missing-id"
	// RuleDuplicateID: two DMN elements share an id.
	RuleDuplicateID Rule = "duplicate-id"
	// RuleMissingName: a decision, input data, business knowledge model,
	// item definition, formal parameter or context entry has no name.
	RuleMissingName Rule = "missing-name"
	// RuleDuplicateName: two elements of the decision requirements graph
	// (decisions, input data, business knowledge models) or two item
	// definitions share a name, so FEEL could not tell them apart.
	RuleDuplicateName Rule = "duplicate-name"
	// RuleMissingReference: an href or typeRef names nothing suitable.
	RuleMissingReference Rule = "missing-reference"
	// RuleCycle: the requirement graph (decisions and business knowledge
	// models) or the item definitions contain a cycle.
	RuleCycle Rule = "requirement-cycle"
	// RuleMissingLogic: a decision or business knowledge model has no
	// decision logic, a decision service no output decision (warnings).
	RuleMissingLogic Rule = "missing-logic"
	// RuleInvalidExpression: a FEEL expression or unary test is missing,
	// does not compile, or calls what does not exist (warnings).
	RuleInvalidExpression Rule = "invalid-expression"
	// RuleInvalidTable: a decision table is malformed: a rule with the
	// wrong number of entries, an unknown hit policy or aggregation, an
	// aggregation on a policy other than COLLECT or on several outputs,
	// several outputs without names, PRIORITY or OUTPUT ORDER without
	// output values (warnings: the table is an error when evaluated).
	RuleInvalidTable Rule = "invalid-decision-table"
	// RuleInvalidAttribute: an attribute value is malformed (e.g. an
	// isCollection that is not a boolean).
	RuleInvalidAttribute Rule = "invalid-attribute"
)

// Problem is one rule a document breaks (see package xmldoc).
type Problem = xmldoc.Problem

// ValidationError is returned by Parse for any problem with a document. It
// holds every problem found, in document order as far as practical.
type ValidationError = xmldoc.ValidationError

// problems collects Problems while a document is read.
type problems []Problem

func (ps *problems) add(element string, rule Rule, format string, args ...any) {
	*ps = append(*ps, Problem{Element: element, Rule: rule, Detail: fmt.Sprintf(format, args...)})
}

func (ps problems) err() error {
	if len(ps) == 0 {
		return nil
	}
	return &ValidationError{Kind: "dmn", Problems: ps}
}
