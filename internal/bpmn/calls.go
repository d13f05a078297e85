package bpmn

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/beevik/etree"
)

// ioDecl is an ioSpecification being read: the spec plus the ids of its
// data inputs and outputs, which data associations reference.
type ioDecl struct {
	spec *IOSpec
	// inputs and outputs map dataInput / dataOutput ids to their names.
	inputs, outputs map[string]string
}

// ioSpecification reads an <ioSpecification> (of a process, a call
// activity or a global task). owner labels the element holding it.
func (p *parser) ioSpecification(e *etree.Element, owner string) *ioDecl {
	d := &ioDecl{spec: &IOSpec{}, inputs: map[string]string{}, outputs: map[string]string{}}
	var inputSets, outputSets []*etree.Element
	for _, c := range e.ChildElements() {
		if !isBPMN(c) {
			p.foreign(c)
			continue
		}
		switch c.Tag {
		case "documentation", "extensionElements":
		case "dataInput":
			p.common(c, "dataState")
			p.dataParam(c, owner, &d.spec.Inputs, d.inputs, "input")
		case "dataOutput":
			p.common(c, "dataState")
			p.dataParam(c, owner, &d.spec.Outputs, d.outputs, "output")
		case "inputSet":
			inputSets = append(inputSets, c)
		case "outputSet":
			outputSets = append(outputSets, c)
		default:
			p.unsupported(c, c.Tag+" in ioSpecification")
		}
	}
	if len(inputSets) > 1 {
		p.problems.add(owner, RuleUnsupported, "ioSpecification with %d inputSets (alternative inputs) is not supported yet; use one", len(inputSets))
	}
	if len(outputSets) > 1 {
		p.problems.add(owner, RuleUnsupported, "ioSpecification with %d outputSets (alternative outputs) is not supported yet; use one", len(outputSets))
	}
	for _, s := range inputSets {
		p.ioSet(s, owner, d.inputs, d.spec.Inputs, "dataInputRefs", "optionalInputRefs", "whileExecutingInputRefs", "outputSetRefs", "dataInput")
	}
	for _, s := range outputSets {
		p.ioSet(s, owner, d.outputs, d.spec.Outputs, "dataOutputRefs", "optionalOutputRefs", "whileExecutingOutputRefs", "inputSetRefs", "dataOutput")
	}
	return d
}

// dataParam reads one dataInput or dataOutput into params; ids maps its id
// to its name. Two parameters of one direction may not share a name: they
// would bind the same variable.
func (p *parser) dataParam(c *etree.Element, owner string, params *[]DataParam, ids map[string]string, what string) {
	name := nameOrID(c)
	if name == "" {
		p.problems.add(p.label(c), RuleMissingAttribute, "data%s of %s has neither name nor id", strings.ToUpper(what[:1])+what[1:], owner)
		return
	}
	for _, q := range *params {
		if q.Name == name {
			p.problems.add(owner, RuleInvalidAttribute, "two data %ss are named %q; each binds the variable of that name", what, name)
			return
		}
	}
	*params = append(*params, DataParam{Name: name})
	if id := strings.TrimSpace(attr(c, "id")); id != "" {
		ids[id] = name
	}
}

// ioSet reads an inputSet or outputSet: every reference must name a
// parameter of the spec; optional ones mark DataParam.Optional; "while
// executing" (streaming) ones are not supported.
func (p *parser) ioSet(s *etree.Element, owner string, ids map[string]string, params []DataParam, refs, optional, while, other, elem string) {
	for _, c := range s.ChildElements() {
		if !isBPMN(c) {
			p.foreign(c)
			continue
		}
		switch c.Tag {
		case "documentation", "extensionElements", other:
		case refs, optional:
			ref := strings.TrimSpace(text(c))
			name, ok := ids[ref]
			if !ok {
				p.problems.add(owner, RuleMissingReference, "%s %q names no %s of the ioSpecification", c.Tag, ref, elem)
				continue
			}
			if c.Tag == optional {
				for i := range params {
					if params[i].Name == name {
						params[i].Optional = true
					}
				}
			}
		case while:
			p.problems.add(owner, RuleUnsupported, "%s (data passed while the activity runs) is not supported yet", c.Tag)
		default:
			p.unsupported(c, c.Tag+" in "+s.Tag)
		}
	}
}

// bindingLatest is the default binding (tasks.go reads zeebe:calledDecision's too).
const bindingLatest = BindingLatest

// camundaCallRefused are Camunda 7 attributes of a call activity whose
// behaviour gobpm does not have.
var camundaCallRefused = []struct{ key, hint string }{
	{"calledElementTenantId", "tenants are not supported"},
	{"variableMappingClass", "Java variable mappings are not supported; use camunda:in/camunda:out, or declare dataInput/dataOutput names in the call activity's ioSpecification"},
	{"variableMappingDelegateExpression", "Java variable mappings are not supported; use camunda:in/camunda:out, or declare dataInput/dataOutput names in the call activity's ioSpecification"},
	{"caseRef", "calling a CMMN case is not supported"},
	{"caseBinding", "calling a CMMN case is not supported"},
	{"caseVersion", "calling a CMMN case is not supported"},
	{"caseTenantId", "calling a CMMN case is not supported"},
}

// callActivity reads what a call activity calls (docs/scopes.md#call-activities, §8): the
// callee key from calledElement or zeebe:calledElement processId (a key,
// or an expression evaluated on entry), the version binding from
// gobpm:version, zeebe:calledElement bindingType or
// camunda:calledElementBinding, the variables that cross the call
// (Zeebe's propagate attributes, Camunda 7's camunda:in / camunda:out) and
// the call's own ioSpecification (io, nil without one).
func (p *parser) callActivity(e *etree.Element, io *ioDecl) *CallDef {
	label := p.label(e)
	call := &CallDef{Binding: BindingLatest}
	if io != nil {
		call.IO = io.spec
	}

	// The callee.
	std, stdOK := "", false
	for _, a := range e.Attr {
		if a.Space == "" && a.Key == "calledElement" {
			std, stdOK = strings.TrimSpace(a.Value), true
		}
	}
	what := "calledElement"
	zc := extension(e, NamespaceZeebe, "calledElement")
	zeebe, zeebeOK := "", false
	if zc != nil {
		if a := zc.SelectAttr("processId"); a != nil {
			zeebe, zeebeOK = strings.TrimSpace(a.Value), true
		}
	}
	switch {
	case stdOK && std != "" && zeebeOK && zeebe != "" && std != zeebe && !isExpression(std) && !isExpression(zeebe):
		p.problems.add(label, RuleInvalidAttribute, "calledElement %q and zeebe:calledElement processId %q disagree", std, zeebe)
	case zeebeOK && zeebe != "":
		// gobpm > zeebe > camunda: a model drawn for both engines may
		// carry an expression for one and a key for the other.
		call.CalledElement, what = zeebe, "zeebe:calledElement processId"
	case stdOK && std != "":
		call.CalledElement = std
	case stdOK || zeebeOK:
		p.problems.add(label, RuleMissingAttribute, "callActivity %q has an empty calledElement", label)
	default:
		p.problems.add(label, RuleMissingAttribute, "callActivity %q needs a calledElement (or zeebe:calledElement processId)", label)
	}
	if isExpression(call.CalledElement) {
		call.CalledExpr = p.compile(label, what, p.calleeLanguage(call.CalledElement), call.CalledElement)
	}

	// The variables that cross the call.
	if zc != nil {
		call.Zeebe = true
		call.PropagateParent = p.zeebeBool(label, zc, "propagateAllParentVariables")
		call.PropagateChild = p.zeebeBool(label, zc, "propagateAllChildVariables")
	}
	p.callVars(e, call)

	// The version.
	for _, r := range camundaCallRefused {
		if _, ok := nsAttr(e, NamespaceCamunda, r.key); ok {
			p.problems.add(label, RuleUnsupported, "camunda:%s on callActivity is not supported: %s", r.key, r.hint)
		}
	}
	if v, ok := nsAttr(e, NamespaceGobpm, "version"); ok {
		call.Binding, call.Version = BindingVersion, p.positive(label, "gobpm:version", v)
		return call
	}
	if zc != nil {
		switch b := strings.TrimSpace(zc.SelectAttrValue("bindingType", "")); b {
		case "", BindingLatest:
		case BindingDeployment:
			call.Binding = BindingDeployment
		case BindingVersionTag:
			call.Binding = BindingVersionTag
			tag := zc.SelectAttr("versionTag")
			if tag == nil || strings.TrimSpace(tag.Value) == "" {
				p.problems.add(label, RuleMissingAttribute, "zeebe:calledElement bindingType=\"versionTag\" needs a versionTag")
			} else {
				call.VersionTag = strings.TrimSpace(tag.Value)
			}
		default:
			p.problems.add(label, RuleUnsupported, "zeebe:calledElement bindingType=%q is not supported; use latest (the default), deployment or versionTag, or pin a version with gobpm:version", b)
		}
		return call
	}
	binding, _ := nsAttr(e, NamespaceCamunda, "calledElementBinding")
	switch b := strings.TrimSpace(binding); b {
	case "", BindingLatest:
	case BindingDeployment:
		call.Binding = BindingDeployment
	case BindingVersion:
		call.Binding = BindingVersion
		v, ok := nsAttr(e, NamespaceCamunda, "calledElementVersion")
		switch v = strings.TrimSpace(v); {
		case !ok || v == "":
			p.problems.add(label, RuleMissingAttribute, "camunda:calledElementBinding=\"version\" needs camunda:calledElementVersion")
		case isExpression(v):
			call.VersionExpr = p.compile(label, "camunda:calledElementVersion", p.calleeLanguage(v), v)
		default:
			call.Version = p.positive(label, "camunda:calledElementVersion", v)
		}
	case BindingVersionTag:
		call.Binding = BindingVersionTag
		v, ok := nsAttr(e, NamespaceCamunda, "calledElementVersionTag")
		switch v = strings.TrimSpace(v); {
		case !ok || v == "":
			p.problems.add(label, RuleMissingAttribute, "camunda:calledElementBinding=\"versionTag\" needs camunda:calledElementVersionTag")
		case isExpression(v):
			call.VersionTagExpr = p.compile(label, "camunda:calledElementVersionTag", p.calleeLanguage(v), v)
		default:
			call.VersionTag = v
		}
	default:
		p.problems.add(label, RuleUnsupported,
			"camunda:calledElementBinding=%q is not supported; use latest (the default), deployment, version or versionTag", b)
	}
	return call
}

// calleeLanguage is the language of an expression in a call activity
// attribute: a "${…}" text is JUEL (Camunda 7), a "=…" text FEEL.
func (p *parser) calleeLanguage(v string) string {
	if strings.HasPrefix(strings.TrimSpace(v), "=") {
		return "feel"
	}
	return p.exprLang
}

// zeebeBool reads a boolean attribute of zeebe:calledElement whose Zeebe
// default is true.
func (p *parser) zeebeBool(label string, zc *etree.Element, key string) bool {
	switch v := strings.TrimSpace(zc.SelectAttrValue(key, "")); v {
	case "", "true":
		return true
	case "false":
		return false
	default:
		p.problems.add(label, RuleInvalidAttribute, "zeebe:calledElement %s=%q is not a boolean", key, v)
		return true
	}
}

// callVars reads Camunda 7's camunda:in and camunda:out elements of a call
// activity: variables="all", source or sourceExpression (JUEL) with a
// target, local, and (on camunda:in) businessKey. With zeebe:calledElement
// present they are ignored (gobpm > zeebe > camunda), but still checked.
func (p *parser) callVars(e *etree.Element, call *CallDef) {
	label := p.label(e)
	var ins, outs []CallVar
	for _, x := range e.ChildElements() {
		if !isBPMN(x) || x.Tag != "extensionElements" {
			continue
		}
		for _, c := range x.ChildElements() {
			if c.NamespaceURI() != NamespaceCamunda || (c.Tag != "in" && c.Tag != "out") {
				continue
			}
			what := "camunda:" + c.Tag
			p.noAttributes(e, c, what, "source", "sourceExpression", "target", "variables", "local", "businessKey")
			if len(c.ChildElements()) > 0 {
				p.problems.add(label, RuleUnsupported, "%s on callActivity has child elements; it takes attributes only", what)
			}
			local := false
			switch l := strings.TrimSpace(c.SelectAttrValue("local", "")); l {
			case "", "false":
			case "true":
				local = true
			default:
				p.problems.add(label, RuleInvalidAttribute, "%s local=%q is not a boolean", what, l)
			}
			if bk := c.SelectAttr("businessKey"); bk != nil {
				switch {
				case c.Tag != "in":
					p.problems.add(label, RuleUnsupported, "camunda:out businessKey is not supported: a business key is passed to the child with camunda:in")
				case call.BusinessKey != nil:
					p.problems.add(label, RuleInvalidAttribute, "callActivity has several camunda:in businessKey; use one")
				default:
					call.BusinessKey = p.compile(label, "camunda:in businessKey", "juel", bk.Value)
				}
				for _, k := range []string{"source", "sourceExpression", "target", "variables"} {
					if c.SelectAttr(k) != nil {
						p.problems.add(label, RuleInvalidAttribute, "%s with businessKey takes no %s; write a second %s for variables", what, k, what)
					}
				}
				continue
			}
			v := CallVar{Local: local}
			vars, hasVars := c.SelectAttr("variables"), false
			if vars != nil {
				hasVars = true
				if strings.TrimSpace(vars.Value) != "all" {
					p.problems.add(label, RuleInvalidAttribute, "%s variables=%q: only \"all\" is defined", what, vars.Value)
					continue
				}
				v.All = true
			}
			src, srcExpr := c.SelectAttr("source"), c.SelectAttr("sourceExpression")
			target := strings.TrimSpace(c.SelectAttrValue("target", ""))
			switch {
			case hasVars && (src != nil || srcExpr != nil || c.SelectAttr("target") != nil):
				p.problems.add(label, RuleInvalidAttribute, "%s variables=\"all\" takes no source, sourceExpression or target; write a second %s for one variable", what, what)
				continue
			case hasVars:
			case src != nil && srcExpr != nil:
				p.problems.add(label, RuleInvalidAttribute, "%s has both source and sourceExpression; use one", what)
				continue
			case src == nil && srcExpr == nil:
				p.problems.add(label, RuleMissingAttribute, "%s needs variables=\"all\", a source or a sourceExpression", what)
				continue
			case target == "":
				p.problems.add(label, RuleMissingAttribute, "%s needs a target (the variable it sets)", what)
				continue
			case src != nil:
				v.Source, v.Target = strings.TrimSpace(src.Value), target
				if v.Source == "" {
					p.problems.add(label, RuleMissingAttribute, "%s has an empty source", what)
					continue
				}
			default:
				v.Target = target
				if v.SourceExpr = p.compile(label, what+" sourceExpression", "juel", srcExpr.Value); v.SourceExpr == nil {
					continue
				}
			}
			if c.Tag == "in" {
				ins = append(ins, v)
			} else {
				outs = append(outs, v)
			}
		}
	}
	if call.Zeebe {
		call.BusinessKey = nil
		return
	}
	call.In, call.Out = ins, outs
}

// positive parses a version number: an integer >= 1.
func (p *parser) positive(label, what, v string) int {
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || n < 1 {
		p.problems.add(label, RuleInvalidAttribute, "%s=%q: want a positive integer", what, v)
		return 0
	}
	return n
}

// callAssoc is a data association of a call activity to check once every
// data declaration of the document is known.
type callAssoc struct {
	label string
	// ref is the data element on the caller's side (sourceRef of an input
	// association, targetRef of an output one); name the parameter's name.
	ref, name, tag string
}

// callAssociation checks a dataInputAssociation or dataOutputAssociation
// of a call activity: it must connect one of the call's own data inputs
// (outputs) with a data object or property of the same name, as gobpm
// binds call I/O by name (README#model-extensions); anything that would map data is
// refused by dataAssociation.
func (p *parser) callAssociation(a *etree.Element, label string, io *ioDecl) {
	var sources, targets []string
	for _, c := range a.ChildElements() {
		if !isBPMN(c) {
			continue
		}
		switch c.Tag {
		case "sourceRef":
			sources = append(sources, strings.TrimSpace(text(c)))
		case "targetRef":
			targets = append(targets, strings.TrimSpace(text(c)))
		}
	}
	params, caller, param, side := map[string]string(nil), sources, targets, "targetRef"
	what := "dataInput"
	if a.Tag == "dataOutputAssociation" {
		caller, param, side, what = targets, sources, "sourceRef", "dataOutput"
		if io != nil {
			params = io.outputs
		}
	} else if io != nil {
		params = io.inputs
	}
	if len(param) != 1 {
		p.problems.add(label, RuleMissingReference, "%s of a call activity needs one %s naming a %s of its ioSpecification", a.Tag, side, what)
		return
	}
	name, ok := params[param[0]]
	if !ok {
		p.problems.add(label, RuleMissingReference, "%s %s %q names no %s of the call activity's ioSpecification", a.Tag, side, param[0], what)
		return
	}
	switch len(caller) {
	case 0:
	case 1:
		p.callAssocs = append(p.callAssocs, callAssoc{label: label, ref: caller[0], name: name, tag: a.Tag})
	default:
		p.problems.add(label, RuleUnsupported, "%s with several %s is not supported", a.Tag, map[bool]string{true: "sourceRefs", false: "targetRefs"}[a.Tag == "dataInputAssociation"])
	}
}

// checkCallAssocs checks that each call association connects a parameter
// with the variable of the same name.
func (p *parser) checkCallAssocs() {
	for _, a := range p.callAssocs {
		v, ok := p.variableOf(a.ref)
		switch {
		case !ok && p.ids[a.ref]:
			p.problems.add(a.label, RuleUnsupported, "%s references %q, which is not a data object or property; gobpm binds call inputs and outputs to variables by name", a.tag, a.ref)
		case !ok:
			p.problems.add(a.label, RuleMissingReference, "%s references %q, which names no data object or property", a.tag, a.ref)
		case v != a.name:
			p.problems.add(a.label, RuleUnsupported,
				"%s connects variable %q with parameter %q; gobpm binds call inputs and outputs by name, so name the dataInput/dataOutput %q (renaming is not supported yet)",
				a.tag, v, a.name, v)
		}
	}
}

// variableOf returns the variable name a data element id stands for: a
// dataObject, a dataObjectReference (its dataObject's variable), a
// property or a process data input/output.
func (p *parser) variableOf(id string) (string, bool) {
	if ref, ok := p.dataObjectRefs[id]; ok {
		id = ref
	}
	v, ok := p.varNames[id]
	return v, ok
}

// globalTasks maps the global task elements to the kind of their one task.
var globalTasks = map[string]NodeKind{
	"globalTask":       KindTask,
	"globalManualTask": KindTask,
	"globalUserTask":   KindUserTask,
	"globalScriptTask": KindScriptTask,

	"globalBusinessRuleTask": KindBusinessRuleTask,
}

// globalTask reads a global task into a one-task process registered under
// its id (docs/scopes.md#call-activities): "<id>.start" → the task (id <id>) → "<id>.end",
// through flows "<id>.in" and "<id>.out". It returns nil after reporting a
// problem that leaves nothing to register.
func (p *parser) globalTask(e *etree.Element) *Process {
	id := p.id(e)
	label := p.label(e)
	kind, ok := globalTasks[e.Tag]
	if !ok {
		p.unsupported(e, "")
		return nil
	}
	proc := &Process{ID: id, Name: attr(e, "name"), Executable: true, GlobalTask: true, Graph: &Graph{}}
	task := &Node{ID: id, Name: proc.Name, Kind: kind, Parent: proc.Graph}
	scripts := 0
	for _, c := range e.ChildElements() {
		if !isBPMN(c) {
			p.foreign(c)
			continue
		}
		switch c.Tag {
		case "documentation", "extensionElements", "rendering", "supportedInterfaceRef":
		case "performer", "humanPerformer", "potentialOwner", "resourceRole":
			if kind == KindUserTask {
				p.problems.add(label, RuleUnsupported,
					"%s on %s is not supported; use gobpm:assignee / gobpm:candidateUsers / gobpm:candidateGroups", c.Tag, e.Tag)
			}
		case "ioSpecification":
			if proc.IO != nil {
				p.problems.add(label, RuleUnsupported, "%s with several ioSpecifications is not supported", e.Tag)
				continue
			}
			proc.IO = p.ioSpecification(c, label).spec
		case "script":
			if kind != KindScriptTask {
				p.unsupported(c, "script in "+e.Tag)
				continue
			}
			scripts++
			if scripts == 1 {
				lang := strings.TrimSpace(attr(e, "scriptLanguage"))
				if lang == "" {
					lang = strings.TrimSpace(attr(e, "scriptFormat"))
				}
				task.Script = p.compile(label, "script", p.scriptLanguage(lang), text(c))
			}
		default:
			p.unsupported(c, fmt.Sprintf("%s in %s", c.Tag, e.Tag))
		}
	}
	switch kind {
	case KindUserTask:
		task.UserTask = p.userTask(e)
		task.FormRef = formRef(e)
	case KindScriptTask:
		if scripts == 0 {
			p.problems.add(label, RuleInvalidExpression, "%s has no script", e.Tag)
		}
		if scripts > 1 {
			p.problems.add(label, RuleUnsupported, "%s with several scripts is not supported", e.Tag)
		}
		p.resultVariable(e, task)
	case KindBusinessRuleTask:
		task.Decision = p.businessRuleTask(e)
	}
	if id == "" {
		return nil
	}
	g := proc.Graph
	start := &Node{ID: id + ".start", Kind: KindStartEvent, Parent: g}
	end := &Node{ID: id + ".end", Kind: KindEndEvent, Parent: g}
	in := &Flow{ID: id + ".in", Source: start, Target: task}
	out := &Flow{ID: id + ".out", Source: task, Target: end}
	start.Outgoing, task.Incoming, task.Outgoing, end.Incoming = []*Flow{in}, []*Flow{in}, []*Flow{out}, []*Flow{out}
	g.Nodes = []*Node{start, task, end}
	g.Flows = []*Flow{in, out}
	g.Starts = []*Node{start}
	return proc
}
