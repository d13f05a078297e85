package dmn

import (
	"fmt"
	"strings"
)

// Rule is a stable, kebab-case code naming the rule a document breaks. The API
// returns it verbatim in deployment errors, so existing values never change.
type Rule = string

// The rule codes a Problem can carry.
const (
	// RuleMalformed: the bytes are not well-formed XML, or their declared
	// encoding is wrong or unsupported.
	RuleMalformed Rule = "malformed-xml"
	// RuleDoctype: the document contains a <!DOCTYPE> (refused: no entity expansion).
	RuleDoctype Rule = "doctype-forbidden"
	// RuleTooLarge: the document exceeds MaxDocumentSize bytes.
	RuleTooLarge Rule = "document-too-large"
	// RuleTooDeep: elements nest deeper than MaxDepth.
	RuleTooDeep Rule = "document-too-deep"
	// RuleNotDMN: the root element is not a DMN 1.1–1.5 <definitions>.
	RuleNotDMN Rule = "not-dmn"
	// RuleUnsupported: an element or attribute value the engine cannot
	// evaluate (a boxed expression kind, a non-FEEL function kind, an
	// expression language other than FEEL, a decision service, an import).
	RuleUnsupported Rule = "unsupported-element"
	// RuleMissingID: a decision, input data, business knowledge model or
	// decision table rule has no id.
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
	// decision logic.
	RuleMissingLogic Rule = "missing-logic"
	// RuleInvalidExpression: a FEEL expression or unary test is missing or
	// does not compile.
	RuleInvalidExpression Rule = "invalid-expression"
	// RuleInvalidTable: a decision table is malformed: a rule with the
	// wrong number of entries, an unknown hit policy or aggregation, an
	// aggregation on a policy other than COLLECT or on several outputs,
	// several outputs without names, PRIORITY or OUTPUT ORDER without
	// output values.
	RuleInvalidTable Rule = "invalid-decision-table"
	// RuleInvalidAttribute: an attribute value is malformed (e.g. an
	// isCollection that is not a boolean).
	RuleInvalidAttribute Rule = "invalid-attribute"
)

// Problem is one rule a document breaks.
type Problem struct {
	// Element is the id of the offending decision, input data or business
	// knowledge model (problems inside its decision logic name it too; the
	// detail says which input, rule or entry), the name of an item
	// definition, or the tag, name and line of an element without an id
	// ("decision Fee (line 12)"). It is empty for problems with the
	// document as a whole (RuleMalformed, RuleDoctype, RuleTooLarge,
	// RuleTooDeep, RuleNotDMN).
	Element string
	// Rule is one of the Rule constants.
	Rule Rule
	// Detail is a human explanation.
	Detail string
}

// String renders the problem as "element: rule: detail".
func (p Problem) String() string {
	if p.Element == "" {
		return p.Rule + ": " + p.Detail
	}
	return p.Element + ": " + p.Rule + ": " + p.Detail
}

// ValidationError is returned by Parse for any problem with a document. It
// holds every problem found, in document order as far as practical.
type ValidationError struct {
	Problems []Problem
}

// maxSummarised bounds how many problems Error spells out.
const maxSummarised = 5

// Error summarises the problems: the count and the first few.
func (e *ValidationError) Error() string {
	var b strings.Builder
	n := len(e.Problems)
	if n == 1 {
		b.WriteString("dmn: invalid document: ")
	} else {
		fmt.Fprintf(&b, "dmn: invalid document (%d problems): ", n)
	}
	for i, p := range e.Problems {
		if i == maxSummarised {
			fmt.Fprintf(&b, "; and %d more", n-maxSummarised)
			break
		}
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(p.String())
	}
	return b.String()
}

// Has reports whether one of the problems carries rule for element
// (element "" matches any element).
func (e *ValidationError) Has(element string, rule Rule) bool {
	for _, p := range e.Problems {
		if p.Rule == rule && (element == "" || p.Element == element) {
			return true
		}
	}
	return false
}

// problems collects Problems while a document is read.
type problems []Problem

func (ps *problems) add(element string, rule Rule, format string, args ...any) {
	*ps = append(*ps, Problem{Element: element, Rule: rule, Detail: fmt.Sprintf(format, args...)})
}

func (ps problems) err() error {
	if len(ps) == 0 {
		return nil
	}
	return &ValidationError{Problems: ps}
}
