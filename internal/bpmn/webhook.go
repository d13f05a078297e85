package bpmn

import (
	"regexp"
	"strings"

	"github.com/beevik/etree"

	"github.com/gobpm/gobpm/internal/expr"
)

// WebhookType is the inbound.type of Camunda 8's webhook connector.
const WebhookType = "io.camunda:webhook:1"

// Webhook authentication kinds (Webhook.Auth), as Camunda's element
// template names them.
const (
	WebhookAuthNone   = "NONE"
	WebhookAuthBasic  = "BASIC"
	WebhookAuthAPIKey = "APIKEY"
)

// Webhook is an inbound HTTP endpoint declared on a start event or a
// message intermediate catch or boundary event: Camunda 8's webhook
// connector (zeebe:properties inbound.*) or gobpm's gobpm:webhook. It is
// served at /webhooks/{Path}. Text fields may hold {{secrets.NAME}}
// placeholders, resolved by the server when a request arrives.
type Webhook struct {
	// Path is inbound.context: the path under /webhooks/.
	Path string
	// Method is the one HTTP method accepted (upper case), "" for any.
	Method string
	// Auth is WebhookAuthNone, WebhookAuthBasic or WebhookAuthAPIKey.
	Auth string
	// Username and Password are the basic credentials (Auth BASIC).
	Username, Password string
	// APIKey is the expected key and APIKeyLocator the FEEL over request
	// that finds it in a request (Auth APIKEY).
	APIKey        string
	APIKeyLocator expr.Expression
	// HMACSecret, HMACHeader and HMACAlgorithm (sha_1, sha_256 or
	// sha_512) check the request's signature when HMACSecret is set.
	HMACSecret, HMACHeader, HMACAlgorithm string
	// ResultVariable receives the request ({body, headers, params}).
	ResultVariable string
	// ResultExpression is FEEL over request returning a context whose
	// entries become variables.
	ResultExpression expr.Expression
	// CorrelationKey is FEEL over request giving the message's correlation
	// key (catch and boundary events).
	CorrelationKey expr.Expression
	// CorrelationOptional is Camunda's correlationRequired=notRequired: a
	// request that finds nothing waiting for its key is still answered
	// 200 (correlated 0), not 404.
	CorrelationOptional bool
}

// Webhooks returns the nodes of p that declare a webhook, in id order of
// the index (callers sort as they need).
func (p *Process) Webhooks() []*Node {
	var out []*Node
	var walk func(g *Graph)
	walk = func(g *Graph) {
		for _, n := range g.Nodes {
			if n.Webhook != nil {
				out = append(out, n)
			}
			for _, b := range n.Boundaries {
				if b.Webhook != nil && !containsNode(out, b) {
					out = append(out, b)
				}
			}
			if n.Sub != nil {
				walk(n.Sub)
			}
		}
	}
	walk(p.Graph)
	for _, n := range p.EventStarts {
		if n.Webhook != nil && !containsNode(out, n) {
			out = append(out, n)
		}
	}
	return out
}

func containsNode(ns []*Node, n *Node) bool {
	for _, m := range ns {
		if m == n {
			return true
		}
	}
	return false
}

// webhookPath is what a webhook path may be: one path segment of letters,
// digits, '-', '_', '.' and '~', starting with a letter or digit (Camunda's
// template allows letters and digits joined by '-' and '_').
var webhookPath = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._~-]*$`)

// webhookOwners are the elements that may carry a webhook.
var webhookOwners = map[string]bool{"startEvent": true, "intermediateCatchEvent": true, "boundaryEvent": true}

// webhookProps are the webhook connector properties gobpm reads, and
// inbound.subtype, which names the template (the modeler writes it).
var webhookProps = map[string]bool{
	"inbound.type": true, "inbound.context": true, "inbound.method": true,
	"inbound.auth.type": true, "inbound.auth.username": true, "inbound.auth.password": true,
	"inbound.auth.apiKey": true, "inbound.auth.apiKeyLocator": true,
	"inbound.shouldValidateHmac": true, "inbound.hmacSecret": true, "inbound.hmacHeader": true,
	"inbound.hmacAlgorithm": true,
	"resultVariable":        true, "resultExpression": true, "correlationKeyExpression": true,
	"inbound.subtype": true,
}

// webhookDefaults are values of the templates' other properties gobpm
// runs (the modeler writes them as defaults): no manual deduplication, no
// consuming of unmatched events, and a correlation that must succeed (404
// when nothing waits) or need not (Webhook.CorrelationOptional: 200).
var webhookDefaults = map[string]map[string]bool{
	"deduplicationModeManualFlag": {"false": true},
	"consumeUnmatchedEvents":      {"false": true},
	"correlationRequired":         {"notRequired": true, "required": true},
}

// camundaWebhook reads the zeebe:properties props of owner when they
// configure an inbound connector; nothing is recorded for other
// properties.
func (p *parser) camundaWebhook(owner, props *etree.Element) {
	label := p.label(owner)
	vals := map[string]string{}
	inbound := false
	for _, prop := range props.ChildElements() {
		name := strings.TrimSpace(prop.SelectAttrValue("name", ""))
		if strings.HasPrefix(name, "inbound.") {
			inbound = true
		}
		vals[name] = prop.SelectAttrValue("value", "")
	}
	if !inbound {
		return
	}
	if t := strings.TrimSpace(vals["inbound.type"]); t != WebhookType {
		p.problems.add(label, RuleUnsupported, "zeebe:properties on %s configure an inbound connector of type %q, which is not supported: gobpm serves only the webhook connector (%s)", owner.Tag, t, WebhookType)
		return
	}
	for name, v := range vals {
		v = strings.TrimSpace(v)
		if v == "" || webhookDefaults[name][v] {
			continue // an empty property asks for nothing
		}
		if !webhookProps[name] && (strings.HasPrefix(name, "inbound.") || webhookExtra(name)) {
			p.problems.add(label, RuleUnsupported, "zeebe:property %s of the webhook connector on %s is not supported", name, owner.Tag)
		}
	}
	w := &Webhook{
		Path: strings.Trim(strings.TrimSpace(vals["inbound.context"]), "/"), Method: strings.ToUpper(strings.TrimSpace(vals["inbound.method"])),
		Auth:     strings.ToUpper(strings.TrimSpace(vals["inbound.auth.type"])),
		Username: vals["inbound.auth.username"], Password: vals["inbound.auth.password"], APIKey: vals["inbound.auth.apiKey"],
		ResultVariable:      strings.TrimSpace(vals["resultVariable"]),
		CorrelationOptional: strings.TrimSpace(vals["correlationRequired"]) == "notRequired",
	}
	hmac := strings.ToLower(strings.TrimSpace(vals["inbound.shouldValidateHmac"]))
	switch hmac {
	case "", "disabled":
	case "enabled":
		w.HMACSecret, w.HMACHeader, w.HMACAlgorithm = vals["inbound.hmacSecret"], strings.TrimSpace(vals["inbound.hmacHeader"]), strings.TrimSpace(vals["inbound.hmacAlgorithm"])
		if w.HMACSecret == "" {
			p.problems.add(label, RuleUnsupported, "zeebe:property inbound.hmacSecret on %s is required when inbound.shouldValidateHmac is enabled", owner.Tag)
		}
	default:
		p.problems.add(label, RuleUnsupported, "zeebe:property inbound.shouldValidateHmac on %s is %q: want enabled or disabled", owner.Tag, hmac)
	}
	p.finishWebhook(owner, w, vals["inbound.auth.apiKeyLocator"], vals["resultExpression"], vals["correlationKeyExpression"], "zeebe:property ")
}

// webhookExtra reports the non-inbound properties of the webhook
// connector's templates that gobpm does not read (so a model relying on
// them is refused rather than run without them).
func webhookExtra(name string) bool {
	switch name {
	case "messageIdExpression", "activationCondition", "messageTtl", "deduplicationModeManualFlag", "deduplicationId",
		"consumeUnmatchedEvents", "correlationRequired":
		return true
	}
	return false
}

// gobpmWebhook reads a gobpm:webhook extension element of owner.
func (p *parser) gobpmWebhook(owner, e *etree.Element) {
	label := p.label(owner)
	known := map[string]bool{"path": true, "method": true, "auth": true, "username": true, "password": true,
		"apiKey": true, "apiKeyLocator": true, "hmacSecret": true, "hmacHeader": true, "hmacAlgorithm": true,
		"resultVariable": true, "resultExpression": true, "correlationKeyExpression": true}
	for _, a := range e.Attr {
		if a.Space == "" && !known[a.Key] {
			p.problems.add(label, RuleUnknownExtension, "unknown attribute %q on gobpm:webhook", a.Key)
		}
	}
	get := func(k string) string { return e.SelectAttrValue(k, "") }
	w := &Webhook{
		Path: strings.Trim(strings.TrimSpace(get("path")), "/"), Method: strings.ToUpper(strings.TrimSpace(get("method"))),
		Auth:     strings.ToUpper(strings.TrimSpace(get("auth"))),
		Username: get("username"), Password: get("password"), APIKey: get("apiKey"),
		HMACSecret: get("hmacSecret"), HMACHeader: strings.TrimSpace(get("hmacHeader")), HMACAlgorithm: strings.TrimSpace(get("hmacAlgorithm")),
		ResultVariable: strings.TrimSpace(get("resultVariable")),
	}
	p.finishWebhook(owner, w, get("apiKeyLocator"), get("resultExpression"), get("correlationKeyExpression"), "")
}

// finishWebhook checks w, compiles its expressions and records it for
// owner. pre prefixes property names in problems.
func (p *parser) finishWebhook(owner *etree.Element, w *Webhook, locator, result, corr, pre string) {
	label := p.label(owner)
	if !isBPMN(owner) || !webhookOwners[owner.Tag] {
		p.problems.add(label, RuleUnsupported, "a webhook on %s is not supported: it belongs on a start event or a message intermediate catch or boundary event", owner.Tag)
		return
	}
	if !webhookPath.MatchString(w.Path) {
		p.problems.add(label, RuleUnsupported, "%sinbound.context (path) %q on %s: want one path segment of letters, digits, '-', '_', '.', '~'", pre, w.Path, owner.Tag)
	}
	switch w.Method {
	case "ANY":
		w.Method = ""
	case "", "GET", "POST", "PUT", "PATCH", "DELETE":
	default:
		p.problems.add(label, RuleUnsupported, "%sinbound.method %q on %s: want any, get, post, put, patch or delete", pre, w.Method, owner.Tag)
	}
	switch w.Auth {
	case "":
		w.Auth = WebhookAuthNone
	case WebhookAuthNone:
	case WebhookAuthBasic:
		if strings.TrimSpace(w.Username) == "" || strings.TrimSpace(w.Password) == "" {
			p.problems.add(label, RuleUnsupported, "%sinbound.auth.username and inbound.auth.password on %s are required with BASIC authentication", pre, owner.Tag)
		}
	case WebhookAuthAPIKey:
		if strings.TrimSpace(w.APIKey) == "" {
			p.problems.add(label, RuleUnsupported, "%sinbound.auth.apiKey on %s is required with APIKEY authentication", pre, owner.Tag)
		}
		if strings.TrimSpace(locator) == "" {
			p.problems.add(label, RuleUnsupported, "%sinbound.auth.apiKeyLocator on %s is required with APIKEY authentication", pre, owner.Tag)
		} else {
			w.APIKeyLocator = p.compile(label, "webhook apiKeyLocator", "", locator)
		}
	default:
		p.problems.add(label, RuleUnsupported, "%sinbound.auth.type %q on %s is not supported: gobpm checks NONE, BASIC and APIKEY (JWT is not supported)", pre, w.Auth, owner.Tag)
	}
	if w.HMACSecret != "" {
		if w.HMACHeader == "" {
			p.problems.add(label, RuleUnsupported, "%sinbound.hmacHeader on %s is required with an HMAC secret", pre, owner.Tag)
		}
		switch w.HMACAlgorithm {
		case "sha_1", "sha_256", "sha_512":
		default:
			p.problems.add(label, RuleUnsupported, "%sinbound.hmacAlgorithm %q on %s: want sha_1, sha_256 or sha_512", pre, w.HMACAlgorithm, owner.Tag)
		}
	}
	if strings.TrimSpace(result) != "" {
		w.ResultExpression = p.compile(label, "webhook resultExpression", "", result)
	}
	if strings.TrimSpace(corr) != "" {
		w.CorrelationKey = p.compile(label, "webhook correlationKeyExpression", "", corr)
	}
	if p.webhooks == nil {
		p.webhooks = map[*etree.Element]*Webhook{}
	}
	if _, dup := p.webhooks[owner]; dup {
		p.problems.add(label, RuleUnsupported, "%s declares more than one webhook", owner.Tag)
		return
	}
	p.webhooks[owner] = w
}

// attachWebhooks sets Node.Webhook from what camundaWebhook and
// gobpmWebhook read, and checks that each webhook's event can take it: a
// catch or boundary event needs a message and a correlation key.
func (p *parser) attachWebhooks() {
	for _, info := range p.nodes {
		w := p.webhooks[info.el]
		if w == nil || info.node == nil {
			continue
		}
		n := info.node
		label := p.label(info.el)
		switch {
		case n.Kind == KindStartEvent && info.g != nil && p.procs[info.g] == "":
			p.problems.add(label, RuleUnsupported, "a webhook on a start event inside a sub-process is not supported: it belongs on a process's start event")
		case n.Kind == KindStartEvent && n.Event != nil && n.Event.Kind != TriggerMessage:
			p.problems.add(label, RuleUnsupported, "a webhook on a %s start event is not supported: it belongs on a none or message start event", n.Event.Kind)
		case n.Kind != KindStartEvent && (n.Event == nil || n.Event.Kind != TriggerMessage):
			p.problems.add(label, RuleUnsupported, "a webhook on %s needs a messageEventDefinition with a messageRef", info.el.Tag)
		case n.Kind != KindStartEvent && w.CorrelationKey == nil:
			p.problems.add(label, RuleUnsupported, "a webhook on %s needs correlationKeyExpression: the message is correlated by it", info.el.Tag)
		}
		n.Webhook = w
	}
}
