package bpmn

import (
	"strconv"
	"strings"

	"github.com/beevik/etree"
	"github.com/gobpm/gobpm/internal/expr"
)

// ListenerEvent is the lifecycle point of an element an execution
// listener runs at (Camunda 8.6's zeebe:executionListener eventType).
type ListenerEvent string

// The execution listener events: ListenerStart runs before the element
// starts, ListenerEnd after it completes.
const (
	ListenerStart ListenerEvent = "start"
	ListenerEnd   ListenerEvent = "end"
)

// Listener is one execution listener of an element: a job of type Type
// (or TypeExpr, evaluated when the job is created) with Retries attempts,
// run at Event, the element waiting for it. An element's listeners run
// in document order, each after the one before completes.
type Listener struct {
	Event ListenerEvent
	// Type is the job type, "" when TypeExpr gives it.
	Type string
	// TypeExpr is set when the type is an expression (=… or ${…}).
	TypeExpr expr.Expression
	// Retries is the listener job's retry budget.
	Retries int
}

// executionListeners reads the zeebe:executionListener children of c, a
// zeebe:executionListeners element inside the extension elements of
// owner, reporting each malformed one. retries="" (as the Camunda
// Modeler writes for a blank field) takes DefaultJobRetries, as Zeebe
// does.
//
// The engine does not run execution listeners yet, so vendorExtensions
// refuses every element declaring some after reading them here: the
// model's author sees each malformed listener at once, and accepting the
// model would silently skip the listeners' work.
func (p *parser) executionListeners(owner, c *etree.Element) []Listener {
	label := p.label(owner)
	var out []Listener
	for _, l := range c.ChildElements() {
		if l.NamespaceURI() != NamespaceZeebe || l.Tag != "executionListener" {
			p.problems.add(label, RuleUnsupported, "%s inside zeebe:executionListeners on %s is not supported: only zeebe:executionListener", qualified(l), owner.Tag)
			continue
		}
		li := Listener{Retries: DefaultJobRetries}
		ok := true
		switch ev := ListenerEvent(strings.TrimSpace(attr(l, "eventType"))); ev {
		case ListenerStart, ListenerEnd:
			li.Event = ev
		case "":
			ok = false
			p.problems.add(label, RuleMissingAttribute, "zeebe:executionListener on %s needs an eventType (start or end)", owner.Tag)
		default:
			ok = false
			p.problems.add(label, RuleInvalidAttribute, "zeebe:executionListener eventType=%q on %s: want start or end", ev, owner.Tag)
		}
		typ := strings.TrimSpace(attr(l, "type"))
		switch {
		case typ == "":
			ok = false
			p.problems.add(label, RuleMissingAttribute, "zeebe:executionListener on %s needs a job type (type)", owner.Tag)
		case isExpression(typ):
			if b := p.binding(label, source{"zeebe:executionListener type", typ}); b != nil {
				li.TypeExpr = b.Expr
			} else {
				ok = false
			}
		default:
			li.Type = typ
		}
		if r := strings.TrimSpace(attr(l, "retries")); r != "" {
			n, err := strconv.Atoi(r)
			if err != nil || n < 0 {
				ok = false
				p.problems.add(label, RuleInvalidAttribute, "zeebe:executionListener retries=%q on %s: want an integer >= 0", r, owner.Tag)
			}
			li.Retries = n
		}
		if ok {
			out = append(out, li)
		}
	}
	return out
}
