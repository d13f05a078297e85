package bpmn

import "github.com/gobpm/gobpm/internal/expr"

// NodeKind is the executable kind of a flow node.
type NodeKind string

// The node kinds the engine executes. Every other BPMN element is rejected at
// deployment as "not supported yet".
const (
	KindStartEvent       NodeKind = "startEvent"
	KindEndEvent         NodeKind = "endEvent"
	KindTask             NodeKind = "task"
	KindScriptTask       NodeKind = "scriptTask"
	KindExclusiveGateway NodeKind = "exclusiveGateway"
	KindParallelGateway  NodeKind = "parallelGateway"
	KindSubProcess       NodeKind = "subProcess"
)

// Definitions is one parsed and validated BPMN document.
type Definitions struct {
	// ID is the id attribute of <definitions> (may be empty).
	ID string
	// TargetNamespace is the targetNamespace attribute of <definitions>.
	TargetNamespace string
	// Processes holds every executable and non-executable process in document order.
	Processes []*Process
	// Imports records <import> elements (namespace, location); they are not resolved.
	Imports []Import
}

// Import is a recorded <import> element.
type Import struct {
	Namespace  string
	Location   string
	ImportType string
}

// Process is a validated process graph. It is immutable after parsing.
type Process struct {
	// ID is the process id: the registry key.
	ID string
	// Name is the optional human name.
	Name string
	// Executable reports isExecutable="true".
	Executable bool
	// Graph is the process's top-level flow-element container.
	Graph *Graph

	// index maps every node id (nested graphs included) to its node; Parse
	// fills it. A Process built by hand has none and Node searches instead.
	index map[string]*Node
}

// Graph is a flow-element container: a process or an embedded sub-process.
type Graph struct {
	// Owner is the sub-process node that holds this graph, nil for a process.
	Owner *Node
	// Nodes are the flow nodes directly inside the container, in document order.
	Nodes []*Node
	// Flows are the sequence flows directly inside the container, in document order.
	Flows []*Flow
	// Starts are the nodes that receive a token when the container opens:
	// the single None start event, or (flow-less seeding) every activity and
	// gateway without incoming flows.
	Starts []*Node
	// DataNames are the variable names declared by dataObject and property
	// elements of this container; writes to these names stay local to it.
	DataNames []string
}

// Node is one flow node. Fields that do not apply to its Kind are zero.
type Node struct {
	ID   string
	Name string
	Kind NodeKind
	// Parent is the container the node sits in.
	Parent *Graph
	// Incoming and Outgoing are the sequence flows in document order.
	Incoming []*Flow
	Outgoing []*Flow
	// Default is the default flow of an exclusive gateway or activity, or nil.
	Default *Flow
	// Terminate marks an end event with a terminateEventDefinition.
	Terminate bool
	// Script is the compiled body of a script task.
	Script expr.Expression
	// ResultVariable is where a script task stores its value ("" = discard).
	ResultVariable string
	// Sub is the inner graph of a sub-process.
	Sub *Graph
}

// Flow is a sequence flow.
type Flow struct {
	ID     string
	Name   string
	Source *Node
	Target *Node
	// Condition is the compiled conditionExpression, or nil.
	Condition expr.Expression
}

// Node returns the node with the given id anywhere in the process (nested
// graphs included), or nil.
func (p *Process) Node(id string) *Node {
	if p.index != nil {
		return p.index[id]
	}
	return p.Graph.find(id)
}

func (g *Graph) find(id string) *Node {
	for _, n := range g.Nodes {
		if n.ID == id {
			return n
		}
		if n.Sub != nil {
			if m := n.Sub.find(id); m != nil {
				return m
			}
		}
	}
	return nil
}

// IsActivity reports whether the node is an activity (task or sub-process).
func (n *Node) IsActivity() bool {
	switch n.Kind {
	case KindTask, KindScriptTask, KindSubProcess:
		return true
	}
	return false
}
