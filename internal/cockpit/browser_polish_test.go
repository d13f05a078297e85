package cockpit_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/gobpm/gobpm/internal/runtime"
)

// TestBrowserHistoryNumbersShowWhole checks that each fact's number is
// drawn whole inside the scrolled history, also past 9 (the list's own
// markers sat left of the box and lost their first digit).
func TestBrowserHistoryNumbersShowWhole(t *testing.T) {
	ctx := browser(t)
	b := setup(t)
	b.deploy("parcel.bpmn")
	inst := b.start("parcel", "bk-1", nil)
	for i := 0; i < 8; i++ {
		if _, err := b.rt.SetVariables(context.Background(), inst.ID, "", map[string]any{fmt.Sprintf("v%d", i): i}, false); err != nil {
			t.Fatal(err)
		}
	}
	run(t, ctx, "open the instance",
		chromedp.Navigate(b.srv.URL+"/instances/"+string(inst.ID)),
		chromedp.WaitVisible(css(`[data-testid="history"]`)),
	)
	truthy(t, ctx, "the number of fact 12 lies inside the history box", `(() => {
		const ol = document.querySelector('[data-testid="history"]').getBoundingClientRect();
		const n = document.querySelector('[data-testid="fact"][data-seq="12"] [data-testid="fact-seq"]');
		if (!n || n.textContent.trim() !== '12') return false;
		const r = n.getBoundingClientRect();
		return r.width > 0 && r.left >= ol.left && r.right <= ol.right;
	})()`)
}

// TestBrowserModelerFitsBesideThePalette checks that the modeler opens
// with the whole diagram right of its palette: the start event is not
// covered, and every element is within the canvas.
func TestBrowserModelerFitsBesideThePalette(t *testing.T) {
	ctx := browser(t)
	b := setup(t)
	b.deploy("parcel.bpmn", "approvals.bpmn", "transaction.bpmn", "casework.bpmn", "joins.bpmn")
	if _, err := b.rt.Deploy(context.Background(), []runtime.File{{Name: "long.bpmn", Content: longChain(14)}}); err != nil {
		t.Fatal(err)
	}
	for _, m := range []struct{ key, start string }{
		{"long", "s"}, {"parcel", "ordered"}, {"approvals", "start"}, {"booking", "start"}, {"casework", "opened"}, {"joins", "begin"},
	} {
		run(t, ctx, "open the modeler of "+m.key, chromedp.Navigate(b.srv.URL+"/processes/"+m.key+"/edit"))
		waitFor(t, ctx, "the modeler is ready", modelerReady, 15*time.Second)
		truthy(t, ctx, m.key+": the start event lies right of the palette", `(() => {
			const p = document.querySelector('#modeler .djs-palette').getBoundingClientRect();
			const s = document.querySelector('#modeler [data-element-id="`+m.start+`"]').getBoundingClientRect();
			return p.width > 0 && s.width > 0 && s.left > p.right;
		})()`)
		truthy(t, ctx, m.key+": every element lies inside the canvas", `(() => {
			const c = document.querySelector('#modeler').getBoundingClientRect();
			return [...document.querySelectorAll('#modeler .djs-element.djs-shape')].every(e => {
				const r = e.getBoundingClientRect();
				return r.left >= c.left - 1 && r.right <= c.right + 1 && r.top >= c.top - 1 && r.bottom <= c.bottom + 1;
			});
		})()`)
	}
}

// longChain is a process wider than the modeler: a start event, n user
// tasks in a row and an end event, without a diagram (the modeler lays it
// out).
func longChain(n int) []byte {
	var els strings.Builder
	prev := "s"
	for i := 1; i <= n; i++ {
		id := fmt.Sprintf("t%d", i)
		fmt.Fprintf(&els, `<userTask id="%s" name="Step %d"/><sequenceFlow id="f%d" sourceRef="%s" targetRef="%s"/>`, id, i, i, prev, id)
		prev = id
	}
	return []byte(`<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" targetNamespace="https://gobpm.test/long">
  <process id="long" isExecutable="true"><startEvent id="s"/>` + els.String() +
		`<endEvent id="e"/><sequenceFlow id="fe" sourceRef="` + prev + `" targetRef="e"/></process>
</definitions>`)
}
