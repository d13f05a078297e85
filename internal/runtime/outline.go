package runtime

import (
	"context"
	"regexp"
	"strings"

	"github.com/gobpm/gobpm/internal/bpmn"
)

// Element kinds an outline names: the BPMN element's local name, as
// bpmn.NodeKind spells it (a manualTask reads "task").
const (
	ElementStartEvent      = string(bpmn.KindStartEvent)
	ElementUserTask        = string(bpmn.KindUserTask)
	ElementCallActivity    = string(bpmn.KindCallActivity)
	ElementAdHocSubProcess = string(bpmn.KindAdHocSubProcess)
	ElementTransaction     = string(bpmn.KindTransaction)
)

// Outline is what pages show of a deployed process version's model, read
// from the runtime's parsed and cached process: its elements and sequence
// flows by id. It is a copy: changing it changes nothing else.
type Outline struct {
	// Key and Version name the process version; Name is the process's name.
	Key     string
	Version int
	Name    string
	// Elements are the flow nodes by id, nested ones included.
	Elements map[string]OutlineElement
	// Flows are the sequence flows by id, nested ones included.
	Flows map[string]OutlineFlow
}

// OutlineElement is one flow node of an outline.
type OutlineElement struct {
	ID, Name string
	// Kind is the element's kind (Element… constants, or another
	// bpmn.NodeKind word such as "serviceTask").
	Kind string
	// FormRef is the id of the Camunda Form a user task or start event
	// links (zeebe:formDefinition formId, gobpm:formRef, camunda:formRef,
	// camunda:formKey, in that precedence), "" when none.
	FormRef string
	// Outputs are the variables a user task's output mappings read from
	// the completion as a whole ("=name" sources of zeebe:output or
	// gobpm:output), in document order.
	Outputs []string
	// Called is a call activity's static calledElement ("" when it is an
	// expression).
	Called string
	// Contents are the ids of the activities directly inside an ad-hoc
	// sub-process, in document order.
	Contents []string
}

// OutlineFlow is one sequence flow of an outline: its id, name and the ids
// of the elements it joins.
type OutlineFlow struct {
	ID, Name, Source, Target string
}

// Names maps the ids of the process, its elements and its flows to their
// names (those that have one).
func (o Outline) Names() map[string]string {
	out := make(map[string]string, len(o.Elements)+len(o.Flows)+1)
	if o.Key != "" && o.Name != "" {
		out[o.Key] = o.Name
	}
	for id, f := range o.Flows {
		if f.Name != "" {
			out[id] = f.Name
		}
	}
	for id, e := range o.Elements {
		if e.Name != "" {
			out[id] = e.Name
		}
	}
	return out
}

// OfKind returns the ids of the elements of a kind (Element… constants).
func (o Outline) OfKind(kind string) map[string]bool {
	out := map[string]bool{}
	for id, e := range o.Elements {
		if e.Kind == kind {
			out[id] = true
		}
	}
	return out
}

// Outline returns the outline of a process version (0: the latest), built
// from the parsed process the runtime caches; ENOTFOUND for an unknown
// process or version.
func (r *Runtime) Outline(ctx context.Context, key string, version int) (Outline, error) {
	proc, ref, err := r.process(ctx, key, version)
	if err != nil {
		return Outline{}, notFoundOr(err, "process %s version %d not found", key, version)
	}
	return outlineOf(proc, ref), nil
}

// outlineOf copies what an outline shows out of a parsed process.
func outlineOf(proc *bpmn.Process, ref DefinitionRef) Outline {
	o := Outline{Key: ref.Key, Version: ref.Version, Name: proc.Name,
		Elements: map[string]OutlineElement{}, Flows: map[string]OutlineFlow{}}
	o.addGraph(proc.Graph)
	return o
}

// addGraph adds the nodes and flows of a graph and of the graphs nested
// in it.
func (o *Outline) addGraph(g *bpmn.Graph) {
	if g == nil {
		return
	}
	for _, f := range g.Flows {
		of := OutlineFlow{ID: f.ID, Name: f.Name}
		if f.Source != nil {
			of.Source = f.Source.ID
		}
		if f.Target != nil {
			of.Target = f.Target.ID
		}
		o.Flows[f.ID] = of
	}
	for _, n := range g.Nodes {
		o.Elements[n.ID] = outlineElement(n)
		o.addGraph(n.Sub)
	}
}

// outlineElement copies what an outline shows of one node.
func outlineElement(n *bpmn.Node) OutlineElement {
	e := OutlineElement{ID: n.ID, Name: n.Name, Kind: string(n.Kind), FormRef: n.FormRef}
	if n.Kind == bpmn.KindUserTask {
		e.Outputs = completionOutputs(n.Mappings)
	}
	if n.Call != nil && n.Call.CalledExpr == nil {
		e.Called = n.Call.CalledElement
	}
	if n.AdHoc != nil && n.Sub != nil {
		for _, c := range n.Sub.Nodes {
			if c.IsActivity() {
				e.Contents = append(e.Contents, c.ID)
			}
		}
	}
	return e
}

// identifier matches a FEEL name an output mapping reads as a whole.
var identifier = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// completionOutputs are the variables Zeebe-style output mappings read as
// a whole (source "=name"): what completing a user task should supply.
func completionOutputs(m *bpmn.Mappings) []string {
	if m == nil || m.Style != bpmn.MappingZeebe {
		return nil
	}
	var out []string
	for _, o := range m.Outputs {
		if o.Value.Kind != bpmn.ValueExpr || o.Value.Expr == nil {
			continue
		}
		src := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(o.Value.Expr.Source()), "="))
		if identifier.MatchString(src) {
			out = append(out, src)
		}
	}
	return out
}
