package bpmn

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/beevik/etree"

	"github.com/gobpm/gobpm/internal/expr"
)

// The built-in routers of an ad-hoc sub-process (docs/scopes.md#ad-hoc-sub-processes, §8).
const (
	RouterStandard   = "standard"
	RouterExpression = "expression"
	RouterSequence   = "sequence"
	// RouterJob is the Router as an external worker: each time the router
	// is asked, a job of type gobpm:routerType carries the snapshot and the
	// candidates, and the worker's completion is the answer.
	RouterJob = "job"
)

// missingRouter is the detail of the problem for an ad-hoc sub-process
// without gobpm:router: docs/scopes.md#ad-hoc-sub-processes has no default router and no routing by
// declaration order.
const missingRouter = "an ad-hoc sub-process needs gobpm:router (standard, expression, sequence or job); there is no default router"

// adHoc reads the configuration of an ad-hoc sub-process e (docs/scopes.md#ad-hoc-sub-processes, §8):
// gobpm:router and the attribute its router needs, gobpm:selection, the
// standard ordering and cancelRemainingInstances, and its completionCondition
// elements (conds). Camunda 8's zeebe:adHoc activeElementsCollection stands
// for an expression router asked only when the region opens. The ids of
// gobpm:sequence are checked by adHocShape, once the inner nodes are known.
func (p *parser) adHoc(e *etree.Element, conds []*etree.Element) *AdHocDef {
	label := p.label(e)
	def := &AdHocDef{CancelRemaining: p.boolAttr(e, "cancelRemainingInstances", true)}

	routerAttr, hasRouter := nsAttr(e, NamespaceGobpm, "router")
	routerExpr, hasExpr := nsAttr(e, NamespaceGobpm, "routerExpression")
	seq, hasSeq := nsAttr(e, NamespaceGobpm, "sequence")
	routerType, _ := nsAttr(e, NamespaceGobpm, "routerType")

	// Camunda 8.
	zeebeExpr, hasZeebe := "", false
	if z := extension(e, NamespaceZeebe, "adHoc"); z != nil {
		if a := z.SelectAttr("activeElementsCollection"); a != nil {
			zeebeExpr, hasZeebe = a.Value, true
		}
		for _, key := range []string{"outputCollection", "outputElement"} {
			if z.SelectAttr(key) != nil {
				p.problems.add(label, RuleUnsupported, "zeebe:adHoc %s (results collected from the inner activities) is not supported yet", key)
			}
		}
	}
	if extension(e, NamespaceZeebe, "taskDefinition") != nil {
		p.problems.add(label, RuleUnsupported,
			"zeebe:taskDefinition on adHocSubProcess (Camunda's agent job, answered in Camunda's own variables) is not supported; declare gobpm:router=\"job\" gobpm:routerType=\"…\", whose worker answers {\"activate\":[…]}")
	}

	switch {
	case hasRouter:
		def.Router = strings.TrimSpace(routerAttr)
		switch def.Router {
		case RouterStandard, RouterExpression, RouterSequence, RouterJob:
		default:
			p.problems.add(label, RuleInvalidAttribute, "gobpm:router=%q: want standard, expression, sequence or job", routerAttr)
			def.Router = ""
		}
	case hasZeebe:
		def.Router = RouterExpression
	default:
		p.problems.add(label, RuleMissingAttribute, "%s", missingRouter)
	}
	if hasExpr && def.Router != RouterExpression && (hasRouter || hasZeebe) {
		p.problems.add(label, RuleInvalidAttribute, "gobpm:routerExpression is only allowed with gobpm:router=\"expression\"")
	}
	if hasSeq && def.Router != RouterSequence && (hasRouter || hasZeebe) {
		p.problems.add(label, RuleInvalidAttribute, "gobpm:sequence is only allowed with gobpm:router=\"sequence\"")
	}
	if def.Router != RouterJob && (hasRouter || hasZeebe) {
		for _, key := range []string{"routerType", "retries"} {
			if _, ok := nsAttr(e, NamespaceGobpm, key); ok {
				p.problems.add(label, RuleInvalidAttribute, "gobpm:%s is only allowed with gobpm:router=\"job\"", key)
			}
		}
	}
	switch def.Router {
	case RouterJob:
		def.RouterType = strings.TrimSpace(routerType)
		if def.RouterType == "" {
			p.problems.add(label, RuleMissingAttribute, "gobpm:router=\"job\" needs gobpm:routerType (the job type its worker activates)")
		}
		def.RouterRetries = p.routerRetries(e, label)
	case RouterExpression:
		switch {
		case hasExpr:
			def.RouterExpr = p.compile(label, "gobpm:routerExpression", p.exprLang, routerExpr)
		case hasZeebe:
			def.RouterExpr = p.activeElements(label, zeebeExpr)
		default:
			p.problems.add(label, RuleMissingAttribute, "gobpm:router=\"expression\" needs gobpm:routerExpression (a list of inner activity ids)")
		}
	case RouterSequence:
		if !hasSeq {
			p.problems.add(label, RuleMissingAttribute, "gobpm:router=\"sequence\" needs gobpm:sequence (inner activity ids, comma-separated)")
			break
		}
		def.Sequence = p.sequenceIDs(label, seq)
	}

	switch v := strings.TrimSpace(nsAttrValue(e, NamespaceGobpm, "selection")); v {
	case "", "automatic":
	case "manual":
		def.Manual = true
	default:
		p.problems.add(label, RuleInvalidAttribute, "gobpm:selection=%q: want automatic or manual", v)
	}
	if v, ok := nsAttr(e, NamespaceGobpm, "reoffer"); ok {
		switch strings.TrimSpace(v) {
		case "true":
			def.Reoffer = true
		case "false":
		default:
			p.problems.add(label, RuleInvalidAttribute, "gobpm:reoffer=%q: want true or false", v)
		}
	}
	if def.Reoffer && def.Router != RouterStandard && def.Router != "" {
		p.problems.add(label, RuleInvalidAttribute, "gobpm:reoffer=\"true\" is only allowed with gobpm:router=\"standard\" (the other routers decide repetitions themselves)")
	}
	if def.Reoffer && !def.Manual {
		p.problems.add(label, RuleInvalidAttribute, "gobpm:reoffer=\"true\" needs gobpm:selection=\"manual\": an automatic region would start a completed activity again at once, forever")
	}
	switch v := strings.TrimSpace(attr(e, "ordering")); {
	case v == "", strings.EqualFold(v, "Parallel"):
	case strings.EqualFold(v, "Sequential"):
		def.Sequential = true
	default:
		p.problems.add(label, RuleInvalidAttribute, "ordering=%q: want Parallel or Sequential", v)
	}

	switch len(conds) {
	case 0:
	case 1:
		def.CompletionCondition = p.formalExpression(label, "completionCondition", conds[0])
	default:
		p.problems.add(label, RuleInvalidExpression, "adHocSubProcess has %d completionConditions; want at most one", len(conds))
	}
	return def
}

// routerRetries reads gobpm:retries of a job router (default 3, like a
// service task's).
func (p *parser) routerRetries(e *etree.Element, label string) int {
	v, ok := nsAttr(e, NamespaceGobpm, "retries")
	if !ok {
		return defaultRouterRetries
	}
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || n < 1 {
		p.problems.add(label, RuleInvalidAttribute, "gobpm:retries=%q: want a whole number of at least 1", v)
		return defaultRouterRetries
	}
	return n
}

// defaultRouterRetries is the retry budget of a router job without gobpm:retries.
const defaultRouterRetries = 3

// nsAttrValue returns the value of attribute key in namespace ns, "" if absent.
func nsAttrValue(e *etree.Element, ns, key string) string {
	v, _ := nsAttr(e, ns, key)
	return v
}

// formalExpression compiles the text of an expression element (a
// completionCondition, loopCardinality, loopCondition) with its language
// attribute, else the document's expressionLanguage.
func (p *parser) formalExpression(label, what string, el *etree.Element) expr.Expression {
	lang := strings.TrimSpace(attr(el, "language"))
	if lang == "" {
		lang = p.exprLang
	}
	return p.compile(label, what, lang, text(el))
}

// activeElements compiles Camunda 8's activeElementsCollection. Zeebe
// evaluates it once, when the ad-hoc sub-process is entered; gobpm's
// expression router is asked again after every inner completion, so the
// expression is wrapped to answer nothing then: "if trigger = null then
// (…) else []". Without the wrap, an activity it names would run again
// after every completion.
func (p *parser) activeElements(label, src string) expr.Expression {
	const what = "zeebe:adHoc activeElementsCollection"
	if p.compile(label, what, p.exprLang, src) == nil {
		return nil
	}
	return p.compile(label, what, p.exprLang, fmt.Sprintf("=if trigger = null then (%s) else []", expr.Unwrap(src)))
}

// sequenceIDs splits gobpm:sequence into activity ids. An empty entry and
// an id named twice are problems: the sequence router counts completions
// per activity id, so a repeated id cannot mark a position.
func (p *parser) sequenceIDs(label, v string) []string {
	if strings.TrimSpace(v) == "" {
		p.problems.add(label, RuleMissingAttribute, "gobpm:sequence is empty")
		return nil
	}
	var out []string
	seen := map[string]bool{}
	for _, part := range strings.Split(v, ",") {
		id := strings.TrimSpace(part)
		switch {
		case id == "":
			p.problems.add(label, RuleInvalidAttribute, "gobpm:sequence %q has an empty entry", v)
		case seen[id]:
			p.problems.add(label, RuleInvalidAttribute, "gobpm:sequence names %q twice; each inner activity runs at most once in a sequence", id)
		default:
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}

// adHocShape checks the graph of an ad-hoc sub-process (docs/scopes.md#ad-hoc-sub-processes): at
// least one activity (event sub-processes do not count: their event, not
// the router, starts them), every gateway reachable by a flow (the router
// starts only activities), and gobpm:sequence naming inner activities.
// Start and end events were refused by flowNode. Graph.Starts stays empty:
// the router decides.
func (p *parser) adHocShape(c *container) {
	owner := c.g.Owner
	activities := map[string]bool{}
	for _, n := range c.all {
		if n.node.ID == "" {
			continue
		}
		if isActivityTag(n.el.Tag) && !n.node.TriggeredByEvent {
			// An event sub-process is no candidate: its event starts it.
			activities[n.node.ID] = true
			// A router job hands the candidates' documentation to its
			// worker (an LLM reads it as the tool's description).
			n.node.Documentation = documentation(n.el)
		}
		if n.supported && isGateway(n.node.Kind) && n.incomingRefs == 0 {
			p.problems.add(p.label(n.el), RuleAdHocContent,
				"%s has no incoming sequence flow; inside ad-hoc sub-process %q the router starts only activities, so nothing would ever reach it", n.node.Kind, c.id)
		}
	}
	if len(activities) == 0 {
		p.problems.add(c.id, RuleAdHocContent, "ad-hoc sub-process %q has no activity", c.id)
	}
	if owner == nil || owner.AdHoc == nil {
		return
	}
	var unknown []string
	for _, id := range owner.AdHoc.Sequence {
		if !activities[id] {
			unknown = append(unknown, fmt.Sprintf("%q", id))
		}
	}
	if len(unknown) > 0 {
		p.problems.add(c.id, RuleMissingReference, "gobpm:sequence names %s, which %s not an activity directly inside ad-hoc sub-process %q",
			strings.Join(unknown, ", "), map[bool]string{true: "is", false: "are"}[len(unknown) == 1], c.id)
	}
}

// isActivityTag reports whether a flow node tag is an activity (supported
// or not).
func isActivityTag(tag string) bool {
	switch tag {
	case "task", "manualTask", "scriptTask", "serviceTask", "sendTask", "userTask", "receiveTask", "businessRuleTask",
		"callActivity", "subProcess", "adHocSubProcess", "transaction":
		return true
	}
	return false
}

// isGateway reports whether k is a gateway kind.
func isGateway(k NodeKind) bool {
	switch k {
	case KindExclusiveGateway, KindParallelGateway, KindInclusiveGateway, KindEventBasedGateway:
		return true
	}
	return false
}

// documentation returns the text of e's documentation elements, trimmed
// and joined by blank lines ("" when it has none).
func documentation(e *etree.Element) string {
	var parts []string
	for _, c := range e.ChildElements() {
		if c.Tag == "documentation" {
			if t := strings.TrimSpace(c.Text()); t != "" {
				parts = append(parts, t)
			}
		}
	}
	return strings.Join(parts, "\n\n")
}
