package bpmn

import (
	"errors"
	"fmt"
	"strings"

	"github.com/beevik/etree"

	"github.com/gobpm/gobpm/internal/expr"
)

// feelScriptFormats are scriptFormat values (lower-cased) that select FEEL,
// besides the language names the expr seam accepts.
var feelScriptFormats = map[string]bool{
	"text/feel":          true,
	"application/feel":   true,
	"text/x-feel":        true,
	"application/x-feel": true,
}

// compile compiles src for the element named label, reporting problems.
// A panic in the compiler becomes a problem: a deployment never crashes the
// process.
func (p *parser) compile(label, what, language, src string) (x expr.Expression) {
	if strings.TrimSpace(src) == "" {
		p.problems.add(label, RuleInvalidExpression, "%s is empty", what)
		return nil
	}
	defer func() {
		if r := recover(); r != nil {
			p.problems.add(label, RuleInvalidExpression, "%s %q: compiler failed: %v", what, clip(src), r)
			x = nil
		}
	}()
	x, err := expr.Compile(language, src)
	if err != nil {
		rule := RuleInvalidExpression
		if errors.Is(err, expr.ErrUnsupportedLanguage) {
			rule = RuleUnsupportedLanguage
		}
		p.problems.add(label, rule, "%s %q: %v", what, clip(src), err)
		return nil
	}
	return x
}

// clip shortens an expression for a problem detail.
func clip(s string) string {
	s = strings.TrimSpace(s)
	if r := []rune(s); len(r) > 80 {
		return string(r[:77]) + "..."
	}
	return s
}

// sequenceFlow reads a <sequenceFlow> and compiles its condition. A flow
// without an id gets a synthesized one (see flowID).
func (p *parser) sequenceFlow(e *etree.Element, c *container) {
	id := p.flowID(e)
	label := p.label(e)
	f := &Flow{ID: id, Name: attr(e, "name")}
	info := &flowInfo{
		flow:      f,
		label:     label,
		g:         c.g,
		sourceRef: strings.TrimSpace(attr(e, "sourceRef")),
		targetRef: strings.TrimSpace(attr(e, "targetRef")),
	}
	conds := 0
	for _, ch := range e.ChildElements() {
		if !isBPMN(ch) {
			p.foreign(ch)
			continue
		}
		switch ch.Tag {
		case "documentation", "auditing", "monitoring", "categoryValueRef":
		case "extensionElements":
		case "conditionExpression":
			conds++
			info.hasCondition = true
			if conds > 1 {
				p.problems.add(label, RuleInvalidExpression, "sequenceFlow has several conditionExpressions")
				continue
			}
			lang := strings.TrimSpace(attr(ch, "language"))
			if lang == "" {
				lang = p.exprLang
			}
			f.Condition = p.compile(label, "conditionExpression", lang, text(ch))
		default:
			p.unsupported(ch, fmt.Sprintf("%s in sequenceFlow", ch.Tag))
		}
	}
	c.flows = append(c.flows, info)
	c.g.Flows = append(c.g.Flows, f)
	if id != "" {
		if _, dup := p.flows[id]; !dup {
			p.flows[id] = info
		}
	}
}

// flowID returns the id of a sequence flow. Camunda 7 accepts flows
// without an id (nothing can reference them), and its test models use them,
// so instead of rejecting, Parse synthesizes "<sourceRef>-><targetRef>",
// with "#2", "#3", … appended when that id is already taken by a declared
// id or an earlier synthesized one. The result depends only on the
// document, so it is stable across deployments of the same bytes. Problems
// still name such a flow by tag and line.
func (p *parser) flowID(e *etree.Element) string {
	if id := strings.TrimSpace(attr(e, "id")); id != "" {
		return id
	}
	base := strings.TrimSpace(attr(e, "sourceRef")) + "->" + strings.TrimSpace(attr(e, "targetRef"))
	id := base
	for k := 2; p.ids[id]; k++ {
		id = fmt.Sprintf("%s#%d", base, k)
	}
	p.ids[id] = true
	return id
}

// script compiles the <script> body of a script task.
func (p *parser) script(task, script *etree.Element, n *Node) {
	n.Script = p.compile(p.label(task), "script", p.scriptLanguage(attr(task, "scriptFormat")), text(script))
}

// scriptLanguage maps a scriptFormat (or a global script task's
// scriptLanguage) to the expression language: the document's
// expressionLanguage when empty, FEEL for the FEEL MIME types.
func (p *parser) scriptLanguage(format string) string {
	format = strings.TrimSpace(format)
	switch {
	case format == "":
		return p.exprLang
	case feelScriptFormats[strings.ToLower(format)]:
		return "feel"
	}
	return format
}

// targetRefPlaceholder is the name of the property the Camunda Modeler
// writes on a task when a data object or data store is associated with it
// (the dataInputAssociation's targetRef must name something). It declares
// no variable anyone reads, so it is accepted on tasks, where any other
// property is refused.
const targetRefPlaceholder = "__targetRef_placeholder"

// scriptTask reads how a script task is implemented: the standard <script>
// (count of them: scripts; compiled by script), Camunda 8's zeebe:script (a
// FEEL expression whose value goes to its resultVariable), or a Camunda 8
// job worker (zeebe:taskDefinition: the task creates a job, as a service
// task does). Exactly one of them.
func (p *parser) scriptTask(e *etree.Element, n *Node, scripts int) {
	label := p.label(e)
	zs := extension(e, NamespaceZeebe, "script")
	td := extension(e, NamespaceZeebe, "taskDefinition")
	var forms []string
	if scripts > 0 {
		forms = append(forms, "<script>")
	}
	if zs != nil {
		forms = append(forms, "zeebe:script")
	}
	if td != nil {
		forms = append(forms, "zeebe:taskDefinition")
	}
	switch {
	case len(forms) > 1:
		p.problems.add(label, RuleInvalidAttribute, "scriptTask has both %s: keep one implementation", strings.Join(forms, " and "))
	case zs != nil:
		p.zeebeScript(e, zs, n)
		return
	case td != nil:
		n.Job = p.job(e, e)
		for _, ns := range []struct{ uri, prefix string }{{NamespaceGobpm, "gobpm"}, {NamespaceCamunda, "camunda"}} {
			if _, ok := nsAttr(e, ns.uri, "resultVariable"); ok {
				p.problems.add(label, RuleUnsupported, "%s:resultVariable on a scriptTask implemented by a job worker (zeebe:taskDefinition) is not supported: the variables the worker completes the job with are its result", ns.prefix)
			}
		}
		return
	case scripts == 0:
		p.problems.add(label, RuleInvalidExpression, "scriptTask has no script (a <script>, zeebe:script or zeebe:taskDefinition)")
	case scripts > 1:
		p.problems.add(label, RuleUnsupported, "scriptTask with several scripts is not supported")
	}
	p.resultVariable(e, n)
}

// zeebeScript reads Camunda 8's zeebe:script: a FEEL expression (with its
// leading "=") whose value is stored in resultVariable, both required as
// in Camunda 8. gobpm:resultVariable, when present, wins.
func (p *parser) zeebeScript(e, zs *etree.Element, n *Node) {
	label := p.label(e)
	n.Script = p.compile(label, "zeebe:script expression", "feel", zs.SelectAttrValue("expression", ""))
	if g, ok := nsAttr(e, NamespaceGobpm, "resultVariable"); ok {
		if n.ResultVariable = strings.TrimSpace(g); n.ResultVariable == "" {
			p.problems.add(label, RuleInvalidAttribute, "resultVariable is empty")
		}
		return
	}
	if n.ResultVariable = strings.TrimSpace(zs.SelectAttrValue("resultVariable", "")); n.ResultVariable == "" {
		p.problems.add(label, RuleMissingAttribute, "zeebe:script needs a resultVariable")
	}
}

// resultVariable reads gobpm:resultVariable (or camunda:resultVariable).
func (p *parser) resultVariable(e *etree.Element, n *Node) {
	g, gok := nsAttr(e, NamespaceGobpm, "resultVariable")
	c, cok := nsAttr(e, NamespaceCamunda, "resultVariable")
	g, c = strings.TrimSpace(g), strings.TrimSpace(c)
	switch {
	case gok && cok && g != c:
		p.problems.add(p.label(e), RuleInvalidAttribute, "gobpm:resultVariable %q and camunda:resultVariable %q disagree", g, c)
	case gok:
		n.ResultVariable = g
	case cok:
		n.ResultVariable = c
	}
	if (gok || cok) && n.ResultVariable == "" && !(gok && cok && g != c) {
		p.problems.add(p.label(e), RuleInvalidAttribute, "resultVariable is empty")
	}
}

// dataAssociation accepts a descriptive data association; one that maps data
// (assignment or transformation) is not supported yet.
func (p *parser) dataAssociation(e *etree.Element, owner string) {
	// owner is the label of the activity holding the association.
	for _, c := range e.ChildElements() {
		if !isBPMN(c) {
			p.foreign(c)
			continue
		}
		switch c.Tag {
		case "assignment", "transformation":
			p.problems.add(owner, RuleUnsupported, "%s in %s is not supported yet", c.Tag, e.Tag)
		}
	}
}
