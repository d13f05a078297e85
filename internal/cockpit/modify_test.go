package cockpit_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// TestModifyFromTheInstancePage moves a token from "check" to "archive"
// through the instance page's form: a preview that changes nothing, then
// the confirmation; a refused choice keeps the form.
func TestModifyFromTheInstancePage(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.deploy("review.bpmn")
	inst := b.start("review", "claim-9", nil)
	path := "/instances/" + string(inst.ID)

	p := b.mustGet(path)
	if got := p.doc.Find(`[data-testid="modify-cancel"] option[value="check"]`).Text(); got != "Check the claim (check) — 1 token" {
		t.Errorf("cancel offers %q", got)
	}
	if p.doc.Find(`[data-testid="modify-activate"] option[value="archive"]`).Length() != 1 {
		t.Errorf("start does not offer archive:\n%s", p.testid("modify").Text())
	}

	// The preview says what would happen and changes nothing.
	move := url.Values{"cancel": {"check"}, "activate": {"archive"}, "variables": {`{"moved": true}`}, "step": {"preview"}}
	p = b.post(path+"/modify", move)
	preview := p.testid("modify-preview").Text()
	if p.status != http.StatusOK || !strings.Contains(preview, "cancel every token at check") || !strings.Contains(preview, "start archive anew") || !strings.Contains(preview, "setting moved") {
		t.Fatalf("preview: %d %q", p.status, preview)
	}
	if p.doc.Find(`[data-testid="wait"][data-node="check"]`).Length() != 1 {
		t.Errorf("the preview moved the token")
	}
	if got := p.doc.Find(`[data-testid="modify-confirm-form"] input[name="activate"]`).AttrOr("value", ""); got != "archive" {
		t.Errorf("the confirmation carries activate=%q", got)
	}

	// Confirmed: the token is at archive, the history says so.
	move.Set("step", "confirm")
	p = b.post(path+"/modify", move)
	if p.status != http.StatusOK || !strings.HasPrefix(p.text("flash"), "Modified: cancel every token at check") {
		t.Fatalf("confirm: %d %q", p.status, p.text("flash"))
	}
	if p.doc.Find(`[data-testid="wait"][data-node="archive"]`).Length() != 1 || p.doc.Find(`[data-testid="wait"][data-node="check"]`).Length() != 0 {
		t.Errorf("after the move the instance waits at %q", p.testid("waits").Text())
	}
	if p.doc.Find(`[data-testid="fact"][data-kind="instance-modified"]`).Length() != 1 {
		t.Errorf("the history does not record the modification")
	}
	if got := p.doc.Find(`[data-testid="variables"] [data-name="moved"] [data-testid="variable-value"]`).Text(); got != "true" {
		t.Errorf("variable moved = %q", got)
	}

	// Refusals keep the form and say why.
	for _, tc := range []struct {
		form   url.Values
		status int
		says   string
	}{
		{url.Values{"step": {"preview"}}, http.StatusBadRequest, "Choose an element"},
		{url.Values{"cancel": {"archive"}, "variables": {`{"x":1}`}}, http.StatusBadRequest, "Variables go with an element to start"},
		{url.Values{"activate": {"archive"}, "variables": {`[1]`}}, http.StatusBadRequest, "JSON object"},
		{url.Values{"cancel": {"check"}, "step": {"confirm"}}, http.StatusBadRequest, "no instance of check is active"},
	} {
		p := b.post(path+"/modify", tc.form)
		if p.status != tc.status || !strings.Contains(p.text("flash"), tc.says) {
			t.Errorf("%v: %d %q", tc.form, p.status, p.text("flash"))
		}
	}
}
