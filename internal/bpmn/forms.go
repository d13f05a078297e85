package bpmn

import (
	"strings"

	"github.com/beevik/etree"
)

// camundaFormsPrefix prefixes a camunda:formKey that names a deployed
// Camunda Form by its id (Camunda 7's embedded form key).
const camundaFormsPrefix = "camunda-forms:bpmn:"

// formRef reads the id of the Camunda Form a user task or start event e
// links, "" when none: zeebe:formDefinition formId, else gobpm:formRef,
// else camunda:formRef, else a camunda:formKey of the form
// "camunda-forms:bpmn:<id>" or a bare id (a key with another scheme names
// an embedded or external form, not a deployed one). Blank values count
// as absent. The cockpit renders the form; the engine ignores it.
func formRef(e *etree.Element) string {
	if z := extension(e, NamespaceZeebe, "formDefinition"); z != nil {
		if id := strings.TrimSpace(z.SelectAttrValue("formId", "")); id != "" {
			return id
		}
	}
	for _, ns := range []string{NamespaceGobpm, NamespaceCamunda} {
		if v, _ := nsAttr(e, ns, "formRef"); strings.TrimSpace(v) != "" {
			return strings.TrimSpace(v)
		}
	}
	key, _ := nsAttr(e, NamespaceCamunda, "formKey")
	key = strings.TrimSpace(key)
	if strings.Contains(key, ":") && !strings.HasPrefix(key, camundaFormsPrefix) {
		return ""
	}
	return strings.TrimPrefix(key, camundaFormsPrefix)
}
