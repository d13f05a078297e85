package runtime

import (
	"bytes"
	"context"
	"encoding/xml"
	"strings"

	"github.com/gobpm/gobpm/internal/bpmn"
)

// The namespaces of the attributes that link a form to an element.
const (
	nsZeebe   = "http://camunda.org/schema/zeebe/1.0"
	nsCamunda = "http://camunda.org/schema/1.0/bpmn"
	nsGobpm   = "urn:gobpm:1"
)

// camundaFormsPrefix prefixes a camunda:formKey that names a deployed
// Camunda Form by its id (Camunda 7's embedded form key).
const camundaFormsPrefix = "camunda-forms:bpmn:"

// FormRef returns the id of the Camunda Form a user task or start event
// of a BPMN document links ("" when none): zeebe:formDefinition's formId,
// camunda:formRef, gobpm:formRef, or a camunda:formKey of the form
// "camunda-forms:bpmn:<id>" (or a bare id).
func FormRef(data []byte, elementID string) string {
	d := xml.NewDecoder(bytes.NewReader(data))
	depth, in, ref := 0, false, ""
	for {
		tok, err := d.Token()
		if err != nil {
			return ref
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if in {
				depth++
				if t.Name.Space == nsZeebe && t.Name.Local == "formDefinition" {
					if id := xmlAttr(t, "", "formId"); id != "" {
						ref = id
					}
				}
				continue
			}
			if (t.Name.Local == "userTask" || t.Name.Local == "startEvent") && xmlAttr(t, "", "id") == elementID {
				in = true
				ref = elementFormAttr(t)
			}
		case xml.EndElement:
			if in {
				if depth == 0 {
					return ref
				}
				depth--
			}
		}
	}
}

// elementFormAttr reads the form an element's own attributes link.
func elementFormAttr(t xml.StartElement) string {
	for _, ref := range []string{xmlAttr(t, nsCamunda, "formRef"), xmlAttr(t, nsGobpm, "formRef")} {
		if ref != "" {
			return ref
		}
	}
	key := xmlAttr(t, nsCamunda, "formKey")
	if strings.Contains(key, ":") && !strings.HasPrefix(key, camundaFormsPrefix) {
		return "" // an embedded or external form, not a deployed Camunda Form
	}
	return strings.TrimPrefix(key, camundaFormsPrefix)
}

// xmlAttr returns the value of attribute space:local of t.
func xmlAttr(t xml.StartElement, space, local string) string {
	for _, a := range t.Attr {
		if a.Name.Space == space && a.Name.Local == local {
			return a.Value
		}
	}
	return ""
}

// describeTasks fills each task's business key (its instance's) and the
// form its element links: one read of the instances, one of each
// process version's definition.
func (r *Runtime) describeTasks(ctx context.Context, tasks []TaskView) error {
	if len(tasks) == 0 {
		return nil
	}
	ids := make([]InstanceID, 0, len(tasks))
	for _, t := range tasks {
		ids = append(ids, t.InstanceID)
	}
	list, err := r.store.InstanceRows(ctx, ids)
	if err != nil {
		return err
	}
	rows := make(map[InstanceID]InstanceRow, len(list))
	for _, row := range list {
		rows[row.ID] = row
	}
	xmls := map[DefinitionRef][]byte{}
	for i := range tasks {
		t := &tasks[i]
		t.BusinessKey = rows[t.InstanceID].BusinessKey
		ref := DefinitionRef{Key: t.ProcessKey, Version: t.ProcessVersion}
		doc, ok := xmls[ref]
		if !ok {
			def, err := r.store.Definition(ctx, ref.Key, ref.Version)
			if err != nil {
				return notFoundOr(err, "process %s version %d not found", ref.Key, ref.Version)
			}
			doc = def.XML
			xmls[ref] = doc
		}
		t.FormID = FormRef(doc, t.NodeID)
	}
	return nil
}

// StartFormView is what starting a process version by hand offers: its
// None start event and the Camunda Form that event links, if any.
type StartFormView struct {
	// Version is the process version read (the latest for version 0).
	Version int
	// StartEventID is the None start event's id ("" when the process has none).
	StartEventID string
	// FormID is the linked form's id ("" when none); Form is the form, nil
	// when none is linked or the linked one was not deployed with the version.
	FormID string
	Form   *FormView
}

// StartForm reads the start form of a process version (0: the latest):
// the Camunda Form its None start event links (zeebe:formDefinition,
// camunda:formRef, gobpm:formRef, camunda:formKey), deployed with it.
// ENOTFOUND for an unknown process or version.
func (r *Runtime) StartForm(ctx context.Context, key string, version int) (StartFormView, error) {
	proc, ref, err := r.process(ctx, key, version)
	if err != nil {
		return StartFormView{}, notFoundOr(err, "process %s version %d not found", key, version)
	}
	out := StartFormView{Version: ref.Version}
	for _, n := range proc.Graph.Starts {
		if n.Kind == bpmn.KindStartEvent {
			out.StartEventID = n.ID
			break
		}
	}
	if out.StartEventID == "" {
		return out, nil
	}
	def, err := r.store.Definition(ctx, key, ref.Version)
	if err != nil {
		return StartFormView{}, notFoundOr(err, "process %s version %d not found", key, ref.Version)
	}
	if out.FormID = FormRef(def.XML, out.StartEventID); out.FormID == "" {
		return out, nil
	}
	form, err := r.Form(ctx, key, ref.Version, out.FormID)
	switch {
	case err == nil:
		out.Form = &form
	case ErrorCode(err) != ENOTFOUND:
		return StartFormView{}, err
	}
	return out, nil
}
