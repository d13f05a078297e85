package bpmn

import (
	"strings"

	"github.com/beevik/etree"

	"github.com/gobpm/gobpm/internal/expr"
	"github.com/gobpm/gobpm/internal/timer"
)

// messageDecl is a root-level <message>.
type messageDecl struct {
	name string
	// key is the compiled correlation key, or nil.
	key expr.Expression
}

// declarations reads the root-level message, signal, error and escalation
// elements before any process, so event definitions can resolve their
// references whatever the document order.
func (p *parser) declarations(root *etree.Element) {
	for _, c := range root.ChildElements() {
		if !isBPMN(c) {
			continue
		}
		id := strings.TrimSpace(attr(c, "id"))
		switch c.Tag {
		case "message":
			p.common(c)
			p.literalName(c, "name", "a message")
			d := p.message(c)
			if id != "" {
				p.messages[id] = d
			}
		case "signal":
			p.common(c)
			p.literalName(c, "name", "a signal")
			if id != "" {
				p.signals[id] = nameOrID(c)
			}
		case "error":
			p.common(c)
			p.literalName(c, "errorCode", "an error")
			if id != "" {
				p.errorCodes[id] = strings.TrimSpace(attr(c, "errorCode"))
			}
		case "escalation":
			p.common(c)
			p.literalName(c, "escalationCode", "an escalation")
			if id != "" {
				p.escalationCodes[id] = strings.TrimSpace(attr(c, "escalationCode"))
			}
		}
	}
}

// nameOrID returns the trimmed name attribute, else the id.
func nameOrID(e *etree.Element) string {
	if n := strings.TrimSpace(attr(e, "name")); n != "" {
		return n
	}
	return strings.TrimSpace(attr(e, "id"))
}

// message reads a <message>: its name and its correlation key, from
// gobpm:correlationKey or a zeebe:subscription extension element.
func (p *parser) message(e *etree.Element) *messageDecl {
	d := &messageDecl{name: nameOrID(e)}
	label := p.label(e)
	g, gok := nsAttr(e, NamespaceGobpm, "correlationKey")
	var z string
	zok := false
	if sub := extension(e, NamespaceZeebe, "subscription"); sub != nil {
		z, zok = sub.SelectAttrValue("correlationKey", ""), sub.SelectAttr("correlationKey") != nil
	}
	// gobpm takes precedence over zeebe, as for jobs and user tasks.
	src, what := "", ""
	switch {
	case gok:
		src, what = g, "gobpm:correlationKey"
	case zok:
		src, what = z, "zeebe:subscription correlationKey"
	default:
		return d
	}
	d.key = p.compile(label, what, p.exprLang, src)
	return d
}

// extension returns the first child of e's BPMN <extensionElements> with
// namespace ns and local name tag, or nil.
func extension(e *etree.Element, ns, tag string) *etree.Element {
	for _, x := range e.ChildElements() {
		if !isBPMN(x) || x.Tag != "extensionElements" {
			continue
		}
		for _, c := range x.ChildElements() {
			if c.Tag == tag && c.NamespaceURI() == ns {
				return c
			}
		}
	}
	return nil
}

// lookup finds ref in decls, also trying its local part when it is a QName
// ("tns:Message_1").
func lookup[V any](decls map[string]V, ref string) (V, bool) {
	if v, ok := decls[ref]; ok {
		return v, true
	}
	if i := strings.LastIndexByte(ref, ':'); i >= 0 {
		v, ok := decls[ref[i+1:]]
		return v, ok
	}
	var zero V
	return zero, false
}

// triggers maps event definition tags to their kinds; definitions not
// listed are not supported yet.
var triggers = map[string]TriggerKind{
	"timerEventDefinition":       TriggerTimer,
	"messageEventDefinition":     TriggerMessage,
	"signalEventDefinition":      TriggerSignal,
	"errorEventDefinition":       TriggerError,
	"escalationEventDefinition":  TriggerEscalation,
	"terminateEventDefinition":   TriggerTerminate,
	"conditionalEventDefinition": TriggerConditional,
	"linkEventDefinition":        TriggerLink,
	"compensateEventDefinition":  TriggerCompensation,
	"cancelEventDefinition":      TriggerCancel,
}

// allowedTriggers lists, per event element, the triggers it may carry.
// TriggerNone means the element may have no event definition. Process-level
// start events are listed; inside a plain sub-process only the None start
// is allowed, inside an event sub-process only eventSubStartTriggers
// (checked by event).
var allowedTriggers = map[string][]TriggerKind{
	"startEvent":             {TriggerNone, TriggerTimer, TriggerMessage, TriggerSignal, TriggerConditional},
	"intermediateCatchEvent": {TriggerTimer, TriggerMessage, TriggerSignal, TriggerConditional, TriggerLink},
	"intermediateThrowEvent": {TriggerNone, TriggerMessage, TriggerSignal, TriggerEscalation, TriggerLink, TriggerCompensation},
	"endEvent":               {TriggerNone, TriggerTerminate, TriggerMessage, TriggerSignal, TriggerError, TriggerEscalation, TriggerCompensation, TriggerCancel},
	"boundaryEvent":          {TriggerTimer, TriggerMessage, TriggerSignal, TriggerError, TriggerEscalation, TriggerConditional, TriggerCompensation, TriggerCancel},
}

// eventSubStartTriggers are the triggers the start event of an event
// sub-process may carry (docs/scopes.md#boundary-events-and-event-sub-processes); it must carry exactly one.
var eventSubStartTriggers = []TriggerKind{
	TriggerMessage, TriggerTimer, TriggerSignal, TriggerError, TriggerEscalation, TriggerConditional, TriggerCompensation,
}

// isCatch reports whether the event element waits for its trigger.
func isCatch(tag string) bool {
	return tag == "startEvent" || tag == "intermediateCatchEvent" || tag == "boundaryEvent"
}

// event reads a start, end, intermediate or boundary event and its (single)
// event definition. It reports whether the node is supported.
func (p *parser) event(e *etree.Element, info *nodeInfo, c *container) bool {
	n := info.node
	label := p.label(e)
	ok := true
	var defs []*etree.Element
	for _, ch := range e.ChildElements() {
		if !isBPMN(ch) {
			p.foreign(ch)
			continue
		}
		switch ch.Tag {
		case "documentation", "auditing", "monitoring", "categoryValueRef", "incoming", "outgoing":
		case "extensionElements":
		case "dataInputAssociation", "dataOutputAssociation":
			p.dataAssociation(ch, label)
		case "eventDefinitionRef":
			p.problems.add(label, RuleUnsupported, "%s with eventDefinitionRef is not supported yet", e.Tag)
			ok = false
		default:
			if strings.HasSuffix(ch.Tag, "EventDefinition") {
				defs = append(defs, ch)
			} else {
				p.unsupported(ch, ch.Tag+" in "+e.Tag)
				ok = false
			}
		}
	}
	if e.Tag == "boundaryEvent" {
		info.attachedRef = strings.TrimSpace(attr(e, "attachedToRef"))
		n.CancelActivity = p.boolAttr(e, "cancelActivity", true)
	}
	if e.Tag == "startEvent" {
		// Meaningful only inside an event sub-process (Node.Interrupting of
		// its owner, set by eventSubShape).
		info.interrupting = p.boolAttr(e, "isInterrupting", true)
	}
	parallel := p.boolAttr(e, "parallelMultiple", false)
	if parallel && !isCatch(e.Tag) {
		p.problems.add(label, RuleInvalidAttribute, "parallelMultiple belongs to catch events; a %s throws every event definition it has", e.Tag)
		ok = false
	}
	var def *etree.Element
	if len(defs) > 0 {
		def = defs[0]
	}
	if e.Tag == "startEvent" && def != nil && c.g.Owner != nil && !c.eventSub {
		// docs/scopes.md#instantiation: a plain sub-process starts only through a None start,
		// whatever the trigger. Inside a container that is itself rejected
		// (ad-hoc, transaction), stay quiet: that container is reported.
		if def.Tag == "conditionalEventDefinition" {
			// Report an incomplete condition too, as Camunda 7 does.
			p.conditionDef(label, def)
		}
		if c.checkShape {
			p.problems.add(label, RuleStartShape,
				"%s inside %s has %s; a plain sub-process may only have a None start event (triggered starts belong to event sub-processes)",
				e.Tag, p.where(c.g), def.Tag)
		}
		info.triggeredStart = true
		return false
	}
	kind := TriggerNone
	switch {
	case len(defs) > 1:
		ev := p.multipleDef(e, c, defs, parallel)
		if ev == nil {
			info.triggeredStart = e.Tag == "startEvent"
			return false
		}
		kind, n.Event = ev.Kind, ev
	case def != nil:
		k, known := triggers[def.Tag]
		if !known {
			p.problems.add(label, RuleUnsupported, "%s with %s is not supported yet", e.Tag, def.Tag)
			info.triggeredStart = e.Tag == "startEvent"
			return false
		}
		kind = k
	}
	switch {
	case n.Event != nil:
		// A multiple event: multipleDef checked its definitions.
		if e.Tag == "startEvent" && c.eventSub && n.Event.Has(TriggerError) && !info.interrupting {
			p.problems.add(label, RuleInvalidAttribute,
				"an error start event always interrupts its scope; isInterrupting=\"false\" is not allowed")
		}
	case e.Tag == "startEvent" && c.eventSub:
		if kind == TriggerNone {
			p.problems.add(label, RuleStartShape,
				"the start event of event sub-process %q has no event definition; it needs exactly one trigger: message, timer, signal, error, escalation or conditional",
				c.id)
			info.triggeredStart = true
			return false
		}
		if !contains(eventSubStartTriggers, kind) {
			p.problems.add(label, RuleUnsupported, "%s with %s is not supported yet", e.Tag, def.Tag)
			info.triggeredStart = true
			return false
		}
		if kind == TriggerError && !info.interrupting {
			p.problems.add(label, RuleInvalidAttribute,
				"an error start event always interrupts its scope; isInterrupting=\"false\" is not allowed")
		}
	case !allows(e.Tag, kind):
		if kind == TriggerNone {
			p.problems.add(label, RuleUnsupported, "%s without an event definition is not supported yet", e.Tag)
		} else {
			p.problems.add(label, RuleUnsupported, "%s with %s is not supported yet", e.Tag, def.Tag)
		}
		info.triggeredStart = e.Tag == "startEvent"
		return false
	}
	if kind != TriggerNone && n.Event == nil {
		n.Event = p.eventDef(e, def, kind)
	}
	if kind == TriggerCompensation && !isCatch(e.Tag) && attr(def, "activityRef") != "" {
		ref := attr(def, "activityRef")
		p.compRefs = append(p.compRefs, compRef{info: info, ref: ref})
	}
	if e.Tag == "startEvent" && c.proc != nil {
		p.literalStartTimer(label, n)
	}
	if n.Event != nil && n.Event.Kind == TriggerTerminate {
		n.Terminate = true
	}

	// A message throw creates a job; its gobpm attributes are allowed only there.
	throwsMessage := n.Event.Has(TriggerMessage) && !isCatch(e.Tag)
	if throwsMessage {
		n.Job = p.job(e, messageDef(defs))
	} else if knownGobpm[e.Tag]["type"] {
		for _, key := range []string{"type", "retries"} {
			if _, has := nsAttr(e, NamespaceGobpm, key); has {
				p.problems.add(label, RuleUnknownExtension, "gobpm:%s on %s is only allowed on a message throw event", key, e.Tag)
			}
		}
	}
	if e.Tag == "boundaryEvent" && kind == TriggerCancel && !n.CancelActivity {
		p.problems.add(label, RuleInvalidBoundary, "a cancel boundary event always interrupts; cancelActivity=\"false\" is not allowed")
	}
	if e.Tag == "boundaryEvent" && n.Event.Has(TriggerError) && !n.CancelActivity {
		p.problems.add(label, RuleInvalidBoundary, "an error boundary event always interrupts; cancelActivity=\"false\" is not allowed")
	}
	n.Mappings = p.nodeMappings(e, n)
	return ok
}

// literalStartTimer refuses an expression in the timer of process-level
// start n: a process's timer starts are scheduled at deployment, when no
// instance and so no variable exists to evaluate against.
func (p *parser) literalStartTimer(label string, n *Node) {
	tm := n.Event.Find(TriggerTimer)
	if tm == nil || tm.Timer == nil || tm.Timer.Expr == nil || p.limits.Deployed {
		return
	}
	p.problems.add(label, RuleUnsupported,
		"an expression in a timer start event (%q) is not supported yet: timer starts are scheduled at deployment, when there are no variables; give a literal date, duration or cycle",
		tm.Timer.Expr.Source())
}

// messageDef returns the first messageEventDefinition of defs, or nil.
func messageDef(defs []*etree.Element) *etree.Element {
	for _, d := range defs {
		if d.Tag == "messageEventDefinition" {
			return d
		}
	}
	return nil
}

// allows reports whether an event element tag may carry trigger kind.
func allows(tag string, kind TriggerKind) bool {
	return contains(allowedTriggers[tag], kind)
}

// contains reports whether kind is one of kinds.
func contains(kinds []TriggerKind, kind TriggerKind) bool {
	for _, k := range kinds {
		if k == kind {
			return true
		}
	}
	return false
}

// eventDef reads the event definition def of kind on event e.
func (p *parser) eventDef(e, def *etree.Element, kind TriggerKind) *EventDef {
	label := p.label(e)
	ev := &EventDef{Kind: kind}
	catch := isCatch(e.Tag)
	switch kind {
	case TriggerTimer:
		ev.Timer = p.timerDef(label, def, e.Tag != "intermediateCatchEvent")
	case TriggerMessage:
		p.common(def, "operationRef")
		for _, c := range def.ChildElements() {
			if isBPMN(c) && c.Tag == "operationRef" {
				p.problems.add(label, RuleUnsupported,
					"operationRef in messageEventDefinition is not supported: gobpm invokes no web service operation; messages are matched by name")
			}
		}
		ref := strings.TrimSpace(attr(def, "messageRef"))
		if ref == "" {
			if catch {
				p.problems.add(label, RuleMissingReference, "messageEventDefinition of a catching %s needs a messageRef", e.Tag)
			}
			break
		}
		if m, found := lookup(p.messages, ref); found {
			ev.MessageName, ev.CorrelationKey = m.name, m.key
		} else {
			p.problems.add(label, RuleMissingReference, "messageRef %q names no message", ref)
		}
	case TriggerSignal:
		p.common(def)
		ref := strings.TrimSpace(attr(def, "signalRef"))
		if ref == "" {
			p.problems.add(label, RuleMissingReference, "signalEventDefinition needs a signalRef")
			break
		}
		if name, found := lookup(p.signals, ref); found {
			ev.SignalName = name
		} else {
			p.problems.add(label, RuleMissingReference, "signalRef %q names no signal", ref)
		}
	case TriggerError:
		p.common(def)
		ev.Code = p.codeRef(label, def, "errorRef", "error", "errorCode", p.errorCodes, catch)
	case TriggerEscalation:
		p.common(def)
		ev.Code = p.codeRef(label, def, "escalationRef", "escalation", "escalationCode", p.escalationCodes, catch)
	case TriggerTerminate, TriggerCancel:
		p.common(def)
	case TriggerCompensation:
		p.compensateDef(e, def, ev)
	case TriggerConditional:
		ev.Condition = p.conditionDef(label, def)
	case TriggerLink:
		// BPMN 2.0.2 §10.5.4: throw and catch pair by the name of their
		// link event definitions. The optional source and target
		// elements only repeat that pairing; checkLinks does it by name.
		p.common(def, "source", "target")
		ev.LinkName = attr(def, "name")
		if strings.TrimSpace(ev.LinkName) == "" {
			p.problems.add(label, RuleMissingAttribute, "linkEventDefinition needs a name: a link throw continues at the link catch of the same name")
		}
	}
	return ev
}

// conditionalVendorAttrs are Camunda 7 attributes of a
// conditionalEventDefinition that narrow when the condition is evaluated;
// gobpm evaluates it after every step that changes variables, so it refuses
// them rather than fire at other moments.
var conditionalVendorAttrs = []string{"variableName", "variableEvents"}

// conditionDef compiles the <condition> of the conditionalEventDefinition
// def on the event named label: its language attribute, else the
// document's expressionLanguage. A missing or empty condition is a
// RuleInvalidExpression problem.
func (p *parser) conditionDef(label string, def *etree.Element) expr.Expression {
	for _, key := range conditionalVendorAttrs {
		if _, ok := nsAttr(def, NamespaceCamunda, key); ok {
			p.problems.add(label, RuleUnsupported,
				"camunda:%s on conditionalEventDefinition is not supported; gobpm evaluates the condition after every change of variables", key)
		}
	}
	var conds []*etree.Element
	for _, c := range def.ChildElements() {
		if !isBPMN(c) {
			p.foreign(c)
			continue
		}
		switch c.Tag {
		case "documentation", "extensionElements":
		case "condition":
			conds = append(conds, c)
		default:
			p.unsupported(c, c.Tag+" in conditionalEventDefinition")
		}
	}
	switch len(conds) {
	case 0:
		p.problems.add(label, RuleInvalidExpression, "conditionalEventDefinition has no condition")
		return nil
	case 1:
	default:
		p.problems.add(label, RuleInvalidExpression, "conditionalEventDefinition has %d conditions; want one", len(conds))
	}
	lang := strings.TrimSpace(attr(conds[0], "language"))
	if lang == "" {
		lang = p.exprLang
	}
	return p.compile(label, "condition", lang, text(conds[0]))
}

// codeRef resolves an errorRef or escalationRef to its code. A catch may
// omit the reference (catch all) or reference an element without a code; a
// throw needs both. An errorRef naming no <error> is the code itself, as in
// Camunda 7.
func (p *parser) codeRef(label string, def *etree.Element, refAttr, elem, codeAttr string, decls map[string]string, catch bool) string {
	ref := strings.TrimSpace(attr(def, refAttr))
	if ref == "" {
		if !catch {
			p.problems.add(label, RuleMissingReference, "a thrown %s needs an %s", def.Tag, refAttr)
		}
		return ""
	}
	code, found := lookup(decls, ref)
	switch {
	case !found && elem == "error":
		// Camunda 7 (and Activiti) take an errorRef that names no <error>
		// as the error code itself; models written for them rely on it.
		return ref
	case !found:
		p.problems.add(label, RuleMissingReference, "%s %q names no %s", refAttr, ref, elem)
	case code == "" && !catch:
		p.problems.add(label, RuleMissingAttribute, "%s %q referenced by a throw event has no %s", elem, ref, codeAttr)
	}
	return code
}

// timerKinds maps timer element tags to their kinds.
var timerKinds = map[string]TimerKind{
	"timeDate":     TimerDate,
	"timeDuration": TimerDuration,
	"timeCycle":    TimerCycle,
}

// timerDef reads a timerEventDefinition: exactly one of timeDate,
// timeDuration, timeCycle. A literal is validated with package timer; an
// expression ("=…", "${…}") is compiled and yields the text when armed.
func (p *parser) timerDef(label string, def *etree.Element, allowCycle bool) *TimerDef {
	var found []*etree.Element
	for _, c := range def.ChildElements() {
		if !isBPMN(c) {
			p.foreign(c)
			continue
		}
		switch c.Tag {
		case "documentation", "extensionElements":
		case "timeDate", "timeDuration", "timeCycle":
			found = append(found, c)
		default:
			p.unsupported(c, c.Tag+" in timerEventDefinition")
		}
	}
	if len(found) != 1 {
		p.problems.add(label, RuleInvalidTimer, "timerEventDefinition needs exactly one of timeDate, timeDuration, timeCycle (found %d)", len(found))
		return nil
	}
	el := found[0]
	kind := timerKinds[el.Tag]
	if kind == TimerCycle && !allowCycle {
		p.problems.add(label, RuleInvalidTimer, "timeCycle is not allowed on an intermediate catch event (use timeDuration or timeDate)")
		return nil
	}
	src := strings.TrimSpace(text(el))
	if src == "" {
		p.problems.add(label, RuleInvalidTimer, "%s is empty", el.Tag)
		return nil
	}
	if isExpression(src) {
		lang := strings.TrimSpace(attr(el, "language"))
		if lang == "" {
			lang = p.exprLang
		}
		x := p.compile(label, el.Tag, lang, src)
		if x == nil {
			return nil
		}
		return &TimerDef{Kind: kind, Expr: x}
	}
	spec, err := timer.Parse(timer.Kind(kind), src)
	if err != nil {
		p.problems.add(label, RuleInvalidTimer, "%s %q: %v", el.Tag, clip(src), err)
		return nil
	}
	p.checkTimerFloor(label, el.Tag, src, spec)
	return &TimerDef{Kind: kind, Text: src}
}

// isExpression reports whether an attribute or timer value is an expression
// rather than a literal: a leading "=" (Camunda 8) or a "${…}" / "#{…}"
// wrapper (Camunda 7).
func isExpression(v string) bool {
	v = strings.TrimSpace(v)
	return strings.HasPrefix(v, "=") || strings.HasPrefix(v, "${") || strings.HasPrefix(v, "#{")
}

// literalName refuses an expression ("=…", "${…}") as the name or code
// key of a message, signal, error or escalation declaration: Camunda 8
// evaluates those, gobpm would match the text itself and never fire.
func (p *parser) literalName(e *etree.Element, key, what string) {
	if v := strings.TrimSpace(attr(e, key)); isExpression(v) {
		hint := ""
		if e.Tag == "message" {
			hint = " (the correlation key, gobpm:correlationKey, may be an expression)"
		}
		p.problems.add(p.label(e), RuleUnsupported,
			"%s=%q: %s %s expression is not supported yet; use a literal%s", key, v, what, key, hint)
	}
}
