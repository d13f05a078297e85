package bpmn

import (
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
			p.problems.add(label, RuleUnsupported, "%s %q: a job type expression is not supported yet; use a literal type", t.what, j.Type)
		}
	} else if !foreign {
		p.problems.add(label, RuleMissingAttribute,
			"%s %q needs a job type: gobpm:type (or zeebe:taskDefinition type, camunda:topic)", e.Tag, label)
	}
	if r, ok := pick(retries); ok {
		v := strings.TrimSpace(r.value)
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			p.problems.add(label, RuleInvalidAttribute, "%s=%q: want an integer >= 0", r.what, r.value)
		} else {
			j.Retries = n
		}
	}
	return j
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

// receiveTask reads the message a receive task waits for.
func (p *parser) receiveTask(e *etree.Element) *EventDef {
	label := p.label(e)
	if p.boolAttr(e, "instantiate", false) {
		p.problems.add(label, RuleUnsupported, "receiveTask with instantiate=\"true\" is not supported yet; use a message start event")
	}
	ev := &EventDef{Kind: TriggerMessage}
	ref := strings.TrimSpace(attr(e, "messageRef"))
	if ref == "" {
		p.problems.add(label, RuleMissingReference, "receiveTask needs a messageRef")
		return ev
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
