package api_test

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gobpm/gobpm/internal/api"
	"github.com/gobpm/gobpm/internal/connector/httpjson"
	"github.com/gobpm/gobpm/internal/connector/webhook"
	"github.com/gobpm/gobpm/internal/runtime"
	"github.com/gobpm/gobpm/internal/testdb"
)

// webhookSecrets are the secrets of the webhook tests, as GOBPM_SECRET_*.
var webhookSecrets = map[string]string{
	"GOBPM_SECRET_HOOK_PW":   "pw-8c1f2e-secret",
	"GOBPM_SECRET_HOOK_HMAC": "hmac-77aa31-secret",
	"GOBPM_SECRET_HOOK_KEY":  "key-91d0c4-secret",
}

// setupWebhooks is the real runtime over the database at dsn with the
// router serving webhooks configured by opts (secrets: webhookSecrets).
func setupWebhooks(t *testing.T, dsn string, opts webhook.Options) *bundle {
	t.Helper()
	db, err := testdb.Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	rt := runtime.New(db, runtime.Options{Now: func() time.Time { return apiEpoch }})
	t.Cleanup(func() { _ = rt.Close() })
	logs := &syncBuffer{}
	opts.Logger = slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	if opts.Secrets == nil {
		opts.Secrets = httpjson.NewSecrets(func(k string) string { return webhookSecrets[k] }, nil)
	}
	hooks, err := webhook.New(rt, opts)
	if err != nil {
		t.Fatal(err)
	}
	return &bundle{t: t, logs: logs, handler: api.New(rt, opts.Logger, api.Options{Webhooks: hooks})}
}

// webhookModel is a process key whose start event carries the webhook
// properties given (zeebe:property name=value pairs).
func webhookModel(key string, kv ...string) string {
	var p strings.Builder
	for i := 0; i+1 < len(kv); i += 2 {
		p.WriteString(`<zeebe:property name="` + kv[i] + `" value="` + strings.ReplaceAll(kv[i+1], `"`, "&quot;") + `"/>`)
	}
	return `<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:zeebe="http://camunda.org/schema/zeebe/1.0" id="d" targetNamespace="urn:t">
<process id="` + key + `" isExecutable="true">
<startEvent id="hook"><extensionElements><zeebe:properties><zeebe:property name="inbound.type" value="io.camunda:webhook:1"/>` + p.String() + `</zeebe:properties></extensionElements></startEvent>
<userTask id="wait"/><endEvent id="e"/>
<sequenceFlow id="f1" sourceRef="hook" targetRef="wait"/><sequenceFlow id="f2" sourceRef="wait" targetRef="e"/>
</process></definitions>`
}

// plainModel is a process key without webhooks.
func plainModel(key string) string {
	return `<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" id="d" targetNamespace="urn:t">
<process id="` + key + `" isExecutable="true"><startEvent id="s"/><endEvent id="e"/><sequenceFlow id="f1" sourceRef="s" targetRef="e"/></process></definitions>`
}

func (b *bundle) deployModel(t *testing.T, name, xml string) *response {
	t.Helper()
	return b.postMultipart("/api/v1/deployments", part{filename: name, content: xml})
}

// hook sends a webhook request with the headers given.
func (b *bundle) hook(method, path, contentType, body string, header ...string) *response {
	b.t.Helper()
	req := httptest.NewRequest(method, "/webhooks/"+path, strings.NewReader(body))
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	return b.do(req)
}

// startedVars returns the variables of the instance a webhook start answered.
func (b *bundle) startedVars(t *testing.T, res *response) map[string]any {
	t.Helper()
	id, _ := res.wantStatus(t, http.StatusOK).object(t)["processInstanceKey"].(string)
	if id == "" {
		t.Fatalf("no processInstanceKey in %s", res.Body)
	}
	inst := b.get("/api/v1/instances/"+id).wantStatus(t, http.StatusOK).object(t)
	vars, _ := inst["variables"].(map[string]any)
	return vars
}

func sign(secret, body string) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(body))
	return "sha256=" + hex.EncodeToString(m.Sum(nil))
}

func TestIntegrationWebhookStart(t *testing.T) {
	t.Parallel()
	b := setupWebhooks(t, testdb.DSN(t), webhook.Options{})
	b.deployModel(t, "orders.bpmn", webhookModel("orders", "inbound.context", "orders", "inbound.method", "post")).wantStatus(t, http.StatusCreated)

	vars := b.startedVars(t, b.hook(http.MethodPost, "orders", "application/json", `{"orderId":"o-1","total":12.5}`))
	if vars["orderId"] != "o-1" || fmt.Sprint(vars["total"]) != "12.5" {
		t.Fatalf("variables = %v, want the body", vars)
	}
	vars = b.startedVars(t, b.hook(http.MethodPost, "orders", "application/x-www-form-urlencoded", `orderId=o-2&note=hi`))
	if vars["orderId"] != "o-2" || vars["note"] != "hi" {
		t.Fatalf("form variables = %v", vars)
	}
	b.hook(http.MethodGet, "orders", "", "").problem(t, http.StatusMethodNotAllowed, "method-not-allowed")
	b.hook(http.MethodPost, "nothing-here", "application/json", `{}`).problem(t, http.StatusNotFound, "not-found")
}

func TestIntegrationWebhookResultMappings(t *testing.T) {
	t.Parallel()
	b := setupWebhooks(t, testdb.DSN(t), webhook.Options{})
	b.deployModel(t, "m.bpmn", webhookModel("mapped", "inbound.context", "mapped", "resultVariable", "req",
		"resultExpression", "={who: request.body.user, tag: request.params.tag}")).wantStatus(t, http.StatusCreated)
	vars := b.startedVars(t, b.hook(http.MethodPost, "mapped?tag=t1", "application/json", `{"user":"ann"}`))
	req, _ := vars["req"].(map[string]any)["request"].(map[string]any)
	if vars["who"] != "ann" || vars["tag"] != "t1" || req["body"].(map[string]any)["user"] != "ann" {
		t.Fatalf("variables = %v", vars)
	}
	if _, ok := vars["user"]; ok {
		t.Fatalf("with mappings only the mapped values are kept: %v", vars)
	}
}

func TestIntegrationWebhookAuthentication(t *testing.T) {
	t.Parallel()
	b := setupWebhooks(t, testdb.DSN(t), webhook.Options{})
	b.deployModel(t, "h.bpmn", webhookModel("signed", "inbound.context", "signed", "inbound.shouldValidateHmac", "enabled",
		"inbound.hmacSecret", "{{secrets.HOOK_HMAC}}", "inbound.hmacHeader", "X-Signature", "inbound.hmacAlgorithm", "sha_256")).wantStatus(t, http.StatusCreated)
	b.deployModel(t, "b.bpmn", webhookModel("basic", "inbound.context", "basic", "inbound.auth.type", "BASIC",
		"inbound.auth.username", "hooker", "inbound.auth.password", "{{secrets.HOOK_PW}}")).wantStatus(t, http.StatusCreated)
	b.deployModel(t, "k.bpmn", webhookModel("keyed", "inbound.context", "keyed", "inbound.auth.type", "APIKEY",
		"inbound.auth.apiKey", "{{secrets.HOOK_KEY}}", "inbound.auth.apiKeyLocator", `=get value(request.headers, "x-api-key")`)).wantStatus(t, http.StatusCreated)

	body := `{"event":"push"}`
	tests := []struct {
		name, path string
		header     []string
		want       int
	}{
		{"hmacGood", "signed", []string{"X-Signature", sign(webhookSecrets["GOBPM_SECRET_HOOK_HMAC"], body)}, http.StatusOK},
		{"hmacWrongSecret", "signed", []string{"X-Signature", sign("guess", body)}, http.StatusUnauthorized},
		{"hmacOtherBody", "signed", []string{"X-Signature", sign(webhookSecrets["GOBPM_SECRET_HOOK_HMAC"], body+" ")}, http.StatusUnauthorized},
		{"hmacMissing", "signed", nil, http.StatusUnauthorized},
		{"basicGood", "basic", []string{"Authorization", "Basic " + basic("hooker", webhookSecrets["GOBPM_SECRET_HOOK_PW"])}, http.StatusOK},
		{"basicWrong", "basic", []string{"Authorization", "Basic " + basic("hooker", "nope")}, http.StatusUnauthorized},
		{"basicMissing", "basic", nil, http.StatusUnauthorized},
		{"apiKeyGood", "keyed", []string{"X-Api-Key", webhookSecrets["GOBPM_SECRET_HOOK_KEY"]}, http.StatusOK},
		{"apiKeyWrong", "keyed", []string{"X-Api-Key", "nope"}, http.StatusUnauthorized},
	}
	started := map[string]int{}
	for _, tt := range tests {
		res := b.hook(http.MethodPost, tt.path, "application/json", body, tt.header...)
		if res.Status != tt.want {
			t.Errorf("%s: status %d, want %d (%s)", tt.name, res.Status, tt.want, res.Body)
		}
		if tt.want == http.StatusOK {
			started[tt.path]++
		}
	}
	for _, key := range []string{"signed", "basic", "keyed"} {
		items := b.get("/api/v1/instances?processKey="+key).wantStatus(t, http.StatusOK).items(t)
		if len(items) != started[key] {
			t.Errorf("%s: %d instances, want %d (a refused request starts nothing)", key, len(items), started[key])
		}
	}
	// No secret anywhere the API, the log or the database shows.
	var seen bytes.Buffer
	for _, it := range b.get("/api/v1/instances").wantStatus(t, http.StatusOK).items(t) {
		id := it.(map[string]any)["id"].(string)
		seen.Write(b.get("/api/v1/instances/" + id).Body)
		seen.Write(b.get("/api/v1/instances/" + id + "/history").Body)
	}
	seen.WriteString(b.logs.String())
	for _, v := range webhookSecrets {
		if strings.Contains(seen.String(), v) {
			t.Errorf("secret %q leaked into the API answers or the log", v)
		}
	}
}

func basic(user, pass string) string {
	req := httptest.NewRequest(http.MethodGet, "/", nil)
	req.SetBasicAuth(user, pass)
	return strings.TrimPrefix(req.Header.Get("Authorization"), "Basic ")
}

func TestIntegrationWebhookSecretsNotStored(t *testing.T) {
	t.Parallel()
	if d, _ := testdb.Driver(); d == testdb.Postgres {
		t.Skip("reads the SQLite file")
	}
	dsn := testdb.DSN(t)
	b := setupWebhooks(t, dsn, webhook.Options{})
	b.deployModel(t, "k.bpmn", webhookModel("keyed", "inbound.context", "keyed", "inbound.auth.type", "APIKEY", "resultVariable", "req",
		"inbound.auth.apiKey", "{{secrets.HOOK_KEY}}", "inbound.auth.apiKeyLocator", `=get value(request.headers, "x-api-key")`)).wantStatus(t, http.StatusCreated)
	b.deployModel(t, "b.bpmn", webhookModel("basic", "inbound.context", "basic", "inbound.auth.type", "BASIC", "resultVariable", "req",
		"inbound.auth.username", "hooker", "inbound.auth.password", "{{secrets.HOOK_PW}}")).wantStatus(t, http.StatusCreated)
	vars := b.startedVars(t, b.hook(http.MethodPost, "keyed", "application/json", `{"a":1}`, "X-Api-Key", webhookSecrets["GOBPM_SECRET_HOOK_KEY"]))
	headers := vars["req"].(map[string]any)["request"].(map[string]any)["headers"].(map[string]any)
	if headers["x-api-key"] != "***" {
		t.Fatalf("api key header kept as %v, want ***", headers["x-api-key"])
	}
	vars = b.startedVars(t, b.hook(http.MethodPost, "basic", "application/json", `{"a":1}`, "Authorization", "Basic "+basic("hooker", webhookSecrets["GOBPM_SECRET_HOOK_PW"])))
	headers = vars["req"].(map[string]any)["request"].(map[string]any)["headers"].(map[string]any)
	if headers["authorization"] != "***" {
		t.Fatalf("authorization header kept as %v, want ***", headers["authorization"])
	}
	matches, _ := filepath.Glob(dsn + "*")
	for _, f := range matches {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range webhookSecrets {
			if bytes.Contains(raw, []byte(v)) || bytes.Contains(raw, []byte(basic("hooker", v))) {
				t.Errorf("secret %q is in %s", v, filepath.Base(f))
			}
		}
	}
}

// correlateModel waits for message "paid" (key orderId) in an
// intermediate catch event whose webhook correlates by the body's orderId.
const correlateModel = `<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:zeebe="http://camunda.org/schema/zeebe/1.0" id="d" targetNamespace="urn:t">
<message id="m" name="paid"><extensionElements><zeebe:subscription correlationKey="=orderId"/></extensionElements></message>
<process id="pay" isExecutable="true"><startEvent id="s"/>
<intermediateCatchEvent id="paid"><extensionElements><zeebe:properties>
<zeebe:property name="inbound.type" value="io.camunda:webhook:1"/><zeebe:property name="inbound.context" value="paid"/>
<zeebe:property name="correlationKeyExpression" value="=request.body.orderId"/><zeebe:property name="resultExpression" value="={amount: request.body.amount}"/>
</zeebe:properties></extensionElements><messageEventDefinition messageRef="m"/></intermediateCatchEvent>
<endEvent id="e"/><sequenceFlow id="f1" sourceRef="s" targetRef="paid"/><sequenceFlow id="f2" sourceRef="paid" targetRef="e"/>
</process></definitions>`

func TestIntegrationWebhookCorrelates(t *testing.T) {
	t.Parallel()
	b := setupWebhooks(t, testdb.DSN(t), webhook.Options{})
	b.deployModel(t, "pay.bpmn", correlateModel).wantStatus(t, http.StatusCreated)
	a := b.postJSON("/api/v1/processes/pay/instances", `{"variables":{"orderId":"o-1"}}`).wantStatus(t, http.StatusCreated).object(t)
	o := b.postJSON("/api/v1/processes/pay/instances", `{"variables":{"orderId":"o-2"}}`).wantStatus(t, http.StatusCreated).object(t)

	res := b.hook(http.MethodPost, "paid", "application/json", `{"orderId":"o-1","amount":42}`).wantStatus(t, http.StatusOK).object(t)
	if fmt.Sprint(res["correlated"]) != "1" {
		t.Fatalf("answer = %v", res)
	}
	got := b.get("/api/v1/instances/"+a["id"].(string)).wantStatus(t, http.StatusOK).object(t)
	if got["status"] != "completed" || fmt.Sprint(got["variables"].(map[string]any)["amount"]) != "42" {
		t.Fatalf("instance o-1 = %v", got)
	}
	if other := b.get("/api/v1/instances/" + o["id"].(string)).object(t); other["status"] == "completed" {
		t.Fatalf("instance o-2 moved on: %v", other)
	}
	b.hook(http.MethodPost, "paid", "application/json", `{"orderId":"o-9"}`).problem(t, http.StatusNotFound, "not-found")

	// With Camunda's correlationRequired=notRequired nothing waiting is
	// still a success: 200, correlated 0.
	lenient := strings.NewReplacer(`id="pay"`, `id="pay-lenient"`, `value="paid"/>`, `value="paid-lenient"/><zeebe:property name="correlationRequired" value="notRequired"/>`).Replace(correlateModel)
	b.deployModel(t, "lenient.bpmn", lenient).wantStatus(t, http.StatusCreated)
	res = b.hook(http.MethodPost, "paid-lenient", "application/json", `{"orderId":"o-9"}`).wantStatus(t, http.StatusOK).object(t)
	if fmt.Sprint(res["correlated"]) != "0" {
		t.Fatalf("answer with correlation not required = %v", res)
	}
}

func TestIntegrationWebhookPathsAtDeployment(t *testing.T) {
	t.Parallel()
	dsn := testdb.DSN(t)
	b := setupWebhooks(t, dsn, webhook.Options{})
	b.deployModel(t, "a.bpmn", webhookModel("alpha", "inbound.context", "shared")).wantStatus(t, http.StatusCreated)

	p := b.deployModel(t, "b.bpmn", webhookModel("beta", "inbound.context", "shared")).problem(t, http.StatusUnprocessableEntity, "invalid-model")
	if len(p.Errors) != 1 || p.Errors[0].Rule != "duplicate-webhook-path" || !strings.Contains(p.Errors[0].Detail, `"alpha"`) || !strings.Contains(p.Errors[0].Detail, `"beta"`) {
		t.Fatalf("problem = %+v, want the duplicate naming both processes", p)
	}
	// A new version of alpha keeps its own path.
	b.deployModel(t, "a.bpmn", webhookModel("alpha", "inbound.context", "shared", "inbound.method", "post")).wantStatus(t, http.StatusCreated)
	b.hook(http.MethodPost, "shared", "application/json", `{}`).wantStatus(t, http.StatusOK)

	// A newer version that drops the path stops serving it, and frees it.
	b.deployModel(t, "a.bpmn", plainModel("alpha")).wantStatus(t, http.StatusCreated)
	b.hook(http.MethodPost, "shared", "application/json", `{}`).problem(t, http.StatusNotFound, "not-found")
	b.deployModel(t, "b.bpmn", webhookModel("beta", "inbound.context", "shared")).wantStatus(t, http.StatusCreated)

	// Another server over the same store (a restart, a second node)
	// serves what the first deployed.
	other := setupWebhooks(t, dsn, webhook.Options{})
	res := other.hook(http.MethodPut, "shared", "application/json", `{}`).wantStatus(t, http.StatusOK).object(t)
	if res["bpmnProcessId"] != "beta" {
		t.Fatalf("served by %v, want beta", res)
	}
	// ... and refuses a duplicate of it.
	other.deployModel(t, "c.bpmn", webhookModel("gamma", "inbound.context", "shared")).problem(t, http.StatusUnprocessableEntity, "invalid-model")
}

func TestIntegrationWebhookLimits(t *testing.T) {
	t.Parallel()
	now := apiEpoch
	b := setupWebhooks(t, testdb.DSN(t), webhook.Options{MaxBodyBytes: 64, Rate: 1, Burst: 2, Now: func() time.Time { return now }})
	b.deployModel(t, "a.bpmn", webhookModel("alpha", "inbound.context", "small")).wantStatus(t, http.StatusCreated)
	b.deployModel(t, "b.bpmn", webhookModel("beta", "inbound.context", "other")).wantStatus(t, http.StatusCreated)

	b.hook(http.MethodPost, "small", "application/json", `{"pad":"`+strings.Repeat("x", 100)+`"}`).problem(t, http.StatusRequestEntityTooLarge, "payload-too-large")
	if n := len(b.get("/api/v1/instances?processKey=alpha").items(t)); n != 0 {
		t.Fatalf("%d instances after an oversized body", n)
	}
	b.hook(http.MethodPost, "small", "application/json", `{}`).wantStatus(t, http.StatusOK) // the 413 took the first token
	res := b.hook(http.MethodPost, "small", "application/json", `{}`)
	res.problem(t, http.StatusTooManyRequests, "too-many-requests")
	if res.Header.Get("Retry-After") != "1" {
		t.Fatalf("Retry-After = %q", res.Header.Get("Retry-After"))
	}
	b.hook(http.MethodPost, "other", "application/json", `{}`).wantStatus(t, http.StatusOK) // each path has its bucket
	now = now.Add(time.Second)
	b.hook(http.MethodPost, "small", "application/json", `{}`).wantStatus(t, http.StatusOK)
}

// TestIntegrationWebhookGobpmMessageStart: gobpm's own spelling on a
// message start event starts the process through its message.
func TestIntegrationWebhookGobpmMessageStart(t *testing.T) {
	t.Parallel()
	b := setupWebhooks(t, testdb.DSN(t), webhook.Options{})
	b.deployModel(t, "ms.bpmn", `<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:gobpm="urn:gobpm:1" id="d" targetNamespace="urn:t">
<message id="m" name="order-placed"/>
<process id="placed" isExecutable="true">
<startEvent id="s"><extensionElements><gobpm:webhook path="placed" method="post" auth="basic" username="u" password="{{secrets.HOOK_PW}}" resultVariable="hook"/></extensionElements>
<messageEventDefinition messageRef="m"/></startEvent>
<userTask id="wait"/><sequenceFlow id="f1" sourceRef="s" targetRef="wait"/><endEvent id="e"/><sequenceFlow id="f2" sourceRef="wait" targetRef="e"/>
</process></definitions>`).wantStatus(t, http.StatusCreated)
	b.hook(http.MethodPost, "placed", "application/json", `{"n":1}`, "Authorization", "Basic "+basic("u", "x")).problem(t, http.StatusUnauthorized, "unauthorized")
	vars := b.startedVars(t, b.hook(http.MethodPost, "placed", "application/json", `{"n":1}`, "Authorization", "Basic "+basic("u", webhookSecrets["GOBPM_SECRET_HOOK_PW"])))
	req := vars["hook"].(map[string]any)["request"].(map[string]any)
	if fmt.Sprint(req["body"].(map[string]any)["n"]) != "1" {
		t.Fatalf("variables = %v", vars)
	}
}

// A message start event carrying Camunda 8's webhook properties (its
// "webhook message start" template) starts its own process, and only it:
// not another process that starts on the same message name, and not an
// instance of another process waiting for that message.
func TestIntegrationWebhookCamundaMessageStart(t *testing.T) {
	t.Parallel()
	b := setupWebhooks(t, testdb.DSN(t), webhook.Options{})
	model := func(key, hook string) string {
		props := ""
		if hook != "" {
			props = `<extensionElements><zeebe:properties><zeebe:property name="inbound.type" value="io.camunda:webhook:1"/><zeebe:property name="inbound.context" value="` + hook + `"/><zeebe:property name="inbound.method" value="any"/><zeebe:property name="inbound.auth.type" value="NONE"/><zeebe:property name="inbound.shouldValidateHmac" value="disabled"/><zeebe:property name="resultExpression" value="={order: request.body.id}"/></zeebe:properties></extensionElements>`
		}
		return `<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:zeebe="http://camunda.org/schema/zeebe/1.0" id="d" targetNamespace="urn:t">
<message id="m" name="order-placed"/>
<process id="` + key + `" isExecutable="true">
<startEvent id="s">` + props + `<messageEventDefinition messageRef="m"/></startEvent>
<userTask id="wait"/><sequenceFlow id="f1" sourceRef="s" targetRef="wait"/><endEvent id="e"/><sequenceFlow id="f2" sourceRef="wait" targetRef="e"/>
</process></definitions>`
	}
	b.deployModel(t, "placed.bpmn", model("placed", "placed")).wantStatus(t, http.StatusCreated)
	b.deployModel(t, "audit.bpmn", model("audit", "")).wantStatus(t, http.StatusCreated)
	b.deployModel(t, "waiter.bpmn", `<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:zeebe="http://camunda.org/schema/zeebe/1.0" id="d" targetNamespace="urn:t">
<message id="m" name="order-placed"><extensionElements><zeebe:subscription correlationKey="=orderId"/></extensionElements></message>
<process id="waiter" isExecutable="true">
<startEvent id="s"/><intermediateCatchEvent id="c"><messageEventDefinition messageRef="m"/></intermediateCatchEvent><endEvent id="e"/>
<sequenceFlow id="f1" sourceRef="s" targetRef="c"/><sequenceFlow id="f2" sourceRef="c" targetRef="e"/>
</process></definitions>`).wantStatus(t, http.StatusCreated)
	waiting := b.postJSON("/api/v1/processes/waiter/instances", `{"variables":{"orderId":"o-7"}}`).wantStatus(t, http.StatusCreated).object(t)["id"].(string)

	for _, id := range []string{"o-7", "o-8"} {
		vars := b.startedVars(t, b.hook(http.MethodPost, "placed", "application/json", `{"id":"`+id+`"}`))
		if vars["order"] != id {
			t.Fatalf("variables = %v, want the result expression's", vars)
		}
	}
	if st := b.get("/api/v1/instances/"+waiting).wantStatus(t, http.StatusOK).object(t)["status"]; st != "running" {
		t.Errorf("the waiting instance of another process is %v: the webhook reached it", st)
	}
	for key, want := range map[string]int{"placed": 2, "audit": 0, "waiter": 1} {
		items, _ := b.get("/api/v1/instances?processKey="+key).wantStatus(t, http.StatusOK).object(t)["items"].([]any)
		if len(items) != want {
			t.Errorf("%s has %d instances, want %d", key, len(items), want)
		}
	}
}

// A credential that is required but empty on this server — a secret set
// to nothing — accepts nothing, and basic authentication without a
// password, or an API key without a key, is refused at deployment.
func TestIntegrationWebhookEmptyCredentials(t *testing.T) {
	t.Parallel()
	b := setupWebhooks(t, testdb.DSN(t), webhook.Options{Secrets: httpjson.NewSecrets(nil, map[string]string{"HOOK_EMPTY": ""})})
	b.deployModel(t, "nopw.bpmn", webhookModel("nopw", "inbound.context", "nopw", "inbound.auth.type", "BASIC", "inbound.auth.username", "svc")).
		problem(t, http.StatusUnprocessableEntity, "invalid-model")
	b.deployModel(t, "nokey.bpmn", webhookModel("nokey", "inbound.context", "nokey", "inbound.auth.type", "APIKEY", "inbound.auth.apiKeyLocator", "=request.headers.key")).
		problem(t, http.StatusUnprocessableEntity, "invalid-model")
	b.deployModel(t, "empty.bpmn", webhookModel("empty", "inbound.context", "empty", "inbound.auth.type", "BASIC",
		"inbound.auth.username", "svc", "inbound.auth.password", "{{secrets.HOOK_EMPTY}}")).wantStatus(t, http.StatusCreated)
	b.hook(http.MethodPost, "empty", "application/json", `{}`, "Authorization", "Basic "+basic("svc", "")).problem(t, http.StatusUnauthorized, "unauthorized")
	items, _ := b.get("/api/v1/instances?processKey=empty").wantStatus(t, http.StatusOK).object(t)["items"].([]any)
	if len(items) != 0 {
		t.Errorf("an empty credential started %d instances", len(items))
	}
}

// The credentials a caller sends in headers never reach variables, even
// when the webhook checks none of them.
func TestIntegrationWebhookHeadersMasked(t *testing.T) {
	t.Parallel()
	b := setupWebhooks(t, testdb.DSN(t), webhook.Options{})
	b.deployModel(t, "open.bpmn", webhookModel("open", "inbound.context", "open", "resultVariable", "hook")).wantStatus(t, http.StatusCreated)
	vars := b.startedVars(t, b.hook(http.MethodPost, "open", "application/json", `{}`,
		"Authorization", "Bearer tok-3f9a", "Cookie", "session=c-77b1", "Proxy-Authorization", "Basic cHJveHk6cHc=", "X-Other", "kept"))
	headers := vars["hook"].(map[string]any)["request"].(map[string]any)["headers"].(map[string]any)
	for _, h := range []string{"authorization", "cookie", "proxy-authorization"} {
		if headers[h] != "***" {
			t.Errorf("header %s kept as %v", h, headers[h])
		}
	}
	if headers["x-other"] != "kept" {
		t.Errorf("other headers: %v", headers)
	}
}
