package cockpit_test

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/chromedp"
)

// gobpmAttr matches a gobpm attribute (not the namespace declaration).
var gobpmAttr = regexp.MustCompile(`\sgobpm:[A-Za-z]+=`)

// prop selects the panel's field for a setting.
func prop(key string) string { return `[data-testid="prop"][data-attr="` + key + `"]` }

// retype replaces a panel field's value as a user does: selects what it
// holds, types over it and leaves it with Tab (the change the panel writes).
func retype(t *testing.T, ctx context.Context, sel, value string) {
	t.Helper()
	run(t, ctx, "wait for "+sel, chromedp.WaitVisible(css(sel)))
	truthy(t, ctx, "select "+sel, `(() => { const i = document.querySelector('`+sel+`'); i.focus(); i.select(); return true; })()`)
	run(t, ctx, "type "+value+" into "+sel, chromedp.SendKeys(css(sel), value), chromedp.KeyEvent("\t"))
}

// fieldIs: the panel's field for key shows value, kept in dialect.
func fieldIs(t *testing.T, ctx context.Context, key, value, dialect string) {
	t.Helper()
	got := eval[[]string](t, ctx, "read "+key, `(() => { const i = document.querySelector('`+prop(key)+`'); return i ? [i.value, i.dataset.dialect || ''] : ['(no field)', '']; })()`)
	if got[0] != value || got[1] != dialect {
		t.Fatalf("%s: the panel shows %q in %q, want %q in %q", key, got[0], got[1], value, dialect)
	}
}

// deployFromModeler deploys the modeler's model and returns version 2's XML.
func deployFromModeler(t *testing.T, ctx context.Context, b *bundle, key string) string {
	t.Helper()
	run(t, ctx, "deploy", chromedp.Click(css(`[data-testid="modeler-deploy"]`)))
	shown := `location.pathname === '/processes/` + key + `' && location.search === '?version=2'`
	waitFor(t, ctx, "version 2 is shown or the deployment refused", shown+` || (document.querySelector('[data-testid="modeler-outcome"]') || {}).textContent`, 15*time.Second)
	if !eval[bool](t, ctx, "version 2 is shown", shown) {
		t.Fatalf("the deployment was refused: %s", eval[string](t, ctx, "the outcome", `document.querySelector('[data-testid="modeler-outcome"]').textContent`))
	}
	def, err := b.rt.Definition(context.Background(), key, 2)
	if err != nil {
		t.Fatalf("version 2: %v", err)
	}
	return string(def.XML)
}

// A Camunda 8 model's settings are shown in the panel as its zeebe:
// extension elements hold them, and edited there: the saved model has the
// new job type in zeebe:taskDefinition, a new assignee in its
// zeebe:assignmentDefinition, its other zeebe settings untouched and no
// gobpm: attribute; a task drawn anew gets its job type in zeebe: too, the
// model's dialect. Download XML saves the edited, undeployed model.
func TestBrowserModelerEditsZeebeSettings(t *testing.T) {
	ctx := browser(t)
	b := setup(t)
	b.deploy("zeebepay.bpmn")
	downloads, saved := allowDownloads(t, ctx)

	run(t, ctx, "open the modeler", chromedp.Navigate(b.srv.URL+"/processes/zeebepay/edit"))
	waitFor(t, ctx, "the modeler is ready", modelerReady, 15*time.Second)
	run(t, ctx, "select “Charge the card”", chromedp.Click(css(`#modeler [data-element-id="charge"]`)), chromedp.WaitVisible(css(prop("gobpm:type"))))
	fieldIs(t, ctx, "gobpm:type", "charge-card", "zeebe")
	fieldIs(t, ctx, "gobpm:retries", "5", "zeebe")
	truthy(t, ctx, "the panel says where the job type is kept", `document.querySelector('[data-testid="prop-where"]').textContent === 'zeebe:taskDefinition type'`)
	retype(t, ctx, prop("gobpm:type"), "charge-card-v2")

	run(t, ctx, "select “Approve the payment”", chromedp.Click(css(`#modeler [data-element-id="approve"]`)), chromedp.WaitVisible(css(prop("gobpm:candidateGroups"))))
	fieldIs(t, ctx, "gobpm:candidateGroups", "finance", "zeebe")
	fieldIs(t, ctx, "gobpm:assignee", "", "zeebe")
	retype(t, ctx, prop("gobpm:candidateGroups"), "auditors")
	retype(t, ctx, prop("gobpm:assignee"), "ann")
	shoot(t, ctx, "modeler-zeebe.png")
	truthy(t, ctx, "draw a new service task after “Approve the payment” and select it", `(() => {
		const m = window.gobpmModeler;
		const approve = m.get('elementRegistry').get('approve');
		const shape = m.get('modeling').appendShape(approve, { type: 'bpmn:ServiceTask' }, { x: approve.x + 50, y: approve.y + 200 });
		shape.businessObject.id = 'refund';
		m.get('elementRegistry').updateId(shape, 'refund');
		m.get('selection').select(shape);
		return true;
	})()`)
	run(t, ctx, "its panel", chromedp.WaitVisible(css(prop("gobpm:type"))))
	fieldIs(t, ctx, "gobpm:type", "", "zeebe")
	retype(t, ctx, prop("gobpm:type"), "refund")

	run(t, ctx, "download the edited model", chromedp.Click(css(`[data-testid="modeler-download"]`)))
	edited := waitForDownload(t, downloads, saved, "zeebepay-v1-edited.bpmn")
	if !strings.Contains(edited, `type="charge-card-v2"`) || !strings.Contains(edited, `candidateGroups="auditors"`) {
		t.Errorf("the download is the edited model:\n%s", edited)
	}
	if _, err := b.rt.Definition(context.Background(), "zeebepay", 2); err == nil {
		t.Error("downloading deployed a version")
	}

	xml := deployFromModeler(t, ctx, b, "zeebepay")
	for _, want := range []string{
		`<zeebe:taskDefinition type="charge-card-v2" retries="5" />`,
		`<zeebe:assignmentDefinition candidateGroups="auditors" assignee="ann" />`,
		`<zeebe:input source="=amount" target="sum" />`,
		`<zeebe:taskDefinition type="refund" />`,
	} {
		if !strings.Contains(xml, want) {
			t.Errorf("version 2 lacks %s:\n%s", want, xml)
		}
	}
	if gobpmAttr.MatchString(xml) || strings.Contains(xml, "xmlns:gobpm") {
		t.Errorf("version 2 has gobpm: attributes beside the zeebe ones:\n%s", xml)
	}
	if strings.Count(xml, "zeebe:taskDefinition") != 2 || strings.Count(xml, "zeebe:assignmentDefinition") != 1 {
		t.Errorf("each zeebe setting is written once:\n%s", xml)
	}
}

// A Camunda 7 model's settings are edited as its camunda: attributes; a
// task drawn for both Camunda 7 and 8 shows its zeebe: job type, as the
// parser reads it, and after the edit keeps that one only.
func TestBrowserModelerEditsCamundaSettings(t *testing.T) {
	ctx := browser(t)
	b := setup(t)
	b.deploy("camundaship.bpmn")

	run(t, ctx, "open the modeler", chromedp.Navigate(b.srv.URL+"/processes/camundaship/edit"))
	waitFor(t, ctx, "the modeler is ready", modelerReady, 15*time.Second)
	run(t, ctx, "select “Ship the parcel”", chromedp.Click(css(`#modeler [data-element-id="ship"]`)), chromedp.WaitVisible(css(prop("gobpm:type"))))
	fieldIs(t, ctx, "gobpm:type", "ship-parcel", "camunda")
	retype(t, ctx, prop("gobpm:type"), "ship-box")
	run(t, ctx, "select “Pack the parcel”", chromedp.Click(css(`#modeler [data-element-id="pack"]`)), chromedp.WaitVisible(css(prop("gobpm:candidateGroups"))))
	fieldIs(t, ctx, "gobpm:candidateGroups", "warehouse", "camunda")
	retype(t, ctx, prop("gobpm:candidateGroups"), "dock")
	run(t, ctx, "select “Print the label”", chromedp.Click(css(`#modeler [data-element-id="label"]`)), chromedp.WaitVisible(css(prop("gobpm:type"))))
	fieldIs(t, ctx, "gobpm:type", "print-c8", "zeebe")
	retype(t, ctx, prop("gobpm:type"), "print-label")

	xml := deployFromModeler(t, ctx, b, "camundaship")
	for _, want := range []string{
		`camunda:type="external" camunda:topic="ship-box"`,
		`camunda:candidateGroups="dock"`,
		`camunda:asyncBefore="true"`,
		`<zeebe:taskDefinition type="print-label" />`,
	} {
		if !strings.Contains(xml, want) {
			t.Errorf("version 2 lacks %s:\n%s", want, xml)
		}
	}
	if strings.Contains(xml, "print-c7") || strings.Count(xml, `camunda:type="external"`) != 1 {
		t.Errorf("the dual task keeps its Camunda 7 job type beside the edited one:\n%s", xml)
	}
	if gobpmAttr.MatchString(xml) || strings.Contains(xml, "xmlns:gobpm") {
		t.Errorf("version 2 has gobpm: attributes beside the camunda ones:\n%s", xml)
	}
}

// allowDownloads lets the browser save files into a temp dir, returned
// with the names of the downloads it finished, as the browser reports
// them (Browser.downloadProgress "completed").
func allowDownloads(t *testing.T, ctx context.Context) (string, <-chan string) {
	t.Helper()
	dir := t.TempDir()
	saved := make(chan string, 16)
	var mu sync.Mutex
	names := map[string]string{} // download GUID → suggested file name
	listen := func(ev any) {
		mu.Lock()
		defer mu.Unlock()
		switch e := ev.(type) {
		case *cdpbrowser.EventDownloadWillBegin:
			names[e.GUID] = e.SuggestedFilename
		case *cdpbrowser.EventDownloadProgress:
			if e.State == cdpbrowser.DownloadProgressStateCompleted {
				select {
				case saved <- names[e.GUID]:
				default:
				}
			}
		}
	}
	// The command below goes to the page's session, which then reports
	// the downloads.
	if err := chromedp.Listen(ctx, listen); err != nil {
		t.Fatalf("listen to the page: %v", err)
	}
	events := true
	if _, err := chromedp.Call(ctx, cdpbrowser.SetDownloadBehavior, cdpbrowser.SetDownloadBehaviorParams{
		Behavior: cdpbrowser.SetDownloadBehaviorBehaviorAllow, DownloadPath: dir, EventsEnabled: &events}); err != nil {
		t.Fatalf("allow downloads: %v", err)
	}
	return dir, saved
}

// waitForDownload waits until the browser reports the download of name
// finished and returns the saved file's content.
func waitForDownload(t *testing.T, dir string, saved <-chan string, name string) string {
	t.Helper()
	timeout := time.After(30 * time.Second)
	for {
		select {
		case got := <-saved:
			if got != name {
				t.Logf("another download finished: %q", got)
				continue
			}
			data, err := os.ReadFile(filepath.Join(dir, name))
			if err != nil {
				t.Fatalf("the browser reported %s saved: %v", name, err)
			}
			return string(data)
		case <-timeout:
			entries, _ := os.ReadDir(dir)
			t.Fatalf("%s was not saved within 30 s (the folder holds %v)", name, entries)
			return ""
		}
	}
}
