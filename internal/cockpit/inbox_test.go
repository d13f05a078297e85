package cockpit_test

import (
	"encoding/json"
	"net/url"
	"strings"
	"testing"

	"github.com/gobpm/gobpm/internal/runtime"
)

// taskOf returns the open task of an instance at node.
func taskOf(t *testing.T, b *bundle, id runtime.InstanceID, node string) runtime.TaskView {
	t.Helper()
	task := onlyTask(t, b, id)
	if task.NodeID != node {
		t.Fatalf("the instance waits at %s, not %s", task.NodeID, node)
	}
	return task
}

// schemaOf reads the Camunda Form the opened task is completed with.
func schemaOf(t *testing.T, p *page) (id string, fields map[string]string, required map[string]bool) {
	t.Helper()
	var s struct {
		ID         string
		Components []struct {
			Type, Key string
			Validate  struct{ Required bool }
		}
	}
	if err := json.Unmarshal([]byte(p.testid("task-form").AttrOr("data-schema", "")), &s); err != nil {
		t.Fatalf("form schema: %v\n%s", err, p.body)
	}
	fields, required = map[string]string{}, map[string]bool{}
	for _, c := range s.Components {
		if c.Key != "" {
			fields[c.Key], required[c.Key] = c.Type, c.Validate.Required
		}
	}
	return s.ID, fields, required
}

func TestInboxCardsAndFilters(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.deploy("parcel.bpmn", "pack.form", "review.bpmn")
	parcel := b.start("parcel", "order-1042", map[string]any{"customer": "Ada", "items": jsonNumber("3")})
	b.start("review", "claim-5", nil)
	b.actAs("ann", "clerks")

	p := b.mustGet("/tasks")
	card := p.doc.Find(`[data-testid="task"][data-node="pack"]`)
	if card.Find(`[data-testid="task-process"]`).Text() != "Ship a parcel" || card.Find(`[data-testid="task-business-key"]`).Text() != "order-1042" ||
		card.Find(`[data-testid="task-age"]`).Text() != "waiting just now" {
		t.Errorf("the card names the process, business key and age:\n%s", card.Text())
	}
	count := func(query string) int { return b.mustGet("/tasks?" + query).testid("task").Length() }
	for _, tt := range []struct {
		query string
		want  int
	}{
		{"", 2},
		{"process=parcel", 1},
		{"show=mine", 0},
		{"show=groups", 2},
		{"show=unassigned", 2},
		{"due=overdue", 0},
		{"sort=newest", 2},
	} {
		if got := count(tt.query); got != tt.want {
			t.Errorf("/tasks?%s: %d tasks, want %d", tt.query, got, tt.want)
		}
	}
	if got := b.mustGet("/tasks?process=parcel").text("tasks-hidden"); got != "1 more left out by the filter." {
		t.Errorf("hidden note %q", got)
	}
	if bad := b.get("/tasks?sort=sideways"); bad.status != 400 {
		t.Errorf("a bad sort: %d", bad.status)
	}
	newest := b.mustGet("/tasks?sort=newest").testid("task")
	if newest.Eq(0).AttrOr("data-node", "") != "check" {
		t.Errorf("newest first: %s", newest.Eq(0).AttrOr("data-node", ""))
	}

	// The opened task shows its variables as a table and its linked form.
	pack := taskOf(t, b, parcel.ID, "pack")
	p = b.mustGet("/tasks?task=" + url.QueryEscape(pack.ID))
	d := p.testid("task-detail")
	if d.Length() != 1 || d.Find(`[data-testid="variable"][data-name="customer"] [data-testid="variable-value"]`).Text() != "Ada" {
		t.Fatalf("the variables table:\n%s", p.body)
	}
	if d.Find(`[data-testid="task-claim-first"]`).Length() != 1 || d.Find(`[data-testid="claim"]`).Length() != 1 {
		t.Errorf("an unclaimed task asks to be claimed first")
	}
	r := b.post("/tasks/"+url.PathEscape(pack.ID)+"/claim", url.Values{"return": {"/tasks?task=" + pack.ID}})
	if r.testid("complete-form").Length() != 1 || r.testid("form-linked").Length() != 1 {
		t.Fatalf("after the claim the task is still open, with its form:\n%s", r.body)
	}
	id, fields, required := schemaOf(t, r)
	if id != "pack-form" || fields["weight"] != "number" || !required["weight"] || fields["fragile"] != "checkbox" {
		t.Errorf("the deployed form: %s %v %v", id, fields, required)
	}
	var data map[string]any
	if err := json.Unmarshal([]byte(r.testid("task-form").AttrOr("data-values", "")), &data); err != nil || data["customer"] != "Ada" {
		t.Errorf("the form is filled with the variables: %v %v %q", data, err, r.testid("task-form").AttrOr("data-values", ""))
	}

	// The form's values arrive typed: numbers stay numbers.
	done := b.post("/tasks/"+url.PathEscape(pack.ID)+"/complete", url.Values{
		"variables": {`{"weight": 2.5, "fragile": true, "note": "top side up"}`},
		"return":    {"/tasks?task=" + pack.ID},
	})
	if !strings.HasPrefix(done.text("flash"), "Task completed") || done.testid("task-detail").Length() != 0 {
		t.Fatalf("completed, the inbox shows without the task: %q", done.text("flash"))
	}
	v := b.instance(parcel.ID)
	if v.Variables["weight"] != jsonNumber("2.5") || v.Variables["fragile"] != true {
		t.Errorf("typed values: %#v %#v", v.Variables["weight"], v.Variables["fragile"])
	}

	// Without a linked form: one generated from the variables and the
	// declared output.
	label := taskOf(t, b, parcel.ID, "label")
	g := b.post("/tasks/"+url.PathEscape(label.ID)+"/claim", url.Values{"return": {"/tasks?task=" + label.ID}})
	if g.testid("form-generated").Length() != 1 {
		t.Fatalf("generated form:\n%s", g.body)
	}
	_, fields, required = schemaOf(t, g)
	if fields["trackingNumber"] != "textfield" || !required["trackingNumber"] || fields["weight"] != "number" ||
		fields["fragile"] != "checkbox" || fields["customer"] != "textfield" || required["weight"] {
		t.Errorf("generated fields %v, required %v", fields, required)
	}
}

// A linked form that was not deployed with the process says so, and the
// generated form stands in.
func TestInboxMissingForm(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.deploy("parcel.bpmn")
	inst := b.start("parcel", "", nil)
	b.actAs("ann", "clerks")
	task := taskOf(t, b, inst.ID, "pack")
	p := b.post("/tasks/"+url.PathEscape(task.ID)+"/claim", url.Values{"return": {"/tasks?task=" + task.ID}})
	if !strings.Contains(p.text("form-missing"), "“pack-form”") || p.testid("form-generated").Length() != 1 {
		t.Errorf("missing form:\n%s", p.body)
	}
}
