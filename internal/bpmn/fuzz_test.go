package bpmn

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// FuzzParse checks that Parse never panics, that every failure is a
// *ValidationError with ruled problems, and that every accepted model is
// wired consistently. Seeds live in testdata/fuzz/FuzzParse.
func FuzzParse(f *testing.F) {
	f.Add([]byte(`<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL"><process id="p"><startEvent id="s"/></process></definitions>`))
	f.Add([]byte(`<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:gobpm="urn:gobpm:1" xmlns:c="http://camunda.org/schema/1.0/bpmn" xmlns:z="http://camunda.org/schema/zeebe/1.0"><process id="p">` +
		`<startEvent id="s"><extensionElements><z:ioMapping><z:output source="=1" target="a.b"/></z:ioMapping></extensionElements></startEvent>` +
		`<task id="t"><extensionElements><c:inputOutput><c:inputParameter name="x"><c:list><c:value>${a}</c:value><c:map><c:entry key="k">v</c:entry></c:map></c:list></c:inputParameter><c:outputParameter name="y">Hi ${x}</c:outputParameter></c:inputOutput></extensionElements></task>` +
		`<callActivity id="c" calledElement="${k}" c:calledElementBinding="versionTag" c:calledElementVersionTag="v"><extensionElements><c:in variables="all"/><c:in businessKey="${b}"/><c:out source="r" target="q" local="true"/><gobpm:input source="=1" target="i"/></extensionElements></callActivity>` +
		`<endEvent id="e"/><sequenceFlow id="f1" sourceRef="s" targetRef="t"/><sequenceFlow id="f2" sourceRef="t" targetRef="c"/><sequenceFlow id="f3" sourceRef="c" targetRef="e"/></process></definitions>`))
	// Camunda's small gaps: scripts, job-worker script
	// tasks, headers, properties, job type expressions, the placeholder.
	f.Add([]byte(`<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:c="http://camunda.org/schema/1.0/bpmn" xmlns:z="http://camunda.org/schema/zeebe/1.0"><process id="p" c:jobPriority="1">` +
		`<startEvent id="s" c:asyncAfter="true"/><scriptTask id="a"><extensionElements><z:script expression="=1" resultVariable="r"/></extensionElements></scriptTask>` +
		`<scriptTask id="b"><extensionElements><z:taskDefinition type="=&quot;t-&quot; + r" retries=""/><z:taskHeaders><z:header key="k" value="v"/></z:taskHeaders></extensionElements></scriptTask>` +
		`<serviceTask id="x" c:type="external" c:topic="t"><extensionElements><c:properties><c:property name="p" value="q"/></c:properties></extensionElements><property id="ph" name="__targetRef_placeholder"/></serviceTask>` +
		`<endEvent id="e"/><sequenceFlow id="f1" sourceRef="s" targetRef="a"/><sequenceFlow id="f2" sourceRef="a" targetRef="b"/><sequenceFlow id="f3" sourceRef="b" targetRef="x"/><sequenceFlow id="f4" sourceRef="x" targetRef="e"/></process></definitions>`))
	f.Fuzz(func(t *testing.T, data []byte) {
		defs, err := Parse(data)
		if err != nil {
			var verr *ValidationError
			if !errors.As(err, &verr) {
				t.Fatalf("error %T is not a *ValidationError: %v", err, err)
			}
			if len(verr.Problems) == 0 {
				t.Fatal("ValidationError without problems")
			}
			for _, p := range verr.Problems {
				if p.Rule == "" || p.Detail == "" {
					t.Fatalf("problem without rule or detail: %+v", p)
				}
			}
			_ = verr.Error()
			return
		}
		if len(defs.Processes) == 0 {
			t.Fatal("accepted a document without processes")
		}
		for _, p := range defs.Processes {
			if len(p.Graph.Starts) == 0 && len(p.EventStarts) == 0 {
				t.Fatalf("process %q accepted without any start", p.ID)
			}
			for _, s := range p.EventStarts {
				if s.Kind != KindStartEvent || s.Event == nil || s.Parent != p.Graph {
					t.Fatalf("event start %q is not a triggered top-level start event", s.ID)
				}
			}
			checkGraph(t, p, p.Graph)
			if p.IO != nil {
				checkIO(t, p.ID, p.IO)
			}
			if p.GlobalTask && (len(p.Graph.Nodes) != 3 || p.Node(p.ID) == nil || !p.Executable) {
				t.Fatalf("global task process %q: nodes %v", p.ID, ids(p.Graph.Nodes))
			}
		}
	})
}

// checkIO asserts an accepted ioSpecification binds distinct, non-empty names.
func checkIO(t *testing.T, owner string, io *IOSpec) {
	t.Helper()
	for _, ps := range [][]DataParam{io.Inputs, io.Outputs} {
		seen := map[string]bool{}
		for _, q := range ps {
			if q.Name == "" || seen[q.Name] {
				t.Fatalf("%s: ioSpecification parameter %q empty or repeated", owner, q.Name)
			}
			seen[q.Name] = true
		}
	}
}

// checkGraph asserts the wiring invariants of an accepted graph.
func checkGraph(t *testing.T, p *Process, g *Graph) {
	t.Helper()
	switch {
	case g.Owner != nil && g.Owner.TriggeredByEvent:
		checkEventSub(t, g.Owner)
	case g.Owner != nil && g.Owner.Kind == KindAdHocSubProcess:
		checkAdHoc(t, g.Owner)
	case len(g.Starts) == 0 && g.Owner != nil:
		t.Fatal("accepted sub-process graph without starts")
	}
	for _, es := range g.EventSubs {
		if !es.TriggeredByEvent || es.Parent != g {
			t.Fatalf("EventSubs holds %q, not an event sub-process of this graph", es.ID)
		}
	}
	subs := 0
	for _, s := range g.Starts {
		if s.Kind == KindStartEvent && s.Event != nil {
			t.Fatalf("triggered start %q in Graph.Starts", s.ID)
		}
		if s.Kind == KindBoundaryEvent || s.Kind == KindIntermediateCatchEvent || s.Kind == KindIntermediateThrowEvent {
			t.Fatalf("event %q seeded", s.ID)
		}
	}
	for _, f := range g.Flows {
		if f.Source == nil || f.Target == nil || f.Source.Parent != g || f.Target.Parent != g {
			t.Fatalf("flow %q is not wired inside its graph", f.ID)
		}
	}
	for _, n := range g.Nodes {
		if n.Parent != g || p.Node(n.ID) != n {
			t.Fatalf("node %q: wrong parent or index", n.ID)
		}
		if n.Default != nil && n.Default.Source != n {
			t.Fatalf("node %q: default is not outgoing", n.ID)
		}
		if (n.Kind == KindSubProcess || n.Kind == KindAdHocSubProcess) != (n.Sub != nil) {
			t.Fatalf("node %q: Sub does not match kind", n.ID)
		}
		if (n.Kind == KindBusinessRuleTask) != (n.Decision != nil) {
			t.Fatalf("node %q: Decision does not match kind", n.ID)
		}
		if d := n.Decision; d != nil && (d.Ref == "" || isExpression(d.Ref) || !slices.Contains(decisionMaps, d.Map)) {
			t.Fatalf("node %q: decision %+v", n.ID, d)
		}
		if n.TriggeredByEvent {
			subs++
		}
		checkNode(t, n)
		if n.Sub != nil {
			if n.Sub.Owner != n {
				t.Fatalf("node %q: sub owner", n.ID)
			}
			checkGraph(t, p, n.Sub)
		}
	}
	if subs != len(g.EventSubs) {
		t.Fatalf("graph has %d event sub-processes, EventSubs lists %d", subs, len(g.EventSubs))
	}
}

// checkAdHoc asserts the invariants of an accepted ad-hoc sub-process
// (docs/scopes.md#ad-hoc-sub-processes): a router with what it needs, no seeding, no start or end
// events, at least one activity, a sequence of its own inner activities.
func checkAdHoc(t *testing.T, n *Node) {
	t.Helper()
	a := n.AdHoc
	if a == nil || n.TriggeredByEvent || len(n.Sub.Starts) != 0 || len(n.Sub.EventSubs) != 0 {
		t.Fatalf("ad-hoc %q: AdHoc %+v, seeded %v, event subs %d", n.ID, a, ids(n.Sub.Starts), len(n.Sub.EventSubs))
	}
	switch a.Router {
	case RouterStandard:
		if a.RouterExpr != nil || a.Sequence != nil {
			t.Fatalf("ad-hoc %q: standard router with extras %+v", n.ID, a)
		}
	case RouterExpression:
		if a.RouterExpr == nil || a.Sequence != nil {
			t.Fatalf("ad-hoc %q: expression router %+v", n.ID, a)
		}
	case RouterSequence:
		if a.RouterExpr != nil || len(a.Sequence) == 0 {
			t.Fatalf("ad-hoc %q: sequence router %+v", n.ID, a)
		}
		seen := map[string]bool{}
		for _, id := range a.Sequence {
			m := n.Sub.find(id)
			if m == nil || m.Parent != n.Sub || !m.IsActivity() || seen[id] {
				t.Fatalf("ad-hoc %q: sequence entry %q is not a distinct inner activity", n.ID, id)
			}
			seen[id] = true
		}
	default:
		t.Fatalf("ad-hoc %q: router %q", n.ID, a.Router)
	}
	activities := 0
	for _, m := range n.Sub.Nodes {
		switch {
		case m.Kind == KindStartEvent || m.Kind == KindEndEvent || m.Kind == KindCallActivity:
			t.Fatalf("ad-hoc %q holds %s %q", n.ID, m.Kind, m.ID)
		case m.IsActivity():
			activities++
		}
	}
	if activities == 0 {
		t.Fatalf("ad-hoc %q without activities", n.ID)
	}
}

// checkLoop asserts the invariants of an accepted loop.
func checkLoop(t *testing.T, n *Node) {
	t.Helper()
	l := n.Loop
	if !n.IsActivity() || n.TriggeredByEvent {
		t.Fatalf("loop on %s %q", n.Kind, n.ID)
	}
	if l.Standard {
		if l.LoopMaximum < 0 || l.Cardinality != nil || l.Collection != nil || l.ElementVariable != "" || l.OutputCollection != "" || l.CompletionCondition != nil {
			t.Fatalf("standard loop on %q: %+v", n.ID, l)
		}
		return
	}
	if (l.Cardinality == nil) == (l.Collection == nil) || l.LoopCondition != nil {
		t.Fatalf("multi-instance on %q: cardinality %v, collection %v", n.ID, l.Cardinality, l.Collection)
	}
	if (l.ElementVariable != "" && l.Collection == nil) || (l.OutputCollection == "") != (l.OutputElement == "") {
		t.Fatalf("multi-instance on %q: %+v", n.ID, l)
	}
}

// checkEventSub asserts the invariants of an accepted event sub-process.
func checkEventSub(t *testing.T, n *Node) {
	t.Helper()
	if n.Kind != KindSubProcess || len(n.Incoming) != 0 || len(n.Outgoing) != 0 || len(n.Boundaries) != 0 {
		t.Fatalf("event sub-process %q: kind %s, wired or with boundaries", n.ID, n.Kind)
	}
	if len(n.Sub.Starts) != 0 {
		t.Fatalf("event sub-process %q is seeded: %v", n.ID, ids(n.Sub.Starts))
	}
	s := n.Trigger
	if s == nil || s.Kind != KindStartEvent || s.Parent != n.Sub || s.Event == nil || !contains(eventSubStartTriggers, s.Event.Kind) {
		t.Fatalf("event sub-process %q: bad trigger %+v", n.ID, s)
	}
	if s.Event.Kind == TriggerError && !n.Interrupting {
		t.Fatalf("event sub-process %q: non-interrupting error start", n.ID)
	}
}

// checkNode asserts the per-kind invariants of an accepted node.
func checkNode(t *testing.T, n *Node) {
	t.Helper()
	switch n.Kind {
	case KindServiceTask, KindSendTask:
		if n.Job == nil {
			t.Fatalf("task %q without a job", n.ID)
		}
	case KindScriptTask:
		if n.Job != nil && n.Script != nil {
			t.Fatalf("script task %q is both a script and a job", n.ID)
		}
	}
	if j := n.Job; j != nil {
		// A job's type is a literal or a compiled expression (its text kept);
		// its headers have keys.
		if j.Type == "" || j.Retries < 0 || isExpression(j.Type) != (j.TypeExpr != nil) {
			t.Fatalf("%s %q: job %+v", n.Kind, n.ID, j)
		}
		for k := range j.Headers {
			if strings.TrimSpace(k) == "" {
				t.Fatalf("%s %q: a header without a key: %v", n.Kind, n.ID, j.Headers)
			}
		}
	}
	switch n.Kind {
	case KindUserTask:
		if n.UserTask == nil {
			t.Fatalf("user task %q without UserTask", n.ID)
		}
	case KindCallActivity:
		c := n.Call
		if c == nil || c.CalledElement == "" || isExpression(c.CalledElement) != (c.CalledExpr != nil) || c.Version < 0 {
			t.Fatalf("call activity %q: call %+v", n.ID, c)
		}
		switch c.Binding {
		case BindingLatest, BindingDeployment:
		case BindingVersion:
			if c.Version == 0 && c.VersionExpr == nil {
				t.Fatalf("call activity %q: binding version without a version", n.ID)
			}
		case BindingVersionTag:
			if c.VersionTag == "" && c.VersionTagExpr == nil {
				t.Fatalf("call activity %q: binding versionTag without a tag", n.ID)
			}
		default:
			t.Fatalf("call activity %q: binding %q", n.ID, c.Binding)
		}
		for _, v := range append(slices.Clone(c.In), c.Out...) {
			if !v.All && (v.Target == "" || (v.Source == "") == (v.SourceExpr == nil)) {
				t.Fatalf("call activity %q: camunda:in/out %+v", n.ID, v)
			}
		}
		if io := c.IO; io != nil {
			checkIO(t, n.ID, io)
		}
	case KindReceiveTask, KindIntermediateCatchEvent, KindBoundaryEvent:
		if n.Event == nil {
			t.Fatalf("%s %q without event definition", n.Kind, n.ID)
		}
	}
	if (n.Kind == KindAdHocSubProcess) != (n.AdHoc != nil) {
		t.Fatalf("node %q: AdHoc does not match kind %s", n.ID, n.Kind)
	}
	if n.Loop != nil {
		checkLoop(t, n)
	}
	if m := n.Mappings; m != nil {
		if len(m.Inputs)+len(m.Outputs) == 0 {
			t.Fatalf("node %q: empty mappings", n.ID)
		}
		for _, mp := range append(slices.Clone(m.Inputs), m.Outputs...) {
			if mp.Target == "" || (m.Style == MappingCamunda7 && mp.Path != nil) {
				t.Fatalf("node %q: mapping %+v", n.ID, mp)
			}
			checkValue(t, n.ID, mp.Value)
		}
	}
	if n.Event != nil && n.Event.Kind == TriggerTimer && n.Event.Timer == nil {
		t.Fatalf("node %q: timer event without TimerDef", n.ID)
	}
	if n.Event != nil && n.Event.Kind == TriggerConditional && n.Event.Condition == nil {
		t.Fatalf("node %q: conditional event without condition", n.ID)
	}
	if n.Kind == KindBoundaryEvent {
		h := n.AttachedTo
		if h == nil || h.Parent != n.Parent || !h.IsActivity() || len(n.Incoming) != 0 {
			t.Fatalf("boundary %q: host %v", n.ID, h)
		}
		found := false
		for _, b := range h.Boundaries {
			found = found || b == n
		}
		if !found {
			t.Fatalf("boundary %q missing from its host's Boundaries", n.ID)
		}
		if n.Event.Kind == TriggerError && !n.CancelActivity {
			t.Fatalf("non-interrupting error boundary %q", n.ID)
		}
	}
	for _, b := range n.Boundaries {
		if b.AttachedTo != n {
			t.Fatalf("node %q lists boundary %q attached elsewhere", n.ID, b.ID)
		}
	}
	if n.Kind == KindEventBasedGateway {
		if len(n.Outgoing) < 2 {
			t.Fatalf("event gateway %q with %d outgoing flows", n.ID, len(n.Outgoing))
		}
		for _, f := range n.Outgoing {
			if f.Condition != nil || !eventGatewayTarget(f.Target) || len(f.Target.Incoming) != 1 {
				t.Fatalf("event gateway %q: bad flow %q", n.ID, f.ID)
			}
		}
	}
}

// checkValue asserts a mapping value holds what its kind says.
func checkValue(t *testing.T, node string, v Value) {
	t.Helper()
	switch v.Kind {
	case ValueNull, ValueConst:
	case ValueExpr:
		if v.Expr == nil {
			t.Fatalf("node %q: expression value without expression", node)
		}
	case ValueList:
		for _, item := range v.List {
			checkValue(t, node, item)
		}
	case ValueMap:
		for _, e := range v.Map {
			checkValue(t, node, e.Value)
		}
	default:
		t.Fatalf("node %q: value kind %d", node, v.Kind)
	}
}
