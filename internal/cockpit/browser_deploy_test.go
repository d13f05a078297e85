package cockpit_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// A refused upload is drawn beside the form with its problems marked, and
// a problem's link shows its element; a good upload of a model and its
// form deploys both.
func TestBrowserDeployRefusal(t *testing.T) {
	ctx := browser(t)
	b := setup(t)
	dir := t.TempDir()
	broken := filepath.Join(dir, "broken.bpmn")
	bad := strings.Replace(string(fixture(t, "review.bpmn")), `targetRef="archive"`, `targetRef="nowhere"`, 1)
	if err := os.WriteFile(broken, []byte(bad), 0o600); err != nil {
		t.Fatal(err)
	}

	run(t, ctx, "upload a broken model",
		chromedp.Navigate(b.srv.URL+"/processes"),
		chromedp.WaitVisible(css(`[data-testid="deploy-file"]`)),
		chromedp.SetUploadFiles(css(`[data-testid="deploy-file"]`), []string{broken}),
		chromedp.Click(css(`[data-testid="deploy-submit"]`)),
		chromedp.WaitVisible(css(`[data-testid="problem-link"]`)),
	)
	waitFor(t, ctx, "the refused model is drawn", diagramDrawn, 10*time.Second)
	// The flow to "nowhere" cannot be drawn; the task it left unreached is.
	truthy(t, ctx, "its problems are marked", `document.querySelector('#diagram').dataset.problems === 'archive' && !!document.querySelector('#diagram [data-element-id="archive"].gobpm-problem')`)
	run(t, ctx, "follow a problem to its element", chromedp.Click(css(`[data-testid="problem-link"][data-element="archive"]`)))
	waitFor(t, ctx, "the element is shown", `document.querySelector('#diagram').dataset.focus === 'archive' && !!document.querySelector('#diagram [data-element-id="archive"].gobpm-focus')`, 5*time.Second)
	shoot(t, ctx, "deploy-refused.png")
	axeClean(t, ctx, axeSource(t), "/processes with a refused deployment")

	model, form := filepath.Join(dir, "parcel.bpmn"), filepath.Join(dir, "pack.form")
	for path, name := range map[string]string{model: "parcel.bpmn", form: "pack.form"} {
		if err := os.WriteFile(path, fixture(t, name), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	run(t, ctx, "upload a model with its form",
		chromedp.SetUploadFiles(css(`[data-testid="deploy-file"]`), []string{model, form}),
		chromedp.Click(css(`[data-testid="deploy-submit"]`)),
	)
	waitFor(t, ctx, "deployed", `(document.querySelector('[data-testid="flash"]') || {textContent: ''}).textContent === 'Deployed: parcel v1.'`, 10*time.Second)
}
