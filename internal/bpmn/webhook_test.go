package bpmn

import (
	"strings"
	"testing"
)

// webhookDoc wraps a process body in a document declaring the zeebe and
// gobpm namespaces and one message "m" with a correlation key.
func webhookDoc(body string) []byte {
	return []byte(`<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:zeebe="http://camunda.org/schema/zeebe/1.0" xmlns:gobpm="urn:gobpm:1" id="d" targetNamespace="urn:t">
<message id="m" name="paid"><extensionElements><zeebe:subscription correlationKey="=k"/></extensionElements></message>
<process id="p" isExecutable="true">` + body + `</process></definitions>`)
}

// props renders zeebe:properties from name=value pairs.
func props(kv ...string) string {
	var b strings.Builder
	b.WriteString("<extensionElements><zeebe:properties>")
	for i := 0; i+1 < len(kv); i += 2 {
		b.WriteString(`<zeebe:property name="` + kv[i] + `" value="` + kv[i+1] + `"/>`)
	}
	b.WriteString("</zeebe:properties></extensionElements>")
	return b.String()
}

const webhookTail = `<endEvent id="e"/><sequenceFlow id="f1" sourceRef="s" targetRef="e"/>`

func TestWebhookParsed(t *testing.T) {
	t.Parallel()
	t.Run("camundaStart", func(t *testing.T) {
		t.Parallel()
		defs, err := Parse(webhookDoc(`<startEvent id="s">` + props("inbound.type", WebhookType, "inbound.subtype", "ConfigurableInboundWebhook",
			"inbound.context", "orders-new", "inbound.method", "post", "inbound.auth.type", "BASIC", "inbound.auth.username", "u",
			"inbound.auth.password", "{{secrets.PW}}", "inbound.shouldValidateHmac", "enabled", "inbound.hmacSecret", "{{secrets.H}}",
			"inbound.hmacHeader", "X-Sig", "inbound.hmacAlgorithm", "sha_256", "resultExpression", "={order: request.body}") + `</startEvent>` + webhookTail))
		if err != nil {
			t.Fatal(err)
		}
		hooks := defs.Processes[0].Webhooks()
		if len(hooks) != 1 {
			t.Fatalf("webhooks = %v", hooks)
		}
		w := hooks[0].Webhook
		if w.Path != "orders-new" || w.Method != "POST" || w.Auth != WebhookAuthBasic || w.Password != "{{secrets.PW}}" ||
			w.HMACHeader != "X-Sig" || w.HMACAlgorithm != "sha_256" || w.ResultExpression == nil {
			t.Fatalf("webhook = %+v", w)
		}
	})
	t.Run("gobpmCatch", func(t *testing.T) {
		t.Parallel()
		defs, err := Parse(webhookDoc(`<startEvent id="s"/><intermediateCatchEvent id="c"><extensionElements>
<gobpm:webhook path="paid" auth="apikey" apiKey="k" apiKeyLocator="=get value(request.headers, &quot;x-api-key&quot;)" correlationKeyExpression="=request.body.id"/>
</extensionElements><messageEventDefinition messageRef="m"/></intermediateCatchEvent><endEvent id="e"/>
<sequenceFlow id="f1" sourceRef="s" targetRef="c"/><sequenceFlow id="f2" sourceRef="c" targetRef="e"/>`))
		if err != nil {
			t.Fatal(err)
		}
		w := defs.Processes[0].Node("c").Webhook
		if w == nil || w.Path != "paid" || w.Method != "" || w.Auth != WebhookAuthAPIKey || w.CorrelationKey == nil || w.APIKeyLocator == nil {
			t.Fatalf("webhook = %+v", w)
		}
	})
}

func TestWebhookRefused(t *testing.T) {
	t.Parallel()
	start := func(kv ...string) string {
		return `<startEvent id="s">` + props(append([]string{"inbound.type", WebhookType, "inbound.context", "x"}, kv...)...) + `</startEvent>` + webhookTail
	}
	tests := []struct {
		name, body, detail string
	}{
		{"jwt", start("inbound.auth.type", "JWT"), "inbound.auth.type \"JWT\" on startEvent is not supported"},
		{"messageId", start("messageIdExpression", "=1"), "zeebe:property messageIdExpression of the webhook connector on startEvent is not supported"},
		{"activation", start("activationCondition", "=true"), "zeebe:property activationCondition"},
		{"otherInbound", `<startEvent id="s">` + props("inbound.type", "io.camunda:sqs:1") + `</startEvent>` + webhookTail, `inbound connector of type "io.camunda:sqs:1"`},
		{"badPath", start("inbound.context", "a b"), `inbound.context (path) "a b"`},
		{"hmacNoSecret", start("inbound.shouldValidateHmac", "enabled", "inbound.hmacHeader", "X", "inbound.hmacAlgorithm", "sha_256"), "inbound.hmacSecret on startEvent is required"},
		{"badAlgorithm", start("inbound.shouldValidateHmac", "enabled", "inbound.hmacSecret", "s", "inbound.hmacHeader", "X", "inbound.hmacAlgorithm", "md5"), `inbound.hmacAlgorithm "md5"`},
		{"apiKeyNoLocator", start("inbound.auth.type", "APIKEY", "inbound.auth.apiKey", "k"), "inbound.auth.apiKeyLocator on startEvent is required"},
		{"catchNoKey", `<startEvent id="s"/><intermediateCatchEvent id="c">` + props("inbound.type", WebhookType, "inbound.context", "x") +
			`<messageEventDefinition messageRef="m"/></intermediateCatchEvent><endEvent id="e"/><sequenceFlow id="f1" sourceRef="s" targetRef="c"/><sequenceFlow id="f2" sourceRef="c" targetRef="e"/>`,
			"needs correlationKeyExpression"},
		{"timerStart", `<startEvent id="s">` + props("inbound.type", WebhookType, "inbound.context", "x") + `<timerEventDefinition><timeDuration>PT1M</timeDuration></timerEventDefinition></startEvent>` + webhookTail,
			"a webhook on a timer start event is not supported"},
		{"gobpmUnknownAttr", `<startEvent id="s"><extensionElements><gobpm:webhook path="x" secret="y"/></extensionElements></startEvent>` + webhookTail, `unknown attribute "secret" on gobpm:webhook`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			verr := MustFail(t, webhookDoc(tt.body))
			for _, p := range verr.Problems {
				if strings.Contains(p.Detail, tt.detail) {
					return
				}
			}
			t.Fatalf("problems %v, want one containing %q", verr.Problems, tt.detail)
		})
	}
}

// TestWebhookTemplateDefaults checks that the properties the modeler's
// webhook templates write with their defaults (empty, or asking for
// nothing gobpm does not do) are accepted.
func TestWebhookTemplateDefaults(t *testing.T) {
	t.Parallel()
	_, err := Parse(webhookDoc(`<startEvent id="s">` + props("inbound.type", WebhookType, "inbound.context", "x",
		"deduplicationModeManualFlag", "false", "messageIdExpression", "", "activationCondition", " ", "consumeUnmatchedEvents", "false",
		"inbound.responseBodyExpression", "") + `</startEvent>` + webhookTail))
	if err != nil {
		t.Fatal(err)
	}
	verr := MustFail(t, webhookDoc(`<startEvent id="s">`+props("inbound.type", WebhookType, "inbound.context", "x", "deduplicationModeManualFlag", "true")+`</startEvent>`+webhookTail))
	if !strings.Contains(verr.Error(), "deduplicationModeManualFlag") {
		t.Fatalf("problems = %v", verr)
	}
}
