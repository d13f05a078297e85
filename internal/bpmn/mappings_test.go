package bpmn

import (
	"fmt"
	"strings"
	"testing"
)

// vendorDoc wraps a process body in definitions declaring the gobpm,
// camunda and zeebe namespaces.
func vendorDoc(body string) []byte {
	return []byte(`<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:gobpm="urn:gobpm:1"
  xmlns:camunda="http://camunda.org/schema/1.0/bpmn" xmlns:zeebe="http://camunda.org/schema/zeebe/1.0" id="d" targetNamespace="urn:t">
<message id="m" name="m"><extensionElements><zeebe:subscription correlationKey="=key"/></extensionElements></message>
<error id="err" errorCode="E"/>
<process id="p" isExecutable="true">` + body + `</process></definitions>`)
}

// describeValue renders a mapping value for comparison: null, "const",
// expr(source), [a, b], {k: v}.
func describeValue(v Value) string {
	switch v.Kind {
	case ValueNull:
		return "null"
	case ValueConst:
		return fmt.Sprintf("%q", v.Const)
	case ValueExpr:
		return "expr(" + v.Expr.Source() + ")"
	case ValueList:
		parts := make([]string, len(v.List))
		for i, item := range v.List {
			parts[i] = describeValue(item)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case ValueMap:
		parts := make([]string, len(v.Map))
		for i, e := range v.Map {
			parts[i] = e.Key + ": " + describeValue(e.Value)
		}
		return "{" + strings.Join(parts, ", ") + "}"
	}
	return "?"
}

// describeMappings renders mappings as "style in: target=value; out: …".
func describeMappings(m *Mappings) string {
	if m == nil {
		return "none"
	}
	side := func(ms []Mapping) string {
		parts := make([]string, len(ms))
		for i, mp := range ms {
			parts[i] = strings.Join(append([]string{mp.Target}, mp.Path...), ".") + "=" + describeValue(mp.Value)
		}
		return strings.Join(parts, "; ")
	}
	return fmt.Sprintf("%s in: %s | out: %s", m.Style, side(m.Inputs), side(m.Outputs))
}

func TestParseMappings(t *testing.T) {
	t.Parallel()
	const body = `<startEvent id="s"><extensionElements><zeebe:ioMapping><zeebe:output source="=now()" target="startedAt"/></zeebe:ioMapping></extensionElements></startEvent>
<serviceTask id="c7" camunda:type="external" camunda:topic="t"><extensionElements><camunda:inputOutput>
  <camunda:inputParameter name="text">  foo  </camunda:inputParameter>
  <camunda:inputParameter name="empty"/>
  <camunda:inputParameter name="expr">${amount * 2}</camunda:inputParameter>
  <camunda:inputParameter name="greeting">Hello ${name}</camunda:inputParameter>
  <camunda:inputParameter name="items"><camunda:list>
    <camunda:value>a</camunda:value><camunda:value>${1 + 1}</camunda:value><camunda:value/>
    <camunda:list><camunda:value>1</camunda:value></camunda:list>
  </camunda:list></camunda:inputParameter>
  <camunda:inputParameter name="dict"><camunda:map>
    <camunda:entry key="foo">bar</camunda:entry>
    <camunda:entry key="nested"><camunda:map><camunda:entry key="n">${name}</camunda:entry></camunda:map></camunda:entry>
  </camunda:map></camunda:inputParameter>
  <camunda:outputParameter name="out.name">${result}</camunda:outputParameter>
</camunda:inputOutput></extensionElements></serviceTask>
<userTask id="c8"><extensionElements><zeebe:ioMapping>
  <zeebe:input source="= customer.name" target="sender.name"/>
  <zeebe:input source="demo@example.com" target="sender.email"/>
  <zeebe:input target="nothing"/>
  <zeebe:output source="=status" target="order.status"/>
</zeebe:ioMapping></extensionElements></userTask>
<scriptTask id="own" scriptFormat="feel" gobpm:resultVariable="r"><extensionElements>
  <gobpm:input source="=a + 1" target="b"/>
  <gobpm:output source="=r" target="result"/>
  <zeebe:ioMapping><zeebe:input source="=ignored" target="ignored"/></zeebe:ioMapping>
</extensionElements><script>b</script></scriptTask>
<subProcess id="sub"><extensionElements><zeebe:ioMapping>
  <zeebe:input source="=1" target="local"/><zeebe:output source="=local" target="outer"/>
</zeebe:ioMapping></extensionElements><startEvent id="ss"/><endEvent id="se"/><sequenceFlow id="sf" sourceRef="ss" targetRef="se"/></subProcess>
<intermediateCatchEvent id="catch"><extensionElements><zeebe:ioMapping>
  <zeebe:input source="=orderId" target="key"/><zeebe:output source="=payload.amount" target="amount"/>
</zeebe:ioMapping></extensionElements><messageEventDefinition messageRef="m"/></intermediateCatchEvent>
<boundaryEvent id="onMsg" attachedToRef="c8" cancelActivity="false"><extensionElements><zeebe:ioMapping>
  <zeebe:output source="=reason" target="cancelReason"/>
</zeebe:ioMapping></extensionElements><messageEventDefinition messageRef="m"/></boundaryEvent>
<callActivity id="call" calledElement="child"><extensionElements><camunda:inputOutput>
  <camunda:inputParameter name="x">${y}</camunda:inputParameter>
</camunda:inputOutput></extensionElements></callActivity>
<endEvent id="e"><extensionElements><camunda:inputOutput>
  <camunda:inputParameter name="bye">done</camunda:inputParameter>
</camunda:inputOutput></extensionElements></endEvent>
<endEvent id="e2"/>
<subProcess id="esp" triggeredByEvent="true"><extensionElements><zeebe:ioMapping>
  <zeebe:output source="=handled" target="handled"/>
</zeebe:ioMapping></extensionElements><startEvent id="es"><messageEventDefinition messageRef="m"/></startEvent><endEvent id="ee"/><sequenceFlow id="ef" sourceRef="es" targetRef="ee"/></subProcess>
<sequenceFlow id="f1" sourceRef="s" targetRef="c7"/><sequenceFlow id="f2" sourceRef="c7" targetRef="c8"/>
<sequenceFlow id="f3" sourceRef="c8" targetRef="own"/><sequenceFlow id="f4" sourceRef="own" targetRef="sub"/>
<sequenceFlow id="f5" sourceRef="sub" targetRef="catch"/><sequenceFlow id="f6" sourceRef="catch" targetRef="call"/>
<sequenceFlow id="f7" sourceRef="call" targetRef="e"/><sequenceFlow id="f8" sourceRef="onMsg" targetRef="e2"/>`
	defs, err := Parse(vendorDoc(body))
	if err != nil {
		t.Fatal(err)
	}
	p := defs.Processes[0]
	tests := map[string]string{
		"c7": `camunda7 in: text="foo"; empty=null; expr=expr(${amount * 2}); greeting=expr(Hello ${name}); ` +
			`items=["a", expr(${1 + 1}), null, ["1"]]; dict={foo: "bar", nested: {n: expr(${name})}} | out: out.name=expr(${result})`,
		"c8":    `zeebe in: sender.name=expr(= customer.name); sender.email="demo@example.com"; nothing=null | out: order.status=expr(=status)`,
		"own":   `zeebe in: b=expr(=a + 1) | out: result=expr(=r)`,
		"sub":   `zeebe in: local=expr(=1) | out: outer=expr(=local)`,
		"catch": `zeebe in: key=expr(=orderId) | out: amount=expr(=payload.amount)`,
		"onMsg": `zeebe in:  | out: cancelReason=expr(=reason)`,
		"call":  `camunda7 in: x=expr(${y}) | out: `,
		"e":     `camunda7 in: bye="done" | out: `,
		"esp":   `zeebe in:  | out: handled=expr(=handled)`,
		"e2":    "none",
		"s":     `zeebe in:  | out: startedAt=expr(=now())`,
	}
	for id, want := range tests {
		n := p.Node(id)
		if n == nil {
			t.Errorf("no node %s", id)
			continue
		}
		if got := describeMappings(n.Mappings); got != want {
			t.Errorf("%s mappings:\n got %s\nwant %s", id, got, want)
		}
	}
	// A camunda:outputParameter name is a plain variable name, dots included.
	if out := p.Node("c7").Mappings.Outputs[0]; out.Target != "out.name" || out.Path != nil {
		t.Errorf("Camunda 7 output target = %q %v", out.Target, out.Path)
	}
}

func TestParseMappingRefusals(t *testing.T) {
	t.Parallel()
	const flow = `<startEvent id="s"/><endEvent id="e"/><sequenceFlow id="f" sourceRef="s" targetRef="x"/><sequenceFlow id="g" sourceRef="x" targetRef="e"/>`
	io := func(inner string) string {
		return `<extensionElements><camunda:inputOutput>` + inner + `</camunda:inputOutput></extensionElements>`
	}
	zio := func(inner string) string {
		return `<extensionElements><zeebe:ioMapping>` + inner + `</zeebe:ioMapping></extensionElements>`
	}
	tests := []struct {
		name, body string
		want       []want
	}{
		{"script parameter", `<task id="x">` + io(`<camunda:inputParameter name="a"><camunda:script scriptFormat="groovy">1</camunda:script></camunda:inputParameter>`) + `</task>` + flow,
			[]want{{"x", RuleUnsupported, `camunda:script in camunda:inputParameter "a" on task is not supported: gobpm runs no JavaScript or Groovy; write the value as a ${…} expression (JUEL)`}}},
		{"script in a list", `<task id="x">` + io(`<camunda:outputParameter name="a"><camunda:list><camunda:script scriptFormat="js">1</camunda:script></camunda:list></camunda:outputParameter>`) + `</task>` + flow,
			[]want{{"x", RuleUnsupported, `camunda:script in item 1 of the camunda:list of camunda:outputParameter "a" on task`}}},
		{"script in a map", `<task id="x">` + io(`<camunda:inputParameter name="a"><camunda:map><camunda:entry key="k"><camunda:script scriptFormat="js">1</camunda:script></camunda:entry></camunda:map></camunda:inputParameter>`) + `</task>` + flow,
			[]want{{"x", RuleUnsupported, `camunda:script in entry "k" of the camunda:map of camunda:inputParameter "a"`}}},
		{"entry without key", `<task id="x">` + io(`<camunda:inputParameter name="a"><camunda:map><camunda:entry>v</camunda:entry></camunda:map></camunda:inputParameter>`) + `</task>` + flow,
			[]want{{"x", RuleMissingAttribute, "a camunda:entry in the camunda:map of camunda:inputParameter \"a\" on task needs a key"}}},
		{"parameter without name", `<task id="x">` + io(`<camunda:inputParameter>v</camunda:inputParameter>`) + `</task>` + flow,
			[]want{{"x", RuleMissingAttribute, "camunda:inputParameter on task needs a name"}}},
		{"bad JUEL", `<task id="x">` + io(`<camunda:inputParameter name="a">${b +}</camunda:inputParameter>`) + `</task>` + flow,
			[]want{{"x", RuleInvalidExpression, `camunda:inputParameter "a" "${b +}"`}}},
		{"bad FEEL", `<task id="x">` + zio(`<zeebe:input source="= b +" target="a"/>`) + `</task>` + flow,
			[]want{{"x", RuleInvalidExpression, `zeebe:input source for "a"`}}},
		{"malformed targets", `<task id="x">` + zio(`<zeebe:input source="=1" target="a."/><zeebe:input source="=1" target=".a"/><zeebe:output source="=1" target="a b"/><zeebe:output source="=1" target="a-b"/>`) + `</task>` + flow,
			[]want{
				{"x", RuleInvalidAttribute, `zeebe:input target "a." on task is not a variable name or a path of names`},
				{"x", RuleInvalidAttribute, `zeebe:input target ".a"`},
				{"x", RuleInvalidAttribute, `zeebe:output target "a b"`},
				{"x", RuleInvalidAttribute, `zeebe:output target "a-b"`},
			}},
		{"missing target", `<task id="x"><extensionElements><gobpm:output source="=1"/></extensionElements></task>` + flow,
			[]want{{"x", RuleMissingAttribute, "gobpm:output on task needs a target"}}},
		{"unknown child and attribute", `<task id="x">` + zio(`<zeebe:input source="=1" target="a" type="x"/><zeebe:header key="k"/>`) + `</task>` + flow,
			[]want{
				{"x", RuleUnsupported, `attribute "type" of zeebe:input on task is not supported`},
				{"x", RuleUnsupported, "zeebe:header in zeebe:ioMapping of task is not supported"},
			}},
		{"gobpm element with children", `<task id="x"><extensionElements><gobpm:input source="=1" target="a"><gobpm:extra/></gobpm:input></extensionElements></task>` + flow,
			[]want{{"x", RuleUnsupported, "gobpm:input on task has child elements"}}},
		{"unknown gobpm element", `<task id="x"><extensionElements><gobpm:mapping source="=1" target="a"/></extensionElements></task>` + flow,
			[]want{{"mapping (line 6)", RuleUnknownExtension, `unknown gobpm element "mapping"`}}},
		{"gateway", `<exclusiveGateway id="x">` + io(`<camunda:inputParameter name="a">1</camunda:inputParameter>`) + `</exclusiveGateway>` + flow,
			[]want{{"x", RuleUnsupported, "camunda:inputOutput on exclusiveGateway is not supported: variable mappings belong on activities and events"}}},
		{"gobpm on a gateway", `<parallelGateway id="x"><extensionElements><gobpm:input source="=1" target="a"/></extensionElements></parallelGateway>` + flow,
			[]want{{"x", RuleUnsupported, "gobpm:input on parallelGateway is not supported"}}},
		{"process and flow", `<extensionElements><zeebe:ioMapping><zeebe:input source="=1" target="a"/></zeebe:ioMapping></extensionElements><task id="x"/>` +
			`<startEvent id="s"/><endEvent id="e"/><sequenceFlow id="f" sourceRef="s" targetRef="x">` + zio(`<zeebe:input source="=1" target="a"/>`) + `</sequenceFlow><sequenceFlow id="g" sourceRef="x" targetRef="e"/>`,
			[]want{
				{"p", RuleUnsupported, "zeebe:ioMapping on process is not supported"},
				{"f", RuleUnsupported, "zeebe:ioMapping on sequenceFlow is not supported"},
			}},
		{"start event inputs", `<task id="x"/><startEvent id="s">` + zio(`<zeebe:input source="=1" target="a"/>`) + `</startEvent><endEvent id="e"/><sequenceFlow id="f" sourceRef="s" targetRef="x"/><sequenceFlow id="g" sourceRef="x" targetRef="e"/>`,
			[]want{{"s", RuleUnsupported, "zeebe:ioMapping on startEvent: a start event takes output mappings only"}}},
		{"start event Camunda 7", `<task id="x"/><startEvent id="s">` + io(`<camunda:outputParameter name="a">1</camunda:outputParameter>`) + `</startEvent><endEvent id="e"/><sequenceFlow id="f" sourceRef="s" targetRef="x"/><sequenceFlow id="g" sourceRef="x" targetRef="e"/>`,
			[]want{{"s", RuleUnsupported, "camunda:inputOutput on startEvent: Camunda 7 allows no input/output mapping on a start event"}}},
		{"boundary inputs", `<userTask id="x"/><boundaryEvent id="b" attachedToRef="x">` + zio(`<zeebe:input source="=1" target="a"/>`) + `<timerEventDefinition><timeDuration>PT1H</timeDuration></timerEventDefinition></boundaryEvent>` + flow,
			[]want{{"b", RuleUnsupported, "zeebe:ioMapping on boundaryEvent: a boundary event takes output mappings only (as in Camunda 8)"}}},
		{"boundary Camunda 7", `<userTask id="x"/><boundaryEvent id="b" attachedToRef="x">` + io(`<camunda:outputParameter name="a">1</camunda:outputParameter>`) + `<timerEventDefinition><timeDuration>PT1H</timeDuration></timerEventDefinition></boundaryEvent>` + flow,
			[]want{{"b", RuleUnsupported, "camunda:inputOutput on boundaryEvent: Camunda 7 allows no input/output mapping on a boundary event"}}},
		{"end event outputs", `<task id="x"/><startEvent id="s"/><endEvent id="e">` + io(`<camunda:outputParameter name="a">1</camunda:outputParameter>`) + `</endEvent><sequenceFlow id="f" sourceRef="s" targetRef="x"/><sequenceFlow id="g" sourceRef="x" targetRef="e"/>`,
			[]want{{"e", RuleUnsupported, "camunda:outputParameter is not allowed on an end event"}}},
		{"error end outputs", `<task id="x"/><startEvent id="s"/><endEvent id="e">` + zio(`<zeebe:output source="=1" target="a"/>`) + `<errorEventDefinition errorRef="err"/></endEvent><sequenceFlow id="f" sourceRef="s" targetRef="x"/><sequenceFlow id="g" sourceRef="x" targetRef="e"/>`,
			[]want{{"e", RuleUnsupported, "an error end event takes no output mappings"}}},
		{"multi-instance outputs", `<userTask id="x">` + io(`<camunda:outputParameter name="a">1</camunda:outputParameter>`) + `<multiInstanceLoopCharacteristics><loopCardinality>3</loopCardinality></multiInstanceLoopCharacteristics></userTask>` + flow,
			[]want{{"x", RuleUnsupported, "camunda:outputParameter is not allowed on a multi-instance activity"}}},
		{"event sub-process Camunda 7", `<task id="x"/><subProcess id="esp" triggeredByEvent="true">` + io(`<camunda:inputParameter name="a">1</camunda:inputParameter>`) + `<startEvent id="es"><messageEventDefinition messageRef="m"/></startEvent></subProcess>` + flow,
			[]want{{"esp", RuleUnsupported, "Camunda 7 allows no input/output mapping on an event sub-process"}}},
		{"event sub-process inputs", `<task id="x"/><subProcess id="esp" triggeredByEvent="true">` + zio(`<zeebe:input source="=1" target="a"/>`) + `<startEvent id="es"><messageEventDefinition messageRef="m"/></startEvent></subProcess>` + flow,
			[]want{{"esp", RuleUnsupported, "input mappings on an event sub-process are not supported yet"}}},
		{"two forms of one kind", `<task id="x"><extensionElements><zeebe:ioMapping/><zeebe:ioMapping/></extensionElements></task>` + flow,
			[]want{{"x", RuleInvalidAttribute, "task has several zeebe:ioMapping elements"}}},
		{"camunda:out on a task", `<task id="x"><extensionElements><camunda:out source="a" target="b"/></extensionElements></task>` + flow,
			[]want{{"x", RuleUnsupported, "camunda:out on task is not supported: gobpm passes variables with camunda:in/camunda:out only on call activities"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			checkProblems(t, MustFail(t, vendorDoc(tt.body)), tt.want, true)
		})
	}
}

func TestParseCallVariables(t *testing.T) {
	t.Parallel()
	const body = `<startEvent id="s"/>
<callActivity id="c7" calledElement="child"><extensionElements>
  <camunda:in businessKey="#{execution.processBusinessKey}"/>
  <camunda:in variables="all"/>
  <camunda:in variables="all" local="true"/>
  <camunda:in source="order" target="o"/>
  <camunda:in sourceExpression="${amount * 2}" target="double" local="false"/>
  <camunda:out source="result" target="r" local="true"/>
  <camunda:out variables="all"/>
  <camunda:out sourceExpression="${total}" target="t"/>
</extensionElements></callActivity>
<callActivity id="c8"><extensionElements><zeebe:calledElement processId="= &quot;child-&quot; + region"/></extensionElements></callActivity>
<callActivity id="c8false"><extensionElements><zeebe:calledElement processId="child" propagateAllParentVariables="false" propagateAllChildVariables="false" bindingType="deployment"/></extensionElements></callActivity>
<callActivity id="c8tag"><extensionElements><zeebe:calledElement processId="child" bindingType="versionTag" versionTag="v2"/></extensionElements></callActivity>
<callActivity id="both" calledElement="child"><extensionElements>
  <zeebe:calledElement processId="child"/><camunda:in variables="all"/><camunda:in businessKey="${k}"/>
</extensionElements></callActivity>
<callActivity id="c7dyn" calledElement="${callee}" camunda:calledElementBinding="version" camunda:calledElementVersion="${v}"/>
<callActivity id="c7tag" calledElement="child" camunda:calledElementBinding="versionTag" camunda:calledElementVersionTag="release-1"/>
<callActivity id="c7dep" calledElement="child" camunda:calledElementBinding="deployment"/>
<endEvent id="e"/>
<sequenceFlow id="f1" sourceRef="s" targetRef="c7"/><sequenceFlow id="f2" sourceRef="c7" targetRef="c8"/>
<sequenceFlow id="f3" sourceRef="c8" targetRef="c8false"/><sequenceFlow id="f4" sourceRef="c8false" targetRef="c8tag"/>
<sequenceFlow id="f5" sourceRef="c8tag" targetRef="both"/><sequenceFlow id="f6" sourceRef="both" targetRef="c7dyn"/>
<sequenceFlow id="f7" sourceRef="c7dyn" targetRef="c7tag"/><sequenceFlow id="f8" sourceRef="c7tag" targetRef="c7dep"/>
<sequenceFlow id="f9" sourceRef="c7dep" targetRef="e"/>`
	doc := strings.Replace(string(vendorDoc(body)), `<process id="p" isExecutable="true">`, `<process id="p" isExecutable="true" camunda:versionTag="v1">`, 1)
	defs, err := Parse([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	p := defs.Processes[0]
	if p.VersionTag != "v1" {
		t.Errorf("version tag = %q", p.VersionTag)
	}
	vars := func(vs []CallVar) string {
		parts := make([]string, len(vs))
		for i, v := range vs {
			src := v.Source
			if v.SourceExpr != nil {
				src = "expr(" + v.SourceExpr.Source() + ")"
			}
			if v.All {
				src = "all"
			}
			parts[i] = fmt.Sprintf("%s->%s local=%v", src, v.Target, v.Local)
		}
		return strings.Join(parts, "; ")
	}
	describe := func(c *CallDef) string {
		expr := ""
		if c.CalledExpr != nil {
			expr = " expr"
		}
		bk := ""
		if c.BusinessKey != nil {
			bk = " bk=" + c.BusinessKey.Source()
		}
		version := ""
		if c.VersionExpr != nil {
			version = " versionExpr=" + c.VersionExpr.Source()
		}
		return fmt.Sprintf("%s%s %s v%d tag=%q%s zeebe=%v parent=%v child=%v%s in[%s] out[%s]", c.CalledElement, expr, c.Binding, c.Version, c.VersionTag, version,
			c.Zeebe, c.PropagateParent, c.PropagateChild, bk, vars(c.In), vars(c.Out))
	}
	tests := map[string]string{
		"c7": `child latest v0 tag="" zeebe=false parent=false child=false bk=#{execution.processBusinessKey} ` +
			`in[all-> local=false; all-> local=true; order->o local=false; expr(${amount * 2})->double local=false] ` +
			`out[result->r local=true; all-> local=false; expr(${total})->t local=false]`,
		"c8":      `= "child-" + region expr latest v0 tag="" zeebe=true parent=true child=true in[] out[]`,
		"c8false": `child deployment v0 tag="" zeebe=true parent=false child=false in[] out[]`,
		"c8tag":   `child versionTag v0 tag="v2" zeebe=true parent=true child=true in[] out[]`,
		// zeebe:calledElement wins: camunda:in is ignored (gobpm > zeebe > camunda).
		"both":  `child latest v0 tag="" zeebe=true parent=true child=true in[] out[]`,
		"c7dyn": `${callee} expr version v0 tag="" versionExpr=${v} zeebe=false parent=false child=false in[] out[]`,
		"c7tag": `child versionTag v0 tag="release-1" zeebe=false parent=false child=false in[] out[]`,
		"c7dep": `child deployment v0 tag="" zeebe=false parent=false child=false in[] out[]`,
	}
	for id, want := range tests {
		if got := describe(p.Node(id).Call); got != want {
			t.Errorf("%s:\n got %s\nwant %s", id, got, want)
		}
	}
}
