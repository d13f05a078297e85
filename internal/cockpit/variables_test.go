package cockpit_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/gobpm/gobpm/web/templates"
)

// row is the root variables panel's row of a variable.
func row(p *page, name string) *goquery.Selection {
	return p.doc.Find(`[data-testid="variables"] [data-testid="variable"][data-name="` + name + `"]`)
}

// Each variable shows its type and an editor pre-filled with its value;
// a long one is cut with "show all" and edited as JSON.
func TestVariablesShownWithTypeAndEditor(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.deploy("review.bpmn")
	long := strings.Repeat("x", templates.LongValue+10)
	inst := b.start("review", "", map[string]any{"amount": 42, "note": "hi there", "ok": true, "none": nil,
		"items": []any{1, 2}, "long": long})
	p := b.mustGet("/instances/" + string(inst.ID))
	for name, want := range map[string]string{"amount": "number", "note": "string", "ok": "boolean", "none": "null", "items": "json", "long": "string"} {
		r := row(p, name)
		if got := r.AttrOr("data-type", ""); got != want || r.Find(`[data-testid="variable-type"]`).Text() != want {
			t.Errorf("%s: type %q, want %q", name, got, want)
		}
	}
	if href := row(p, "note").Find(`[data-testid="variable-edit-link"]`).AttrOr("href", ""); href != "?var=note#var-edit" {
		t.Errorf("the edit link: %q", href)
	}
	edit := func(name string) *goquery.Selection {
		return row(b.mustGet("/instances/"+string(inst.ID)+"?var="+name), name).Find(`details[data-testid="variable-edit"][open]`)
	}
	if v, _ := edit("note").Find(`input[name="value"]`).Attr("value"); v != "hi there" {
		t.Errorf("a string is edited without its quotes: %q", v)
	}
	if v := edit("amount").Find(`select[name="type"] option[selected]`).Text(); v != "number" {
		t.Errorf("the editor starts with the variable's type: %q", v)
	}
	if v := edit("items").Find(`textarea[name="value"]`).Text(); v != "[\n  1,\n  2\n]" {
		t.Errorf("JSON is edited in the JSON editor, indented: %q", v)
	}
	lr := row(p, "long")
	le := edit("long")
	if v := lr.Find(`[data-testid="variable-value"]`).Text(); len(v) > 400 || !strings.HasSuffix(v, "…") {
		t.Errorf("a long value is shown cut: %d bytes", len(v))
	}
	if v := lr.Find(`[data-testid="variable-show-all"] [data-testid="variable-full"]`).Text(); v != `"`+long+`"` {
		t.Errorf("show all holds the whole value: %d bytes", len(v))
	}
	if ta := le.Find(`textarea[name="value"]`); ta.Length() != 1 || le.Find(`option[selected]`).Text() != "json" {
		t.Error("a long value is edited as JSON")
	}
	if p.testid("variable-add").Length() == 0 {
		t.Error("no add-variable form")
	}
}

// The editors write one variable by its type; a value not of its type is
// refused with the form open again, what was typed, and why.
func TestVariableEditorWritesByType(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.deploy("review.bpmn")
	inst := b.start("review", "", map[string]any{"amount": 42, "items": []any{1}})
	path := "/instances/" + string(inst.ID)
	action := path + "/variables"
	set := func(mode, name, typ, value string) *page {
		return b.post(action, url.Values{"mode": {mode}, "scope": {""}, "name": {name}, "type": {typ}, "value": {value}})
	}

	p := set("edit", "amount", "number", " 43.5 ")
	if p.status != http.StatusOK || p.text("flash") != "Set amount." {
		t.Fatalf("edit: %d %q", p.status, p.text("flash"))
	}
	if got := row(p, "amount").Find(`[data-testid="variable-value"]`).Text(); got != "43.5" {
		t.Errorf("amount is %q", got)
	}
	if got, ok := b.instance(inst.ID).Variables["amount"].(json.Number); !ok || got != "43.5" {
		t.Errorf("the stored amount: %#v", b.instance(inst.ID).Variables["amount"])
	}

	refused := []struct {
		mode, name, typ, value, want string
	}{
		{"edit", "amount", "number", "abc", `"abc" is not a number`},
		{"edit", "items", "json", "{\"a\": 1,\n  }", "The value is not valid JSON at line 2, column 3"},
		{"edit", "items", "json", `[1] 2`, "there is more text after the value"},
		{"edit", "items", "json", `[1, `, "it ends too early"},
		{"edit", "amount", "boolean", "yes", `"yes" is not a boolean`},
		{"add", " ", "string", "x", "Name the variable."},
		{"edit", "amount", "date", "x", `"date" is not a variable type`},
	}
	for _, tc := range refused {
		p := set(tc.mode, tc.name, tc.typ, tc.value)
		if p.status != http.StatusBadRequest {
			t.Errorf("%s %q: %d", tc.typ, tc.value, p.status)
			continue
		}
		form := p.doc.Find(`details[data-testid="variable-` + tc.mode + `"][open]`)
		if msg := form.Find(`[data-testid="var-error"]`).Text(); !strings.Contains(msg, tc.want) {
			t.Errorf("%s %q: message %q, want %q", tc.typ, tc.value, msg, tc.want)
		}
		typed := form.Find(`[name="value"]`)
		v, ok := typed.Attr("value")
		if !ok {
			v = typed.Text()
		}
		if v != tc.value {
			t.Errorf("%s %q: the form shows %q again", tc.typ, tc.value, v)
		}
	}
	if got := b.instance(inst.ID).Variables["amount"]; got != json.Number("43.5") {
		t.Errorf("a refused value was written: %#v", got)
	}

	p = set("add", "city", "string", "Berlin")
	if p.text("flash") != "Set city." || row(p, "city").Find(`[data-testid="variable-value"]`).Text() != `"Berlin"` {
		t.Errorf("add: %q %q", p.text("flash"), row(p, "city").Text())
	}
	p = set("edit", "items", "json", `{"a": [true, null]}`)
	if got := row(p, "items").Find(`[data-testid="variable-value"]`).Text(); got != `{"a":[true,null]}` || row(p, "items").AttrOr("data-type", "") != "json" {
		t.Errorf("items is %q", got)
	}
	p = set("edit", "items", "null", "ignored")
	if got := row(p, "items").AttrOr("data-type", ""); got != "null" {
		t.Errorf("items is now %q", got)
	}
}

// A scope's add form writes into that scope itself.
func TestVariableAddedToAScope(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.deploy("approvals.bpmn")
	inst := b.start("approvals", "", map[string]any{"approvers": []any{"ann", "bob"}})
	path := "/instances/" + string(inst.ID)
	p := b.mustGet(path)
	it := p.doc.Find(`[data-testid="scope"][data-kind="iteration"]`).First()
	scope := it.AttrOr("data-scope", "")
	if scope == "" || p.doc.Find(`[data-testid="var-scope"] option[value="`+scope+`"]`).Length() != 1 {
		t.Fatalf("the add form does not offer the iteration scope %q", scope)
	}
	if it.Find(`[data-testid="variable-edit-link"]`).Length() == 0 {
		t.Error("an iteration's variables have no edit link")
	}
	p = b.post(path+"/variables", url.Values{"mode": {"add"}, "scope": {scope}, "name": {"remark"}, "type": {"string"}, "value": {"late"}})
	if p.text("flash") != "Set remark." {
		t.Fatalf("add: %d %q", p.status, p.text("flash"))
	}
	in := p.doc.Find(`[data-testid="scope"][data-scope="` + scope + `"] > table [data-testid="variable"][data-name="remark"]`)
	if in.Length() != 1 || row(p, "remark").Length() != 0 {
		t.Errorf("remark is not the iteration's own variable:\n%s", p.testid("scope-tree-panel").Text())
	}
}
