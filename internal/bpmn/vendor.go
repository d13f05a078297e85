package bpmn

import (
	"slices"
	"strings"

	"github.com/beevik/etree"
)

// Namespaces of the Activiti and Flowable extensions. gobpm reads none of
// their settings, so every attribute and extension element in them is
// refused except the few in flowableHarmless.
const (
	namespaceActiviti = "http://activiti.org/bpmn"
	namespaceFlowable = "http://flowable.org/bpmn"
)

// hintGobpm points a refused vendor setting to gobpm's own attributes.
const hintGobpm = "gobpm does not read it; remove it or use the gobpm: equivalent (README, Model extensions)"

// camundaHarmless are Camunda 7 attributes accepted anywhere without
// effect: transaction boundaries and job exclusivity (gobpm decides them
// itself: a step runs each track on until it waits, and an instance's
// steps are applied by its single writer), the priorities of Camunda's
// job executor and external task fetching (they order work, never change
// what a process does; gobpm hands out jobs oldest first), forms (gobpm
// has no form service), and metadata for Camunda's modeler and tasklist.
// (historyTimeToLive is read on a process, see retention.go.)
var camundaHarmless = map[string]bool{
	"async": true, "asyncBefore": true, "asyncAfter": true, "exclusive": true,
	"jobPriority": true, "taskPriority": true,
	"formKey": true, "formRef": true, "formRefBinding": true, "formRefVersion": true,
	"versionTag": true, "isStartableInTasklist": true,
	"diagramRelationId": true, "modelerTemplate": true, "modelerTemplateVersion": true,
}

var (
	camundaJob      = []string{"class", "delegateExpression", "expression", "type", "topic"}
	camundaUserTask = []string{"assignee", "candidateUsers", "candidateGroups", "dueDate"}
	camundaDecision = []string{"decisionRef", "resultVariable", "mapDecisionResult", "decisionRefBinding",
		"decisionRefVersion", "decisionRefVersionTag", "decisionRefTenantId",
		"class", "delegateExpression", "expression", "type", "topic"}
	camundaCall = []string{"calledElementBinding", "calledElementVersion", "calledElementTenantId",
		"calledElementVersionTag", "variableMappingClass", "variableMappingDelegateExpression",
		"caseRef", "caseBinding", "caseVersion", "caseTenantId"}
)

// camundaRead lists, per BPMN element, the Camunda 7 attributes the parser
// reads there (to use or to refuse with its own problem).
var camundaRead = map[string][]string{
	"process":                          {"historyTimeToLive"},
	"serviceTask":                      camundaJob,
	"sendTask":                         camundaJob,
	"intermediateThrowEvent":           camundaJob,
	"endEvent":                         camundaJob,
	"messageEventDefinition":           camundaJob,
	"userTask":                         camundaUserTask,
	"globalUserTask":                   camundaUserTask,
	"scriptTask":                       {"resultVariable"},
	"globalScriptTask":                 {"resultVariable"},
	"businessRuleTask":                 camundaDecision,
	"globalBusinessRuleTask":           camundaDecision,
	"callActivity":                     camundaCall,
	"multiInstanceLoopCharacteristics": {"collection", "elementVariable"},
	"conditionalEventDefinition":       conditionalVendorAttrs,
}

// camundaRefusedAttrs are Camunda 7 attributes with behaviour gobpm does
// not have, with what to do instead.
var camundaRefusedAttrs = map[string]string{
	"priority":               "user task priorities are not supported",
	"followUpDate":           "follow-up dates are not supported; gobpm:dueDate sets a due date",
	"candidateStarterGroups": "restricting who may start a process is not supported",
	"candidateStarterUsers":  "restricting who may start a process is not supported",
	"initiator":              "the starting user is not stored in a variable; pass it as a start variable",
	"errorCodeVariable":      "the caught error code is not stored in a variable",
	"errorMessageVariable":   "the caught error message is not stored in a variable",
	"escalationCodeVariable": "the caught escalation code is not stored in a variable",
	"resource":               "external script resources are not supported; put the FEEL script in <script>",
	"formHandlerClass":       "Java form handlers are not supported",
	"resultVariable":         "a result variable is only read on scriptTask and businessRuleTask",
}

// zeebeRead are the Camunda 8 extension elements the parser reads (its
// refused ones are in refusedExtensions; zeebe:taskHeaders is read by job
// and checked by checkHeaders); zeebeHarmless are accepted without effect:
// forms, the Camunda user task marker, custom properties (except an
// inbound connector's, see vendorExtensions) and version tags.
var (
	zeebeRead = map[string]bool{
		"taskDefinition": true, "assignmentDefinition": true, "taskSchedule": true, "subscription": true,
		"calledElement": true, "calledDecision": true, "adHoc": true, "loopCharacteristics": true,
		"script": true,
	}
	zeebeHarmless = map[string]bool{
		"formDefinition": true, "userTaskForm": true, "userTask": true, "properties": true, "versionTag": true,
	}
	// zeebeHarmlessAttrs are zeebe attributes on BPMN elements (element
	// templates of the modeler) accepted without effect.
	zeebeHarmlessAttrs = map[string]bool{
		"modelerTemplate": true, "modelerTemplateVersion": true, "modelerTemplateIcon": true,
	}
	zeebeRefused = map[string]string{
		"priorityDefinition": "user task priorities are not supported",
		"conditionalFilter":  "narrowing when a condition is evaluated is not supported; gobpm evaluates it after every change of variables",
		"linkedResources":    "linked resources for job workers are not supported",
	}
)

// camundaExtHarmless are Camunda 7 extension elements accepted without
// effect (forms and metadata for a UI; gobpm has no form service).
var camundaExtHarmless = map[string]bool{"properties": true, "formData": true, "formProperty": true}

// camundaConnectorOn are the elements where job or businessRuleTask
// refuses camunda:connector with its own problem.
var camundaConnectorOn = map[string]bool{
	"serviceTask": true, "sendTask": true, "businessRuleTask": true, "globalBusinessRuleTask": true,
	"intermediateThrowEvent": true, "endEvent": true, "messageEventDefinition": true,
}

// flowableHarmless are Activiti/Flowable attributes accepted without effect
// (the same transaction and form settings as camundaHarmless).
var flowableHarmless = map[string]bool{
	"async": true, "asyncLeave": true, "exclusive": true, "asyncLeaveExclusive": true, "formKey": true,
}

// vendorAttrs reports Camunda 7, Camunda 8 and Activiti/Flowable attributes
// on the BPMN element e that gobpm neither reads nor knows to be without
// effect: accepting them would drop their behaviour silently (docs/architecture.md#deployment).
func (p *parser) vendorAttrs(e *etree.Element) {
	// An event definition is named by its event, as its other problems are.
	named := e
	if par := e.Parent(); strings.HasSuffix(e.Tag, "EventDefinition") && par != nil && isBPMN(par) && par.Tag != "definitions" {
		named = par
	}
	for i := range e.Attr {
		a := &e.Attr[i]
		if a.Space == "" || a.Space == "xmlns" {
			continue
		}
		switch a.NamespaceURI() {
		case NamespaceCamunda:
			if camundaHarmless[a.Key] || slices.Contains(camundaRead[e.Tag], a.Key) {
				continue
			}
			hint, ok := camundaRefusedAttrs[a.Key]
			if !ok {
				hint = hintGobpm
			}
			p.problems.add(p.label(named), RuleUnsupported, "camunda:%s on %s is not supported: %s", a.Key, e.Tag, hint)
		case NamespaceZeebe:
			if !zeebeHarmlessAttrs[a.Key] {
				p.problems.add(p.label(named), RuleUnsupported, "zeebe:%s on %s is not supported: %s", a.Key, e.Tag, hintGobpm)
			}
		case namespaceActiviti, namespaceFlowable:
			if !flowableHarmless[a.Key] {
				p.problems.add(p.label(named), RuleUnsupported, "%s:%s on %s is not supported: Activiti/Flowable extensions are not read; use the gobpm: equivalent (README, Model extensions)", flowablePrefix(a.NamespaceURI()), a.Key, e.Tag)
			}
		}
	}
}

// otherVendorExtension reports the vendor extension element c, a child of
// the <extensionElements> of owner, unless gobpm reads it or knows it to be
// without effect. refusedExtensions are reported by vendorExtensions.
func (p *parser) otherVendorExtension(owner, c *etree.Element) {
	label := p.label(owner)
	switch c.NamespaceURI() {
	case NamespaceZeebe:
		switch {
		case zeebeRead[c.Tag]:
			if c.Tag == "taskSchedule" && c.SelectAttr("followUpDate") != nil {
				p.problems.add(label, RuleUnsupported, "zeebe:taskSchedule followUpDate on %s is not supported: follow-up dates are not supported; dueDate sets a due date", owner.Tag)
			}
			if c.Tag == "script" && (!isBPMN(owner) || owner.Tag != "scriptTask") {
				p.problems.add(label, RuleUnsupported, "zeebe:script on %s is not supported: it belongs on a scriptTask", owner.Tag)
			}
		case c.Tag == "properties":
			p.camundaWebhook(owner, c)
		case zeebeHarmless[c.Tag]:
		default:
			hint, ok := zeebeRefused[c.Tag]
			if !ok {
				hint = hintGobpm
			}
			p.problems.add(label, RuleUnsupported, "zeebe:%s on %s is not supported: %s", c.Tag, owner.Tag, hint)
		}
	case NamespaceCamunda:
		switch {
		case camundaExtHarmless[c.Tag]:
		case c.Tag == "connector" && camundaConnectorOn[owner.Tag]:
		case c.Tag == "potentialStarter":
			p.problems.add(label, RuleUnsupported, "camunda:potentialStarter on %s is not supported: restricting who may start a process is not supported", owner.Tag)
		default:
			p.problems.add(label, RuleUnsupported, "camunda:%s on %s is not supported: %s", c.Tag, owner.Tag, hintGobpm)
		}
	case namespaceActiviti, namespaceFlowable:
		p.problems.add(label, RuleUnsupported, "%s:%s on %s is not supported: Activiti/Flowable extensions are not read; use the gobpm: equivalent (README, Model extensions)", flowablePrefix(c.NamespaceURI()), c.Tag, owner.Tag)
	}
}

// flowablePrefix is the conventional prefix of an Activiti or Flowable
// namespace, whatever prefix the document binds it to.
func flowablePrefix(ns string) string {
	if ns == namespaceActiviti {
		return "activiti"
	}
	return "flowable"
}
