package cockpit_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/beevik/etree"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/gobpm/gobpm/internal/bpmn"
	"github.com/gobpm/gobpm/internal/connector/httpjson"
)

// choose picks value in the panel's choice for key as the keyboard does
// (the select focused, its value changed, a change event).
func choose(t *testing.T, ctx context.Context, key, value string) {
	t.Helper()
	run(t, ctx, "wait for "+key, chromedp.WaitVisible(css(prop(key))))
	truthy(t, ctx, "choose "+value+" for "+key, `(() => {
		const s = document.querySelector('`+prop(key)+`');
		if (![...s.options].some(o => o.value === `+jsString(value)+`)) return false;
		s.focus();
		s.value = `+jsString(value)+`;
		s.dispatchEvent(new Event('change', { bubbles: true }));
		return true;
	})()`)
}

// jsString quotes s for a script.
func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// modelerXML returns the modeler's model as Deploy and Download XML save it.
func modelerXML(t *testing.T, ctx context.Context) string {
	t.Helper()
	sctx, cancel := context.WithTimeout(ctx, step)
	defer cancel()
	xml, err := chromedp.Run(sctx, chromedp.Evaluate[string](`window.gobpmModelerSaved().then(r => r.xml)`, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("save the model: %v", err)
	}
	return xml
}

// reopen imports xml into the modeler again, as opening a saved model
// does, and waits until it is drawn.
func reopen(t *testing.T, ctx context.Context, xml string) {
	t.Helper()
	sctx, cancel := context.WithTimeout(ctx, step)
	defer cancel()
	if _, err := chromedp.Run(sctx, chromedp.Evaluate[bool](`window.gobpmModeler.importXML(`+jsString(xml)+`).then(() => true)`, chromedp.EvalAwaitPromise)); err != nil {
		t.Fatalf("import the saved model: %v", err)
	}
}

// pairs returns, for the element with id in xml, the key → value entries
// of its child elements named child (an input's target → source, a
// header's key → value, a property's name → value), wherever they sit in
// its extension elements; the prefix of each entry's element is returned
// in prefixes.
func pairs(t *testing.T, xml, id, child, key, value string) (map[string]string, map[string]bool) {
	t.Helper()
	doc := etree.NewDocument()
	if err := doc.ReadFromString(xml); err != nil {
		t.Fatalf("the saved model is no XML: %v", err)
	}
	el := doc.FindElement(`//*[@id='` + id + `']`)
	if el == nil {
		t.Fatalf("no element %s in\n%s", id, xml)
	}
	got, prefixes := map[string]string{}, map[string]bool{}
	for _, c := range el.FindElements(`.//` + child) {
		if c.SelectAttr(key) == nil {
			continue
		}
		got[c.SelectAttrValue(key, "")] = c.SelectAttrValue(value, "")
		prefixes[c.Space] = true
	}
	return got, prefixes
}

// attrOf returns attribute name (prefix:local) of the element with id.
func attrOf(t *testing.T, xml, id, name string) string {
	t.Helper()
	doc := etree.NewDocument()
	if err := doc.ReadFromString(xml); err != nil {
		t.Fatalf("the saved model is no XML: %v", err)
	}
	el := doc.FindElement(`//*[@id='` + id + `']`)
	if el == nil {
		t.Fatalf("no element %s", id)
	}
	return el.SelectAttrValue(name, "")
}

// A service task of a gobpm model becomes an HTTP call in the panel: the
// deployed version has gobpm:type="gobpm:http", gobpm:input mappings for
// the call's inputs and zeebe:taskHeaders for its headers, as the server
// runs them, the credentials as {{secrets.…}} placeholders the panel
// explains; opening it again shows every setting; the panel passes axe.
func TestBrowserModelerHTTPCallGobpm(t *testing.T) {
	ctx := browser(t)
	src := axeSource(t)
	b := setup(t)
	b.deploy("httpcall.bpmn")

	run(t, ctx, "open the modeler", chromedp.Navigate(b.srv.URL+"/processes/httpcall/edit"))
	waitFor(t, ctx, "the modeler is ready", modelerReady, 15*time.Second)
	run(t, ctx, "select “Fetch the order”", chromedp.Click(css(`#modeler [data-element-id="fetch"]`)), chromedp.WaitVisible(css(prop("kind"))))
	fieldIs(t, ctx, "kind", "job", "")
	fieldIs(t, ctx, "gobpm:type", "fetch-order", "gobpm")
	choose(t, ctx, "kind", "http")
	run(t, ctx, "the HTTP call's settings", chromedp.WaitVisible(css(`[data-testid="props-http"]`)))
	truthy(t, ctx, "the choice keeps the keyboard's place", `document.activeElement === document.querySelector('`+prop("kind")+`')`)
	truthy(t, ctx, "no job type to type for an HTTP call", `!document.querySelector('`+prop("gobpm:type")+`')`)
	fieldIs(t, ctx, "http:method", "GET", "gobpm")

	choose(t, ctx, "http:method", "POST")
	retype(t, ctx, prop("http:url"), `="https://shop.example.com/orders/" + orderId`)
	retype(t, ctx, prop("http:headers"), `{"X-Trace": trace}`)
	retype(t, ctx, prop("http:body"), `={qty: quantity}`)
	choose(t, ctx, "http:authentication.type", "basic")
	retype(t, ctx, prop("http:authentication.username"), "shop")
	retype(t, ctx, prop("http:authentication.password"), "{{secrets.SHOP_PASSWORD}}")
	retype(t, ctx, prop("http:readTimeoutInSeconds"), "30")
	retype(t, ctx, prop("http:resultVariable"), "order")
	retype(t, ctx, prop("http:resultExpression"), "{status: body.status}")
	retype(t, ctx, prop("http:errorExpression"), `=if error.code = "404" then bpmnError("NO_ORDER", error.message) else null`)
	retype(t, ctx, prop("http:retryBackoff"), "PT10S")
	retype(t, ctx, prop("gobpm:retries"), "2")
	fieldIs(t, ctx, "http:headers", `={"X-Trace": trace}`, "gobpm")
	fieldIs(t, ctx, "http:resultVariable", "order", "zeebe")
	truthy(t, ctx, "the panel says how credentials go in", `document.querySelector('[data-testid="props-secrets"]').textContent.includes('{{secrets.NAME}}') &&
		document.querySelector('`+prop("http:authentication.password")+`').getAttribute('aria-describedby').split(' ').includes('props-secrets')`)
	truthy(t, ctx, "every field has a label", `[...document.querySelectorAll('#props-fields [data-testid="prop"]')].every(i => i.labels.length === 1 && i.labels[0].textContent.trim() !== '')`)
	shoot(t, ctx, "modeler-http.png")
	axeClean(t, ctx, src, "/processes/httpcall/edit with an HTTP call")

	xml := deployFromModeler(t, ctx, b, "httpcall")
	if got := attrOf(t, xml, "fetch", "gobpm:type"); got != "gobpm:http" {
		t.Errorf("job type %q, want gobpm:http:\n%s", got, xml)
	}
	if got := attrOf(t, xml, "fetch", "gobpm:retries"); got != "2" {
		t.Errorf("retries %q, want 2", got)
	}
	inputs, spaces := pairs(t, xml, "fetch", "input", "target", "source")
	want := map[string]string{
		"method": "POST", "url": `="https://shop.example.com/orders/" + orderId`, "headers": `={"X-Trace": trace}`, "body": "={qty: quantity}",
		"authentication.type": "basic", "authentication.username": "shop", "authentication.password": "{{secrets.SHOP_PASSWORD}}",
		"readTimeoutInSeconds": "30",
	}
	if !reflect.DeepEqual(inputs, want) || !reflect.DeepEqual(spaces, map[string]bool{"gobpm": true}) {
		t.Errorf("inputs %v in %v, want %v as gobpm:input:\n%s", inputs, spaces, want, xml)
	}
	headers, spaces := pairs(t, xml, "fetch", "header", "key", "value")
	wantHeaders := map[string]string{"resultVariable": "order", "resultExpression": "={status: body.status}",
		"errorExpression": `=if error.code = "404" then bpmnError("NO_ORDER", error.message) else null`, "retryBackoff": "PT10S"}
	if !reflect.DeepEqual(headers, wantHeaders) || !reflect.DeepEqual(spaces, map[string]bool{"zeebe": true}) {
		t.Errorf("headers %v in %v, want %v as zeebe:header:\n%s", headers, spaces, wantHeaders, xml)
	}
	if strings.Contains(xml, "zeebe:taskDefinition") || strings.Count(xml, "<zeebe:taskHeaders>") != 1 {
		t.Errorf("the job type is gobpm's only, the headers in one zeebe:taskHeaders:\n%s", xml)
	}

	run(t, ctx, "open version 2 in the modeler", chromedp.Navigate(b.srv.URL+"/processes/httpcall/edit?version=2"))
	waitFor(t, ctx, "the modeler is ready", modelerReady, 15*time.Second)
	run(t, ctx, "select “Fetch the order”", chromedp.Click(css(`#modeler [data-element-id="fetch"]`)), chromedp.WaitVisible(css(`[data-testid="props-http"]`)))
	fieldIs(t, ctx, "kind", "http", "")
	fieldIs(t, ctx, "http:method", "POST", "gobpm")
	fieldIs(t, ctx, "http:url", `="https://shop.example.com/orders/" + orderId`, "gobpm")
	fieldIs(t, ctx, "http:authentication.type", "basic", "gobpm")
	fieldIs(t, ctx, "http:authentication.password", "{{secrets.SHOP_PASSWORD}}", "gobpm")
	fieldIs(t, ctx, "http:retryBackoff", "PT10S", "zeebe")
	fieldIs(t, ctx, "gobpm:retries", "2", "gobpm")

	choose(t, ctx, "http:authentication.type", "bearer")
	run(t, ctx, "the bearer token's field", chromedp.WaitVisible(css(prop("http:authentication.token"))))
	truthy(t, ctx, "basic's fields are gone", `!document.querySelector('`+prop("http:authentication.password")+`')`)
	inputs, _ = pairs(t, modelerXML(t, ctx), "fetch", "input", "target", "source")
	if _, ok := inputs["authentication.password"]; ok || inputs["authentication.type"] != "bearer" {
		t.Errorf("another authentication drops the password: %v", inputs)
	}
	choose(t, ctx, "kind", "job")
	run(t, ctx, "the job type's field", chromedp.WaitVisible(css(prop("gobpm:type"))))
	retype(t, ctx, prop("gobpm:type"), "fetch-order")
	saved := modelerXML(t, ctx)
	if strings.Contains(saved, "gobpm:input") || strings.Contains(saved, "zeebe:header") || attrOf(t, saved, "fetch", "gobpm:type") != "fetch-order" {
		t.Errorf("a job for a worker keeps none of the HTTP call:\n%s", saved)
	}
}

// A Camunda 8 REST connector task is shown as its zeebe:ioMapping and
// zeebe:taskHeaders hold it (a lower-case method too) and edited there:
// its other inputs stay, nothing gobpm: is added; a service task drawn
// anew in the model becomes Camunda's REST connector.
func TestBrowserModelerHTTPCallZeebe(t *testing.T) {
	ctx := browser(t)
	b := setup(t)
	b.deploy("zeebehttp.bpmn")

	run(t, ctx, "open the modeler", chromedp.Navigate(b.srv.URL+"/processes/zeebehttp/edit"))
	waitFor(t, ctx, "the modeler is ready", modelerReady, 15*time.Second)
	run(t, ctx, "select “Look the customer up”", chromedp.Click(css(`#modeler [data-element-id="lookup"]`)), chromedp.WaitVisible(css(`[data-testid="props-http"]`)))
	fieldIs(t, ctx, "kind", "http", "")
	fieldIs(t, ctx, "http:method", "GET", "zeebe")
	fieldIs(t, ctx, "http:url", `="https://crm.example.com/customers/" + customerId`, "zeebe")
	fieldIs(t, ctx, "http:authentication.type", "bearer", "zeebe")
	fieldIs(t, ctx, "http:authentication.token", "{{secrets.CRM_TOKEN}}", "zeebe")
	fieldIs(t, ctx, "http:resultExpression", "={customer: body}", "zeebe")
	fieldIs(t, ctx, "gobpm:retries", "3", "zeebe")
	truthy(t, ctx, "the panel says where the method is kept", `document.querySelector('`+prop("http:method")+`').closest('label').nextElementSibling.textContent === 'zeebe:ioMapping zeebe:input target="method"'`)
	choose(t, ctx, "http:method", "POST")
	retype(t, ctx, prop("http:body"), "={id: customerId}")
	retype(t, ctx, prop("http:connectionTimeoutInSeconds"), "5")

	truthy(t, ctx, "draw a new service task after “Look the customer up” and select it", `(() => {
		const m = window.gobpmModeler;
		const lookup = m.get('elementRegistry').get('lookup');
		const shape = m.get('modeling').appendShape(lookup, { type: 'bpmn:ServiceTask' }, { x: lookup.x + 50, y: lookup.y + 200 });
		shape.businessObject.id = 'notify';
		m.get('elementRegistry').updateId(shape, 'notify');
		m.get('selection').select(shape);
		return true;
	})()`)
	choose(t, ctx, "kind", "http")
	retype(t, ctx, prop("http:url"), "https://hooks.example.com/notify")

	xml := deployFromModeler(t, ctx, b, "zeebehttp")
	inputs, spaces := pairs(t, xml, "lookup", "input", "target", "source")
	want := map[string]string{"method": "POST", "url": `="https://crm.example.com/customers/" + customerId`, "customer": "=customerId",
		"authentication.type": "bearer", "authentication.token": "{{secrets.CRM_TOKEN}}", "body": "={id: customerId}", "connectionTimeoutInSeconds": "5"}
	if !reflect.DeepEqual(inputs, want) || !reflect.DeepEqual(spaces, map[string]bool{"zeebe": true}) {
		t.Errorf("inputs %v in %v, want %v as zeebe:input:\n%s", inputs, spaces, want, xml)
	}
	for _, w := range []string{`<zeebe:taskDefinition type="io.camunda:http-json:1" retries="3" />`, `<zeebe:taskDefinition type="io.camunda:http-json:1" />`} {
		if !strings.Contains(xml, w) {
			t.Errorf("version 2 lacks %s:\n%s", w, xml)
		}
	}
	if got, _ := pairs(t, xml, "notify", "input", "target", "source"); got["url"] != "https://hooks.example.com/notify" {
		t.Errorf("the new task's inputs: %v", got)
	}
	if gobpmAttr.MatchString(xml) || strings.Contains(xml, "gobpm:input") || strings.Contains(xml, "xmlns:gobpm") {
		t.Errorf("version 2 has gobpm: settings beside the zeebe ones:\n%s", xml)
	}
	if strings.Count(xml, "<zeebe:ioMapping>") != 2 {
		t.Errorf("each task has one zeebe:ioMapping:\n%s", xml)
	}

	run(t, ctx, "open version 2 in the modeler", chromedp.Navigate(b.srv.URL+"/processes/zeebehttp/edit?version=2"))
	waitFor(t, ctx, "the modeler is ready", modelerReady, 15*time.Second)
	// Selected through the modeler: the layout may hang the boundary
	// event on the task's edge, out of a click's reach.
	truthy(t, ctx, "select “Request withdrawn”", `(() => {
		const m = window.gobpmModeler;
		m.get('selection').select(m.get('elementRegistry').get('withdrawn'));
		return true;
	})()`)
	run(t, ctx, "its panel", chromedp.WaitVisible(css(prop("kind"))))
	fieldIs(t, ctx, "kind", "none", "")
	run(t, ctx, "make it a webhook with the keyboard", chromedp.Focus(css(prop("kind"))), chromedp.KeyEvent(kb.ArrowDown))
	run(t, ctx, "the webhook's settings", chromedp.WaitVisible(css(`[data-testid="props-webhook"]`)))
	truthy(t, ctx, "the keyboard stays on the choice", `document.activeElement === document.querySelector('`+prop("kind")+`')`)
	fieldIs(t, ctx, "message:correlationKey", "=customerId", "zeebe")
	retype(t, ctx, prop("inbound.context"), "withdrawn")
	retype(t, ctx, prop("correlationKeyExpression"), "=request.body.customerId")
	saved := modelerXML(t, ctx)
	props, _ := pairs(t, saved, "withdrawn", "property", "name", "value")
	wantProps := map[string]string{"inbound.type": "io.camunda:webhook:1", "inbound.context": "withdrawn", "inbound.method": "any",
		"inbound.auth.type": "NONE", "inbound.shouldValidateHmac": "disabled", "correlationKeyExpression": "=request.body.customerId"}
	if !reflect.DeepEqual(props, wantProps) {
		t.Errorf("the boundary event's properties %v, want %v:\n%s", props, wantProps, saved)
	}
}

// Made an HTTP call, a Camunda 7 external task takes gobpm's spelling
// (Camunda 7 has no REST connector of this kind): its camunda:topic and
// camunda:type go, its other camunda: settings stay, and the server
// accepts the model.
func TestBrowserModelerHTTPCallCamunda7(t *testing.T) {
	ctx := browser(t)
	b := setup(t)
	b.deploy("camundaship.bpmn")

	run(t, ctx, "open the modeler", chromedp.Navigate(b.srv.URL+"/processes/camundaship/edit"))
	waitFor(t, ctx, "the modeler is ready", modelerReady, 15*time.Second)
	run(t, ctx, "select “Ship the parcel”", chromedp.Click(css(`#modeler [data-element-id="ship"]`)), chromedp.WaitVisible(css(prop("kind"))))
	choose(t, ctx, "kind", "http")
	fieldIs(t, ctx, "http:url", "", "gobpm")
	retype(t, ctx, prop("http:url"), "https://carrier.example.com/parcels")
	choose(t, ctx, "http:method", "POST")

	xml := deployFromModeler(t, ctx, b, "camundaship")
	if attrOf(t, xml, "ship", "gobpm:type") != "gobpm:http" || attrOf(t, xml, "ship", "camunda:topic") != "" || attrOf(t, xml, "ship", "camunda:type") != "" {
		t.Errorf("the task is gobpm's HTTP call only:\n%s", xml)
	}
	if attrOf(t, xml, "ship", "camunda:asyncBefore") != "true" {
		t.Errorf("its other Camunda 7 settings stay:\n%s", xml)
	}
	if inputs, _ := pairs(t, xml, "ship", "input", "target", "source"); !reflect.DeepEqual(inputs, map[string]string{"url": "https://carrier.example.com/parcels", "method": "POST"}) {
		t.Errorf("inputs %v:\n%s", inputs, xml)
	}
}

// A start event and a message catch event become webhooks in the panel:
// the model carries Camunda 8's webhook connector properties
// (zeebe:properties, inbound.type io.camunda:webhook:1, …) with the
// template's defaults, authentication and HMAC settings whose secrets are
// {{secrets.…}} placeholders; the catch event has its correlation key
// expression and its message's key; opening the saved model shows them
// all again, and leaving the webhook removes its properties.
func TestBrowserModelerWebhook(t *testing.T) {
	ctx := browser(t)
	src := axeSource(t)
	b := setup(t)
	b.deploy("httpcall.bpmn")

	run(t, ctx, "open the modeler", chromedp.Navigate(b.srv.URL+"/processes/httpcall/edit"))
	waitFor(t, ctx, "the modeler is ready", modelerReady, 15*time.Second)
	run(t, ctx, "select “Order placed”", chromedp.Click(css(`#modeler [data-element-id="start"]`)), chromedp.WaitVisible(css(prop("kind"))))
	fieldIs(t, ctx, "kind", "none", "")
	choose(t, ctx, "kind", "webhook")
	run(t, ctx, "the webhook's settings", chromedp.WaitVisible(css(`[data-testid="props-webhook"]`)))
	fieldIs(t, ctx, "inbound.method", "any", "zeebe")
	truthy(t, ctx, "a start event has no correlation", `!document.querySelector('`+prop("correlationKeyExpression")+`')`)
	retype(t, ctx, prop("inbound.context"), "order-placed")
	choose(t, ctx, "inbound.method", "post")
	choose(t, ctx, "inbound.auth.type", "APIKEY")
	retype(t, ctx, prop("inbound.auth.apiKey"), "{{secrets.SHOP_HOOK_KEY}}")
	fieldIs(t, ctx, "inbound.auth.apiKeyLocator", `=split(request.headers.authorization, " ")[2]`, "zeebe")
	choose(t, ctx, "inbound.shouldValidateHmac", "enabled")
	fieldIs(t, ctx, "inbound.hmacAlgorithm", "sha_256", "zeebe")
	retype(t, ctx, prop("inbound.hmacSecret"), "{{secrets.SHOP_HMAC}}")
	retype(t, ctx, prop("inbound.hmacHeader"), "X-Shop-Signature")
	choose(t, ctx, "inbound.hmacAlgorithm", "sha_512")
	retype(t, ctx, prop("resultExpression"), "{orderId: request.body.id}")
	truthy(t, ctx, "the secrets hint is beside the secret fields", `document.querySelector('[data-testid="props-webhook"] [data-testid="props-secrets"]') !== null &&
		document.querySelector('`+prop("inbound.hmacSecret")+`').getAttribute('aria-describedby').includes('props-secrets')`)
	axeClean(t, ctx, src, "/processes/httpcall/edit with a webhook start")

	run(t, ctx, "select “Order paid”", chromedp.Click(css(`#modeler [data-element-id="paid"]`)), chromedp.WaitVisible(css(prop("kind"))))
	choose(t, ctx, "kind", "webhook")
	retype(t, ctx, prop("inbound.context"), "order-paid")
	retype(t, ctx, prop("correlationKeyExpression"), "request.body.orderId")
	retype(t, ctx, prop("resultVariable"), "payment")
	fieldIs(t, ctx, "correlationKeyExpression", "=request.body.orderId", "zeebe")
	fieldIs(t, ctx, "message:correlationKey", "=orderId", "gobpm")
	shoot(t, ctx, "modeler-webhook.png")

	xml := modelerXML(t, ctx)
	start, spaces := pairs(t, xml, "start", "property", "name", "value")
	want := map[string]string{
		"inbound.type": "io.camunda:webhook:1", "inbound.context": "order-placed", "inbound.method": "post",
		"inbound.auth.type": "APIKEY", "inbound.auth.apiKey": "{{secrets.SHOP_HOOK_KEY}}", "inbound.auth.apiKeyLocator": `=split(request.headers.authorization, " ")[2]`,
		"inbound.shouldValidateHmac": "enabled", "inbound.hmacSecret": "{{secrets.SHOP_HMAC}}", "inbound.hmacHeader": "X-Shop-Signature", "inbound.hmacAlgorithm": "sha_512",
		"resultExpression": "={orderId: request.body.id}",
	}
	if !reflect.DeepEqual(start, want) || !reflect.DeepEqual(spaces, map[string]bool{"zeebe": true}) {
		t.Errorf("the start event's properties %v in %v, want %v:\n%s", start, spaces, want, xml)
	}
	paid, _ := pairs(t, xml, "paid", "property", "name", "value")
	wantPaid := map[string]string{"inbound.type": "io.camunda:webhook:1", "inbound.context": "order-paid", "inbound.method": "any",
		"inbound.auth.type": "NONE", "inbound.shouldValidateHmac": "disabled", "correlationKeyExpression": "=request.body.orderId", "resultVariable": "payment"}
	if !reflect.DeepEqual(paid, wantPaid) {
		t.Errorf("the catch event's properties %v, want %v:\n%s", paid, wantPaid, xml)
	}
	if strings.Count(xml, "<zeebe:properties>") != 2 || !strings.Contains(xml, `xmlns:zeebe="http://camunda.org/schema/zeebe/1.0"`) {
		t.Errorf("one zeebe:properties per event, the namespace declared:\n%s", xml)
	}
	// The server serves what the panel wrote: both webhooks deploy.
	if defs, err := bpmn.Parse([]byte(xml)); err != nil {
		t.Errorf("the server refuses the panel's webhooks: %v", err)
	} else if hooks := defs.Processes[0].Webhooks(); len(hooks) != 2 {
		t.Errorf("the parsed model serves %d webhooks, want 2", len(hooks))
	}

	reopen(t, ctx, xml)
	run(t, ctx, "select “Order placed” in the reopened model", chromedp.Click(css(`#modeler [data-element-id="start"]`)), chromedp.WaitVisible(css(`[data-testid="props-webhook"]`)))
	fieldIs(t, ctx, "kind", "webhook", "")
	fieldIs(t, ctx, "inbound.context", "order-placed", "zeebe")
	fieldIs(t, ctx, "inbound.method", "post", "zeebe")
	fieldIs(t, ctx, "inbound.auth.type", "APIKEY", "zeebe")
	fieldIs(t, ctx, "inbound.auth.apiKey", "{{secrets.SHOP_HOOK_KEY}}", "zeebe")
	fieldIs(t, ctx, "inbound.hmacAlgorithm", "sha_512", "zeebe")
	fieldIs(t, ctx, "inbound.hmacHeader", "X-Shop-Signature", "zeebe")
	choose(t, ctx, "inbound.auth.type", "NONE")
	choose(t, ctx, "inbound.shouldValidateHmac", "disabled")
	start, _ = pairs(t, modelerXML(t, ctx), "start", "property", "name", "value")
	for _, gone := range []string{"inbound.auth.apiKey", "inbound.auth.apiKeyLocator", "inbound.hmacSecret", "inbound.hmacHeader", "inbound.hmacAlgorithm"} {
		if _, ok := start[gone]; ok {
			t.Errorf("%s stays after its choice is undone: %v", gone, start)
		}
	}
	run(t, ctx, "select “Order paid” in the reopened model", chromedp.Click(css(`#modeler [data-element-id="paid"]`)), chromedp.WaitVisible(css(`[data-testid="props-webhook"]`)))
	fieldIs(t, ctx, "correlationKeyExpression", "=request.body.orderId", "zeebe")
	fieldIs(t, ctx, "resultVariable", "payment", "zeebe")
	choose(t, ctx, "kind", "none")
	run(t, ctx, "the webhook's settings are gone", chromedp.WaitNotPresent(css(`[data-testid="props-webhook"]`)))
	if paid, _ := pairs(t, modelerXML(t, ctx), "paid", "property", "name", "value"); len(paid) != 0 {
		t.Errorf("a message through the API keeps no webhook properties: %v", paid)
	}
}

// The HTTP call the panel writes runs: deployed from the modeler, the
// server's REST connector worker calls a local test server with the
// secret resolved, and the result expression's variables reach the
// instance, which then waits for its message.
func TestBrowserModelerHTTPCallRuns(t *testing.T) {
	ctx := browser(t)
	b := setup(t)
	b.deploy("httpcall.bpmn")
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		user, pass, ok := r.BasicAuth()
		if !ok || pass != "s3cret" || r.Method != http.MethodPost || r.URL.Path != "/orders/o-7" {
			http.Error(w, "no", http.StatusForbidden)
			return
		}
		var in map[string]any
		_ = json.NewDecoder(r.Body).Decode(&in)
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"qty": in["qty"], "user": user})
	}))
	t.Cleanup(api.Close)

	run(t, ctx, "open the modeler", chromedp.Navigate(b.srv.URL+"/processes/httpcall/edit"))
	waitFor(t, ctx, "the modeler is ready", modelerReady, 15*time.Second)
	run(t, ctx, "select “Fetch the order”", chromedp.Click(css(`#modeler [data-element-id="fetch"]`)), chromedp.WaitVisible(css(prop("kind"))))
	choose(t, ctx, "kind", "http")
	choose(t, ctx, "http:method", "POST")
	retype(t, ctx, prop("http:url"), `="`+api.URL+`/orders/" + orderId`)
	retype(t, ctx, prop("http:body"), "={qty: 2}")
	choose(t, ctx, "http:authentication.type", "basic")
	retype(t, ctx, prop("http:authentication.username"), "shop")
	retype(t, ctx, prop("http:authentication.password"), "{{secrets.SHOP_PASSWORD}}")
	retype(t, ctx, prop("http:resultExpression"), "{echoed: body.qty, user: body.user}")
	deployFromModeler(t, ctx, b, "httpcall")

	w, err := httpjson.New(b.rt, httpjson.Options{AllowHosts: []string{"127.0.0.1"}, PollTimeout: time.Second,
		Secrets: httpjson.NewSecrets(func(name string) string {
			if name == httpjson.SecretEnvPrefix+"SHOP_PASSWORD" {
				return "s3cret"
			}
			return ""
		}, nil)})
	if err != nil {
		t.Fatal(err)
	}
	w.Start(context.Background())
	t.Cleanup(w.Stop)
	inst := b.start("httpcall", "", map[string]any{"orderId": "o-7"})
	deadline := time.Now().Add(15 * time.Second)
	for {
		v := b.instance(inst.ID)
		if fmt.Sprint(v.Variables["echoed"]) == "2" && v.Variables["user"] == "shop" {
			if _, ok := v.Variables["password"]; ok {
				t.Errorf("a secret reached the variables: %v", v.Variables)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the HTTP call did not complete: %s, variables %v, incidents %v", v.Status, v.Variables, v.Incidents)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
