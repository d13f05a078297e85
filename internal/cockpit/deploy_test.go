package cockpit_test

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
)

// runtimeFixture reads a fixture of the runtime's tests.
func runtimeFixture(t *testing.T, parts ...string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(append([]string{"..", "runtime", "testdata"}, parts...)...))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// The deploy form sits on top and takes .bpmn, .dmn and .form files in one
// upload; a refusal is shown beside it, the refused model drawn from the
// upload with each problem linked to the element it names.
func TestDeployFormAndRefusal(t *testing.T) {
	t.Parallel()
	b := setup(t)
	p := b.mustGet("/processes")
	if p.testid("deploy").Length() != 1 || !strings.Contains(p.testid("deploy-file").AttrOr("accept", ""), ".form") {
		t.Fatalf("deploy form:\n%s", p.body)
	}
	if p.testid("deploy").Prev().Is("h1") == false {
		t.Errorf("the deploy form comes first, right under the title")
	}

	p = b.upload(map[string][]byte{
		"parcel.bpmn":  fixture(t, "parcel.bpmn"),
		"pack.form":    fixture(t, "pack.form"),
		"rules.bpmn":   runtimeFixture(t, "dmn", "rules.bpmn"),
		"discount.dmn": runtimeFixture(t, "dmn", "discount.dmn"),
	})
	if p.status != http.StatusOK || !strings.HasPrefix(p.text("flash"), "Deployed: ") ||
		!strings.Contains(p.text("flash"), "parcel v1") || !strings.Contains(p.text("flash"), "rules v1") {
		t.Fatalf("a deployment of models, a decision and a form: %d %q", p.status, p.text("flash"))
	}

	bad := strings.Replace(string(fixture(t, "review.bpmn")), `targetRef="archive"`, `targetRef="nowhere"`, 1)
	p = b.upload(map[string][]byte{"broken.bpmn": []byte(bad), "pack.form": []byte(`{"components": []}`)})
	if p.status != http.StatusUnprocessableEntity {
		t.Fatalf("refused: %d", p.status)
	}
	var linked []string
	p.doc.Find(`[data-testid="deploy-problem"] [data-testid="problem-link"]`).Each(func(_ int, s *goquery.Selection) {
		linked = append(linked, s.AttrOr("data-element", ""))
	})
	if strings.Join(linked, " ") != "toArchive archive" {
		t.Errorf("each problem links to its element on the diagram: %v\n%s", linked, p.testid("deploy-problems").Text())
	}
	if !strings.Contains(p.text("deploy-problems"), "pack.form") || !strings.Contains(p.text("deploy-problems"), "invalid-form") {
		t.Errorf("the form's problem is listed too: %q", p.text("deploy-problems"))
	}
	d := p.testid("deploy-problems").Find(`[data-testid="diagram"]`)
	if d.Length() != 1 || d.AttrOr("data-xml", "") != bad {
		t.Fatalf("the refused model is drawn from the upload")
	}
	var state struct{ Problems []struct{ ID, Detail string } }
	if err := json.Unmarshal([]byte(p.doc.Find("#diagram-state").AttrOr("data-state", "")), &state); err != nil ||
		len(state.Problems) != 2 || state.Problems[0].ID != "toArchive" || state.Problems[1].ID != "archive" {
		t.Errorf("problems marked: %+v %v", state, err)
	}
}
