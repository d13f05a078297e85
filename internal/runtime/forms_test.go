package runtime_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gobpm/gobpm/internal/runtime"
)

func formFixture(t *testing.T, name string) runtime.File {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "forms", name))
	if err != nil {
		t.Fatal(err)
	}
	return runtime.File{Name: name, Content: data}
}

// A Camunda Form deploys with the process that links it and is found
// through that process's version; a file that is no form, or two forms
// with one id, refuse the deployment.
func TestForms(t *testing.T) {
	t.Parallel()
	c := setupClocked(t)
	ctx := context.Background()
	res := mustDeploy(t, c.rt, formFixture(t, "parcel.bpmn"), formFixture(t, "pack.form"))
	if len(res.Processes) != 1 || res.Processes[0].Key != "parcel" {
		t.Fatalf("deployed %+v", res.Processes)
	}
	f, err := c.rt.Form(ctx, "parcel", 1, "pack-form")
	if err != nil {
		t.Fatal(err)
	}
	var schema struct {
		ID         string
		Components []json.RawMessage
	}
	if err := json.Unmarshal(f.Schema, &schema); err != nil || schema.ID != "pack-form" || len(schema.Components) != 4 || f.Resource != "pack.form" {
		t.Errorf("form %+v: %v %+v", f, err, schema)
	}
	if _, err := c.rt.Form(ctx, "parcel", 1, "other"); runtime.ErrorCode(err) != runtime.ENOTFOUND {
		t.Errorf("an unknown form: %v", err)
	}
	if _, err := c.rt.Form(ctx, "nope", 1, "pack-form"); runtime.ErrorCode(err) != runtime.ENOTFOUND {
		t.Errorf("an unknown process: %v", err)
	}

	for _, tt := range []struct {
		name  string
		files []runtime.File
		want  string
	}{
		{"not JSON", []runtime.File{{Name: "bad.form", Content: []byte("<form/>")}}, "not a Camunda Form"},
		{"no id", []runtime.File{{Name: "bad.form", Content: []byte(`{"components": []}`)}}, "has no id"},
		{"no components", []runtime.File{{Name: "bad.form", Content: []byte(`{"id": "x"}`)}}, "has no components"},
		{"two values", []runtime.File{{Name: "bad.form", Content: []byte(`{"id": "x", "components": []} {}`)}}, "more than one JSON value"},
		{"one id twice", []runtime.File{formFixture(t, "pack.form"), {Name: "again.form", Content: formFixture(t, "pack.form").Content}}, "is in both pack.form and again.form"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := c.rt.Deploy(ctx, tt.files)
			var derr *runtime.DeploymentError
			if !errors.As(err, &derr) || len(derr.Problems) != 1 || derr.Problems[0].Rule != runtime.RuleInvalidForm ||
				!strings.Contains(derr.Problems[0].Detail, tt.want) {
				t.Errorf("Deploy = %v, want %s problem %q", err, runtime.RuleInvalidForm, tt.want)
			}
		})
	}
}
