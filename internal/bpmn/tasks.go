package bpmn

import (
	"slices"
	"strconv"
	"strings"

	"github.com/beevik/etree"
)

// DefaultJobRetries is the retry budget of a job when gobpm:retries is absent.
const DefaultJobRetries = 3

// source is one place an attribute value may come from (gobpm, zeebe or
// camunda), named for problem details.
type source struct {
	what  string
	value string
}

// pick returns the first present source: callers list them in precedence
// order gobpm, zeebe, camunda. Models drawn for both Camunda 7 and 8 often
// carry different values for each engine (MIWG C.9.1), so lower-precedence
// sources are ignored rather than compared. ok is false when none is present.
func pick(srcs []source) (source, bool) {
	if len(srcs) == 0 {
		return source{}, false
	}
	return srcs[0], true
}

// camundaDelegates are Camunda 7 attributes that bind an activity to Java code.
var camundaDelegates = []string{"class", "delegateExpression", "expression"}

// job reads the job definition of a service task, send task or message
// throw event e. Camunda 7 attributes are read from camundaOn (the task
// itself, or the messageEventDefinition of a throw event) as well as e.
func (p *parser) job(e, camundaOn *etree.Element) *JobDef {
	label := p.label(e)
	holders := []*etree.Element{e}
	if camundaOn != nil && camundaOn != e {
		holders = append(holders, camundaOn)
	}
	var types, retries []source
	if v, ok := nsAttr(e, NamespaceGobpm, "type"); ok {
		types = append(types, source{"gobpm:type", v})
	}
	if v, ok := nsAttr(e, NamespaceGobpm, "retries"); ok {
		retries = append(retries, source{"gobpm:retries", v})
	}
	if td := extension(e, NamespaceZeebe, "taskDefinition"); td != nil {
		if a := td.SelectAttr("type"); a != nil {
			types = append(types, source{"zeebe:taskDefinition type", a.Value})
		}
		if a := td.SelectAttr("retries"); a != nil {
			retries = append(retries, source{"zeebe:taskDefinition retries", a.Value})
		}
	}
	// foreign is set when a Camunda implementation was refused: the missing
	// job type is then a consequence, not a second problem.
	foreign := false
	for _, h := range holders {
		for _, key := range camundaDelegates {
			if _, ok := nsAttr(h, NamespaceCamunda, key); ok {
				foreign = true
				p.problems.add(label, RuleUnsupported,
					"camunda:%s (a Java delegate) is not supported; use gobpm:type (or camunda:type=\"external\" with camunda:topic) for a job worker", key)
			}
		}
		if extension(h, NamespaceCamunda, "connector") != nil {
			foreign = true
			p.problems.add(label, RuleUnsupported, "camunda:connector is not supported; use gobpm:type for a job worker")
		}
		ct, hasType := nsAttr(h, NamespaceCamunda, "type")
		if hasType && strings.TrimSpace(ct) != "external" {
			foreign = true
			p.problems.add(label, RuleUnsupported, "camunda:type=%q is not supported (only \"external\")", ct)
		}
		if v, ok := nsAttr(h, NamespaceCamunda, "topic"); ok {
			types = append(types, source{"camunda:topic", v})
		}
	}

	j := &JobDef{Retries: DefaultJobRetries}
	if t, ok := pick(types); ok {
		j.Type = strings.TrimSpace(t.value)
		switch {
		case j.Type == "":
			p.problems.add(label, RuleMissingAttribute, "%s is empty", t.what)
		case isExpression(j.Type):
			// Evaluated when the job is created (engine): a failure or a
			// result that is not a non-empty string is an incident.
			if b := p.binding(label, t); b != nil {
				j.TypeExpr = b.Expr
			}
		default:
			p.connector(e, t.what, j.Type)
		}
	} else if !foreign {
		p.problems.add(label, RuleMissingAttribute,
			"%s %q needs a job type: gobpm:type (or zeebe:taskDefinition type, camunda:topic)", e.Tag, label)
	}
	cycle := p.retryCycle(e)
	r, ok := pick(retries)
	if ok && r.what == "zeebe:taskDefinition retries" && strings.TrimSpace(r.value) == "" {
		// The Camunda Modeler writes retries="" when the field is left
		// blank; Zeebe then takes its default, as gobpm does.
		ok = false
	}
	switch n, err := strconv.Atoi(strings.TrimSpace(r.value)); {
	case !ok && cycle != nil:
		j.Retries, j.RetryCycle = cycle.Attempts, cycle
	case !ok:
	case err != nil || n < 0:
		p.problems.add(label, RuleInvalidAttribute, "%s=%q: want an integer >= 0", r.what, r.value)
	default:
		j.Retries = n
	}
	j.Headers = p.jobHeaders(e, holders)
	p.jobOwners[e] = true
	return j
}

// connectorTypePrefix starts the job types of Camunda's own connectors
// (io.camunda:http-json:1, io.camunda:sendgrid:1, …), and
// connectorTemplatePrefix the modeler templates that configure them.
const (
	connectorTypePrefix     = "io.camunda:"
	connectorTemplatePrefix = "io.camunda.connectors."
)

// HTTPConnectorType is the job type of Camunda 8's REST connector, which
// gobpm's server runs itself (a built-in worker): of Camunda's connectors
// only it deploys. GobpmHTTPType is gobpm's own name for the same task.
const (
	HTTPConnectorType = "io.camunda:http-json:1"
	GobpmHTTPType     = "gobpm:http"
)

// connector refuses a task configured as one of Camunda 8's outbound
// connectors other than the REST connector (HTTPConnectorType): they run
// inside Camunda's connector runtime, which gobpm does not have, so the job
// would wait for a worker that never comes.
func (p *parser) connector(e *etree.Element, what, typ string) {
	if typ == HTTPConnectorType {
		return
	}
	tmpl, _ := nsAttr(e, NamespaceZeebe, "modelerTemplate")
	if strings.HasPrefix(typ, connectorTypePrefix) || strings.HasPrefix(strings.TrimSpace(tmpl), connectorTemplatePrefix) {
		p.problems.add(p.label(e), RuleUnsupported,
			"%s %q is a Camunda connector, which runs in Camunda's connector runtime; gobpm runs only the REST connector (%s): give the task a job type of your own (gobpm:type) and a worker that makes the call", what, typ, HTTPConnectorType)
	}
}

// jobHeaders reads the static custom headers of the job of e: Camunda 8's
// zeebe:taskHeaders (zeebe:header key value) on e, else Camunda 7's
// extension properties (camunda:properties, camunda:property name value)
// on e or the other holders, which Camunda 7 hands to external task
// workers. As in both engines, a later entry with the same key wins.
// Values are kept as written: neither engine evaluates them.
func (p *parser) jobHeaders(e *etree.Element, holders []*etree.Element) map[string]string {
	label := p.label(e)
	var headers map[string]string
	put := func(what, keyAttr, key, value string) {
		if strings.TrimSpace(key) == "" {
			p.problems.add(label, RuleMissingAttribute, "%s on %s has no %s", what, e.Tag, keyAttr)
			return
		}
		if headers == nil {
			headers = map[string]string{}
		}
		headers[key] = value
	}
	if th := extension(e, NamespaceZeebe, "taskHeaders"); th != nil {
		for _, h := range th.ChildElements() {
			if h.NamespaceURI() == NamespaceZeebe && h.Tag == "header" {
				put("zeebe:header", "key", h.SelectAttrValue("key", ""), h.SelectAttrValue("value", ""))
			}
		}
		return headers
	}
	for _, h := range holders {
		props := extension(h, NamespaceCamunda, "properties")
		if props == nil {
			continue
		}
		for _, c := range props.ChildElements() {
			if c.NamespaceURI() == NamespaceCamunda && c.Tag == "property" {
				put("camunda:property", "name", c.SelectAttrValue("name", ""), c.SelectAttrValue("value", ""))
			}
		}
	}
	return headers
}

// userTaskFields lists the user-task assignment fields with their gobpm,
// Camunda 7 and Zeebe (extension element, attribute) spellings.
var userTaskFields = []struct {
	attr      string
	zeebeElem string
	zeebeAttr string
	field     func(*UserTaskDef) **Binding
}{
	{"assignee", "assignmentDefinition", "assignee", func(u *UserTaskDef) **Binding { return &u.Assignee }},
	{"candidateUsers", "assignmentDefinition", "candidateUsers", func(u *UserTaskDef) **Binding { return &u.CandidateUsers }},
	{"candidateGroups", "assignmentDefinition", "candidateGroups", func(u *UserTaskDef) **Binding { return &u.CandidateGroups }},
	{"dueDate", "taskSchedule", "dueDate", func(u *UserTaskDef) **Binding { return &u.DueDate }},
}

// userTask reads the assignment of a user task from gobpm, Zeebe and
// Camunda 7 attributes, in that precedence. Blank values count as absent.
func (p *parser) userTask(e *etree.Element) *UserTaskDef {
	label := p.label(e)
	u := &UserTaskDef{}
	for _, f := range userTaskFields {
		var srcs []source
		if v, ok := nsAttr(e, NamespaceGobpm, f.attr); ok && strings.TrimSpace(v) != "" {
			srcs = append(srcs, source{"gobpm:" + f.attr, v})
		}
		if z := extension(e, NamespaceZeebe, f.zeebeElem); z != nil {
			if v := z.SelectAttrValue(f.zeebeAttr, ""); strings.TrimSpace(v) != "" {
				srcs = append(srcs, source{"zeebe:" + f.zeebeElem + " " + f.zeebeAttr, v})
			}
		}
		if v, ok := nsAttr(e, NamespaceCamunda, f.attr); ok && strings.TrimSpace(v) != "" {
			srcs = append(srcs, source{"camunda:" + f.attr, v})
		}
		s, ok := pick(srcs)
		if !ok {
			continue
		}
		*f.field(u) = p.binding(label, s)
	}
	return u
}

// binding turns an attribute value into a literal or a compiled expression.
func (p *parser) binding(label string, s source) *Binding {
	v := strings.TrimSpace(s.value)
	if !isExpression(v) {
		return &Binding{Literal: v}
	}
	x := p.compile(label, s.what, p.exprLang, v)
	if x == nil {
		return nil
	}
	return &Binding{Expr: x}
}

// receiveTask reads the message a receive task waits for. Without a
// messageRef it returns nil: the task waits until it is triggered by its
// wait id (Camunda 7's signal of the execution), which an instantiating
// receive task or one after an event-based gateway cannot be
// (checkReceiveTrigger).
func (p *parser) receiveTask(e *etree.Element) *EventDef {
	label := p.label(e)
	ev := &EventDef{Kind: TriggerMessage}
	ref := strings.TrimSpace(attr(e, "messageRef"))
	if ref == "" {
		return nil
	}
	if m, ok := lookup(p.messages, ref); ok {
		ev.MessageName, ev.CorrelationKey = m.name, m.key
	} else {
		p.problems.add(label, RuleMissingReference, "messageRef %q names no message", ref)
	}
	return ev
}

// sendTaskMessage reads the optional messageRef of a send task: the message
// it sends, recorded in Node.Event (a message trigger) next to its job so
// the runtime can tell workers which message to send. Without a messageRef
// it returns nil.
func (p *parser) sendTaskMessage(e *etree.Element) *EventDef {
	ref := strings.TrimSpace(attr(e, "messageRef"))
	if ref == "" {
		return nil
	}
	m, ok := lookup(p.messages, ref)
	if !ok {
		p.problems.add(p.label(e), RuleMissingReference, "messageRef %q names no message", ref)
		return nil
	}
	return &EventDef{Kind: TriggerMessage, MessageName: m.name, CorrelationKey: m.key}
}

// decisionMaps are the values of gobpm:mapDecisionResult (and Camunda 7's
// camunda:mapDecisionResult); the engine shapes a decision's result rows
// accordingly. defaultDecisionMap applies when none is given.
var decisionMaps = []string{"singleEntry", "singleResult", "collectEntries", "resultList"}

const (
	defaultDecisionMap = "resultList"
	// zeebeDecisionMap is the mapping of a decision called through
	// zeebe:calledDecision: Zeebe stores the decision's output as is, which
	// for the common table (one output, at most one hit) is that output's
	// value — singleEntry. gobpm:mapDecisionResult overrides it.
	zeebeDecisionMap = "singleEntry"
)

// engineDecisionHint says why a business rule task cannot hand its rules to
// code or a worker.
const engineDecisionHint = "gobpm evaluates DMN decisions in the engine: deploy the decision and name it with gobpm:decisionRef (or camunda:decisionRef, zeebe:calledDecision decisionId)"

// camundaDecisionRefused are Camunda 7 attributes of a business rule task
// whose behaviour gobpm does not have.
var camundaDecisionRefused = []struct{ key, hint string }{
	{"decisionRefVersion", "pinning a decision version is not supported yet; the latest version at call time is evaluated"},
	{"decisionRefVersionTag", "version tags are not supported; the latest version at call time is evaluated"},
	{"decisionRefTenantId", "tenants are not supported"},
}

// businessRuleTask reads the decision a businessRuleTask or
// globalBusinessRuleTask e evaluates: the decision key, the result variable
// and the result mapping, from gobpm, Zeebe and Camunda 7 attributes in
// that precedence. Delegating the rules to Java code or a worker is
// refused.
func (p *parser) businessRuleTask(e *etree.Element) *DecisionDef {
	label := p.label(e)
	// foreign is set when another implementation was refused: the missing
	// decision is then a consequence, not a second problem.
	foreign := false
	for _, key := range camundaDelegates {
		if _, ok := nsAttr(e, NamespaceCamunda, key); ok {
			foreign = true
			p.problems.add(label, RuleUnsupported, "camunda:%s (a Java delegate) on %s is not supported; %s", key, e.Tag, engineDecisionHint)
		}
	}
	if extension(e, NamespaceCamunda, "connector") != nil {
		foreign = true
		p.problems.add(label, RuleUnsupported, "camunda:connector on %s is not supported; %s", e.Tag, engineDecisionHint)
	}
	ct, hasType := nsAttr(e, NamespaceCamunda, "type")
	_, hasTopic := nsAttr(e, NamespaceCamunda, "topic")
	switch {
	case hasType && strings.TrimSpace(ct) != "external":
		foreign = true
		p.problems.add(label, RuleUnsupported, "camunda:type=%q on %s is not supported; %s", ct, e.Tag, engineDecisionHint)
	case hasType || hasTopic:
		foreign = true
		p.problems.add(label, RuleUnsupported,
			"an external task (camunda:type=\"external\", camunda:topic) on %s is not supported: no worker evaluates the rules; %s", e.Tag, engineDecisionHint)
	}
	if extension(e, NamespaceZeebe, "taskDefinition") != nil {
		foreign = true
		p.problems.add(label, RuleUnsupported,
			"zeebe:taskDefinition on %s (a job worker evaluating the rules) is not supported; %s", e.Tag, engineDecisionHint)
	}

	var refs, results, maps []source
	if v, ok := nsAttr(e, NamespaceGobpm, "decisionRef"); ok {
		refs = append(refs, source{"gobpm:decisionRef", v})
	}
	if v, ok := nsAttr(e, NamespaceGobpm, "resultVariable"); ok {
		results = append(results, source{"gobpm:resultVariable", v})
	}
	if v, ok := nsAttr(e, NamespaceGobpm, "mapDecisionResult"); ok {
		maps = append(maps, source{"gobpm:mapDecisionResult", v})
	}
	if zd := extension(e, NamespaceZeebe, "calledDecision"); zd != nil {
		if a := zd.SelectAttr("decisionId"); a != nil {
			refs = append(refs, source{"zeebe:calledDecision decisionId", a.Value})
		}
		if a := zd.SelectAttr("resultVariable"); a != nil {
			results = append(results, source{"zeebe:calledDecision resultVariable", a.Value})
		}
		maps = append(maps, source{"zeebe:calledDecision", zeebeDecisionMap})
		switch b := strings.TrimSpace(zd.SelectAttrValue("bindingType", "")); b {
		case "", bindingLatest:
		default:
			p.problems.add(label, RuleUnsupported, "zeebe:calledDecision bindingType=%q is not supported; the latest version at call time is evaluated", b)
		}
		if zd.SelectAttr("versionTag") != nil {
			p.problems.add(label, RuleUnsupported, "zeebe:calledDecision versionTag is not supported; the latest version at call time is evaluated")
		}
	}
	if v, ok := nsAttr(e, NamespaceCamunda, "decisionRef"); ok {
		refs = append(refs, source{"camunda:decisionRef", v})
	}
	if v, ok := nsAttr(e, NamespaceCamunda, "resultVariable"); ok {
		results = append(results, source{"camunda:resultVariable", v})
	}
	if v, ok := nsAttr(e, NamespaceCamunda, "mapDecisionResult"); ok {
		maps = append(maps, source{"camunda:mapDecisionResult", v})
	}
	if b, ok := nsAttr(e, NamespaceCamunda, "decisionRefBinding"); ok {
		switch b = strings.TrimSpace(b); b {
		case "", bindingLatest:
		default:
			p.problems.add(label, RuleUnsupported, "camunda:decisionRefBinding=%q is not supported; the latest version at call time is evaluated", b)
		}
	}
	for _, r := range camundaDecisionRefused {
		if _, ok := nsAttr(e, NamespaceCamunda, r.key); ok {
			p.problems.add(label, RuleUnsupported, "camunda:%s on %s is not supported: %s", r.key, e.Tag, r.hint)
		}
	}

	d := &DecisionDef{Map: defaultDecisionMap}
	if r, ok := pick(refs); ok {
		d.Ref = strings.TrimSpace(r.value)
		switch {
		case d.Ref == "":
			p.problems.add(label, RuleMissingAttribute, "%s is empty", r.what)
		case isExpression(d.Ref):
			p.problems.add(label, RuleUnsupported, "%s %q: a decision reference expression is not supported yet; name the decision's key", r.what, d.Ref)
		}
	} else if !foreign {
		p.problems.add(label, RuleMissingAttribute,
			"%s %q needs a decision: gobpm:decisionRef (or zeebe:calledDecision decisionId, camunda:decisionRef)", e.Tag, label)
	}
	if r, ok := pick(results); ok {
		d.ResultVariable = strings.TrimSpace(r.value)
		if d.ResultVariable == "" {
			p.problems.add(label, RuleInvalidAttribute, "%s is empty", r.what)
		}
	}
	if m, ok := pick(maps); ok {
		v := strings.TrimSpace(m.value)
		if slices.Contains(decisionMaps, v) {
			d.Map = v
		} else {
			p.problems.add(label, RuleInvalidAttribute, "%s=%q: want %s", m.what, m.value, strings.Join(decisionMaps, ", "))
		}
	}
	return d
}
