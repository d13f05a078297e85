package cockpit_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/gobpm/gobpm/internal/runtime"
)

// The modeler page opens a version for those who may deploy it, and its
// deploy answers in JSON: the new version's page, or the problems by
// element; a model that no longer declares the process is refused.
func TestModelerDeploy(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.deploy("review.bpmn")
	p := b.mustGet("/processes/review/edit")
	if m := p.testid("modeler"); m.AttrOr("data-xml-url", "") != "/processes/review/versions/1/xml" || m.AttrOr("data-deploy-url", "") != "/processes/review/edit" {
		t.Fatalf("modeler page:\n%s", p.body)
	}
	if b.mustGet("/processes/review").testid("edit-link").AttrOr("href", "") != "/processes/review/edit?version=1" {
		t.Errorf("the process page links the modeler")
	}
	answer := func(xml string) (int, map[string]any) {
		t.Helper()
		r := b.post("/processes/review/edit", url.Values{"xml": {xml}})
		var a map[string]any
		if err := json.Unmarshal([]byte(r.body), &a); err != nil {
			t.Fatalf("answer %d: %v\n%s", r.status, err, r.body)
		}
		return r.status, a
	}
	model := string(fixture(t, "review.bpmn"))
	if st, a := answer(strings.Replace(model, `name="Archive the claim"`, `name="Archive it"`, 1)); st != http.StatusOK || a["url"] != "/processes/review?version=2" {
		t.Errorf("deploy: %d %v", st, a)
	}
	st, a := answer(strings.Replace(model, `targetRef="archive"`, `targetRef="nowhere"`, 1))
	problems, _ := a["problems"].([]any)
	if st != http.StatusUnprocessableEntity || len(problems) == 0 || problems[0].(map[string]any)["element"] != "toArchive" {
		t.Errorf("refused: %d %v", st, a)
	}
	if st, a := answer(strings.Replace(model, `process id="review"`, `process id="other"`, 1)); st != http.StatusUnprocessableEntity || !strings.Contains(a["message"].(string), "keep its id") {
		t.Errorf("another key: %d %v", st, a)
	}
	if _, err := b.rt.Definition(context.Background(), "other", 0); runtime.ErrorCode(err) != runtime.ENOTFOUND {
		t.Errorf("the refused model registered its process: %v", err)
	}
	if st, _ := answer(" "); st != http.StatusBadRequest {
		t.Errorf("empty: %d", st)
	}
}
