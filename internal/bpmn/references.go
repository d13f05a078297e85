package bpmn

import "strings"

// ReferenceKind says what kind of resource outside its own instance a
// process reaches at run time.
type ReferenceKind string

// The reference kinds.
const (
	// RefProcess is a process a call activity starts (and whose outputs
	// come back to the caller).
	RefProcess ReferenceKind = "process"
	// RefDecision is a decision a business rule task evaluates.
	RefDecision ReferenceKind = "decision"
	// RefJobType is a job type the process creates jobs of: service and
	// send tasks, message throw and end events (gobpm throws a message
	// through a job, whose worker publishes it), job-worker script tasks
	// and the router of a job-routed ad-hoc sub-process.
	RefJobType ReferenceKind = "job-type"
	// RefSignal is a signal a throw or end event broadcasts to every
	// instance (and starts the processes it starts).
	RefSignal ReferenceKind = "signal"
)

// Reference is one thing a process reaches outside its own instance.
type Reference struct {
	// Element is the id of the node that reaches it.
	Element string
	// ElementKind is that node's kind.
	ElementKind NodeKind
	// Kind and Key name what is reached: a process or decision key, a job
	// type, a signal name. For a dynamic reference Key is the text as
	// written (an expression, or a namespace-qualified calledElement).
	Kind ReferenceKind
	Key  string
	// Dynamic marks a reference known only at run time: a callee, job type
	// or decision given as an expression, or a calledElement qualified by a
	// namespace prefix (the runtime's Resolver maps it when it is called).
	Dynamic bool
}

// References lists everything p reaches outside its own instance, in
// document order with nested graphs depth first: the processes it calls,
// the decisions it evaluates, the job types it creates and the signals it
// throws. It reads the parsed model, so every vendor spelling (gobpm:type,
// zeebe:taskDefinition type, camunda:topic; calledElement,
// zeebe:calledElement processId; gobpm:decisionRef, zeebe:calledDecision
// decisionId, camunda:decisionRef) is covered by the parser's reading of
// it. Errors, escalations, compensation, links and messages caught are
// internal to the instance or arrive from outside, and are not listed.
func (p *Process) References() []Reference {
	var out []Reference
	if p == nil || p.Graph == nil {
		return nil
	}
	p.Graph.references(&out)
	return out
}

// references appends the references of g's nodes (nested graphs included).
func (g *Graph) references(out *[]Reference) {
	for _, n := range g.Nodes {
		n.references(out)
		if n.Sub != nil {
			n.Sub.references(out)
		}
	}
}

// references appends the references of n itself.
func (n *Node) references(out *[]Reference) {
	add := func(kind ReferenceKind, key string, dynamic bool) {
		*out = append(*out, Reference{Element: n.ID, ElementKind: n.Kind, Kind: kind, Key: key, Dynamic: dynamic})
	}
	if c := n.Call; c != nil {
		add(RefProcess, c.CalledElement, c.Dynamic())
	}
	if d := n.Decision; d != nil {
		add(RefDecision, d.Ref, false) // decisionRef is a literal key (tasks.go)
	}
	if j := n.Job; j != nil {
		add(RefJobType, j.Type, j.TypeExpr != nil)
	}
	if a := n.AdHoc; a != nil && a.Router == RouterJob {
		add(RefJobType, a.RouterType, false)
	}
	if n.Kind == KindIntermediateThrowEvent || n.Kind == KindEndEvent {
		for _, ev := range n.Event.Triggers() {
			if ev.Kind == TriggerSignal {
				add(RefSignal, ev.SignalName, false) // signal names are literal (literalName)
			}
		}
	}
}

// Dynamic reports whether the callee is known only at run time: given as
// an expression, or qualified by a namespace prefix (the runtime's
// Resolver maps it to a key when the call activity is entered).
func (c *CallDef) Dynamic() bool {
	return c.CalledExpr != nil || strings.Contains(c.CalledElement, ":")
}
