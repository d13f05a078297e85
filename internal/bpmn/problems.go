package bpmn

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
	// RuleNotBPMN: the root element is not a BPMN 2.0 <definitions>.
	RuleNotBPMN Rule = "not-bpmn"
	// RuleNoProcess: the definitions hold no <process>.
	RuleNoProcess Rule = "no-process"
	// RuleUnsupported: an element, event definition or attribute value the
	// engine cannot execute yet.
	RuleUnsupported Rule = "unsupported-element"
	// RuleUnknownExtension: an element or attribute in the gobpm namespace
	// that is misspelt or misplaced.
	RuleUnknownExtension Rule = "unknown-extension"
	// RuleMissingID: a process or flow node has no id. (A sequence flow
	// without one gets a synthesized id instead.)
	RuleMissingID Rule = "missing-id"
	// RuleDuplicateID: two BPMN elements share an id.
	RuleDuplicateID Rule = "duplicate-id"
	// RuleMissingReference: a reference (sourceRef, targetRef, default,
	// dataObjectRef) is empty or names nothing suitable.
	RuleMissingReference Rule = "missing-reference"
	// RuleCrossingFlow: a sequence flow connects nodes of a different
	// container than its own (it crosses a sub-process boundary).
	RuleCrossingFlow Rule = "crossing-flow"
	// RuleInvalidAttribute: an attribute value is malformed or not allowed
	// (e.g. startQuantity other than 1, isInterrupting="false" on an error
	// start event).
	RuleInvalidAttribute Rule = "invalid-attribute"
	// RuleInvalidExpression: an expression is empty, missing (a script
	// task without script, a conditional event without condition) or does
	// not compile.
	RuleInvalidExpression Rule = "invalid-expression"
	// RuleUnsupportedLanguage: an expression or script language other than FEEL.
	RuleUnsupportedLanguage Rule = "unsupported-language"
	// RuleStartShape: a process or sub-process has an instantiation shape
	// rejected by docs/scopes.md#instantiation (no start, several None starts, a None start
	// mixed with flow-less nodes, a triggered start in a plain
	// sub-process) or an event sub-process one rejected by §5.5 (not
	// exactly one start event, a start without trigger, flow-less nodes
	// next to it).
	RuleStartShape Rule = "start-shape"
	// RuleEventFlow: a start event has incoming or an end event has outgoing
	// sequence flows, an intermediate event has no incoming flow, or a
	// sequence flow enters or leaves an event sub-process.
	RuleEventFlow Rule = "event-flow"
	// RuleInvalidDefault: a default flow that is not an outgoing flow of its
	// node, carries a condition, or sits on a node that has no default.
	RuleInvalidDefault Rule = "invalid-default"
	// RuleConditionNotAllowed: a condition on a sequence flow leaving a
	// parallel gateway or an event.
	RuleConditionNotAllowed Rule = "condition-not-allowed"
	// RuleMissingAttribute: a required attribute is absent or empty (the
	// job type of a service task, the code of a thrown error).
	RuleMissingAttribute Rule = "missing-attribute"
	// RuleInvalidTimer: a timerEventDefinition without exactly one of
	// timeDate/timeDuration/timeCycle, with an empty or malformed literal,
	// or with a timeCycle where only one firing makes sense.
	RuleInvalidTimer Rule = "invalid-timer"
	// RuleInvalidBoundary: a boundary event attached to something other
	// than an activity of its own container, attached to an event
	// sub-process, or a non-interrupting error boundary event.
	RuleInvalidBoundary Rule = "invalid-boundary"
	// RuleInvalidEventGateway: an event-based gateway with fewer than two
	// outgoing flows, or a flow to something other than a timer, message
	// or signal intermediate catch event (conditional ones are not allowed)
	// or a receive task with a single incoming flow.
	RuleInvalidEventGateway Rule = "invalid-event-gateway"
	// RuleAdHocContent: an ad-hoc sub-process (docs/scopes.md#ad-hoc-sub-processes) holding a start
	// or end event, a gateway nothing leads to (its router starts only
	// activities), or no activity at all.
	RuleAdHocContent Rule = "adhoc-content"
	// RuleInvalidID: an id that is not an XML NCName (a letter or _
	// first, then letters, digits, -, _ and .): xsd:ID, which the BPMN
	// schema gives every id, requires one, and gobpm addresses processes
	// and elements by id (a process key in a URL).
	RuleInvalidID Rule = "invalid-id"
	// RuleTimerTooFrequent: a timeCycle whose period is shorter than the
	// minimum timer period (Limits.MinTimerPeriod, ParseWith).
	RuleTimerTooFrequent Rule = "timer-too-frequent"
	// RuleStepBudget: an element from which every run of synchronous
	// elements exceeds the activations one step may make before it waits
	// or ends (Limits.MaxActivations, ParseWith): a track reaching it
	// always stops in a step-budget incident. The value matches the
	// engine's incident kind.
	RuleStepBudget Rule = "step-budget-exceeded"
	// RuleInvalidLink: a link throw event without exactly one link catch
	// event of its name in its own process or sub-process level.
	RuleInvalidLink Rule = "invalid-link"
	// RuleInvalidCompensation: a compensation or cancel construct wired
	// wrongly: a compensation boundary event without exactly one
	// association to an isForCompensation activity of its container, a
	// handler with flows or without a boundary event, an activityRef
	// naming no activity of the throw's scope, a compensation event
	// sub-process at process level or next to a compensation boundary, a
	// cancel end event outside a transaction, a cancel boundary event on
	// anything but a transaction.
	RuleInvalidCompensation Rule = "invalid-compensation"
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
	return &ValidationError{Kind: "bpmn", Problems: ps}
}
