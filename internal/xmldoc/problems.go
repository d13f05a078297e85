package xmldoc

import (
	"fmt"
	"strings"
)

// Problem is one rule a model document breaks.
type Problem struct {
	// Element is the id of the offending element, or its tag name and line
	// ("task (line 12)") when it has no id. It is empty for problems with
	// the document as a whole (RuleMalformed, RuleDoctype, RuleTooLarge,
	// RuleTooDeep).
	Element string
	// Rule is a stable kebab-case code of the broken rule.
	Rule string
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

// ValidationError is returned by a model parser for any problem with a
// document. It holds every problem found, in document order as far as
// practical.
type ValidationError struct {
	// Kind names the document kind in the message ("bpmn", "dmn").
	Kind     string
	Problems []Problem
}

// maxSummarised bounds how many problems Error spells out.
const maxSummarised = 5

// Error summarises the problems: the count and the first few.
func (e *ValidationError) Error() string {
	var b strings.Builder
	prefix := "invalid document"
	if e.Kind != "" {
		prefix = e.Kind + ": " + prefix
	}
	n := len(e.Problems)
	if n == 1 {
		b.WriteString(prefix + ": ")
	} else {
		fmt.Fprintf(&b, "%s (%d problems): ", prefix, n)
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
func (e *ValidationError) Has(element, rule string) bool {
	for _, p := range e.Problems {
		if p.Rule == rule && (element == "" || p.Element == element) {
			return true
		}
	}
	return false
}
