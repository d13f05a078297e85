package runtime

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path"
	"strings"
)

// FormExt is the file extension of a Camunda Form (the JSON the Camunda
// Modeler and form-js write), deployed beside the processes whose user
// tasks link it by its id (zeebe:formDefinition formId, camunda:formRef,
// gobpm:formRef).
const FormExt = ".form"

// RuleInvalidForm is the deployment problem of a .form file that is not a
// Camunda Form: not a JSON object, without an id, or without components.
const RuleInvalidForm = "invalid-form"

// isForm reports whether a deployed file is a Camunda Form.
func isForm(name string) bool { return strings.EqualFold(path.Ext(name), FormExt) }

// formSchema is what a deployment checks of a Camunda Form.
type formSchema struct {
	ID         string            `json:"id"`
	Components []json.RawMessage `json:"components"`
}

// formID reads the id of a Camunda Form, or says why the file is not one.
func formID(content []byte) (string, error) {
	var f formSchema
	d := json.NewDecoder(bytes.NewReader(content))
	if err := d.Decode(&f); err != nil {
		return "", fmt.Errorf("not a Camunda Form (JSON object): %w", err)
	}
	if d.More() {
		return "", fmt.Errorf("not a Camunda Form: more than one JSON value")
	}
	switch {
	case strings.TrimSpace(f.ID) == "":
		return "", fmt.Errorf("the form has no id: a user task links a form by its id")
	case f.Components == nil:
		return "", fmt.Errorf("the form %q has no components", f.ID)
	}
	return f.ID, nil
}

// checkForms reads the .form files of a deployment: the problems of those
// that are not Camunda Forms, and of two forms with one id.
func checkForms(files []File) []Problem {
	var problems []Problem
	owner := map[string]string{}
	for _, f := range files {
		if !isForm(f.Name) {
			continue
		}
		id, err := formID(f.Content)
		if err != nil {
			problems = append(problems, Problem{Resource: f.Name, Rule: RuleInvalidForm, Detail: err.Error()})
			continue
		}
		if prev, dup := owner[id]; dup {
			problems = append(problems, Problem{Resource: f.Name, Element: id, Rule: RuleInvalidForm,
				Detail: fmt.Sprintf("form %q is in both %s and %s", id, prev, f.Name)})
			continue
		}
		owner[id] = f.Name
	}
	return problems
}

// FormView is a Camunda Form found for a user task.
type FormView struct {
	// ID is the form's id; Resource the file it was deployed in.
	ID       string
	Resource string
	// Schema is the form's JSON as deployed.
	Schema json.RawMessage
}

// Form returns the Camunda Form with an id deployed together with a
// process version (the deployment that registered it: a form is bound to
// the deployment of its process, as Camunda 8's deployment binding does).
// ENOTFOUND for an unknown version or a form not in its deployment.
func (r *Runtime) Form(ctx context.Context, key string, version int, id string) (FormView, error) {
	def, err := r.store.Definition(ctx, key, version)
	if err != nil {
		return FormView{}, notFoundOr(err, "process %s version %d not found", key, version)
	}
	files, err := r.store.DeploymentResources(ctx, def.DeploymentID, FormExt)
	if err != nil {
		return FormView{}, fmt.Errorf("runtime: forms of %s version %d: %w", key, version, err)
	}
	for _, f := range files {
		if got, err := formID(f.Content); err == nil && got == id {
			return FormView{ID: id, Resource: f.Name, Schema: json.RawMessage(f.Content)}, nil
		}
	}
	return FormView{}, &Error{Code: ENOTFOUND, Message: fmt.Sprintf("form %q is not deployed with %s version %d", id, key, version)}
}
