package webhook

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha1" //nolint:gosec // HMAC-SHA1 is one of the signatures Camunda's webhook checks
	"crypto/sha256"
	"crypto/sha512"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/gobpm/gobpm/internal/bpmn"
	"github.com/gobpm/gobpm/internal/expr"
	"github.com/gobpm/gobpm/internal/runtime"
)

// DefaultMaxBodyBytes caps a webhook request's body unless
// Options.MaxBodyBytes says otherwise.
const DefaultMaxBodyBytes = 1 << 20

// Default rate limit of each path: DefaultRate requests a second on
// average, bursts of DefaultBurst.
const (
	DefaultRate  = 10.0
	DefaultBurst = 20
)

// Runtime is what the handler needs of the runtime.
type Runtime interface {
	// Webhooks returns the webhooks served now, by path.
	Webhooks(ctx context.Context) (map[string]runtime.WebhookRoute, error)
	// StartWebhook starts an instance of the route's process at the
	// route's start event.
	StartWebhook(ctx context.Context, route runtime.WebhookRoute, vars map[string]any) (runtime.InstanceView, error)
	// CorrelateMessage delivers a message to the waits of its name and
	// key (ENOTFOUND: none).
	CorrelateMessage(ctx context.Context, name, correlationKey string, vars map[string]any) (int, error)
}

// Secrets resolves {{secrets.NAME}} placeholders and masks what it put
// in: *httpjson.Secrets, the REST connector's (an interface so that the
// connector's tests can drive webhooks without an import cycle).
type Secrets interface {
	// Expand replaces the placeholders in text and returns the secret
	// values it put in; an unset secret is an error naming it.
	Expand(text string) (string, []string, error)
	// Mask replaces every one of values in the strings of v by ***.
	Mask(values []string, v any) any
}

// Options configure a Handler.
type Options struct {
	// Logger receives one line per request (path, process, outcome; never
	// headers or bodies). Nil discards.
	Logger *slog.Logger
	// Secrets resolves {{secrets.NAME}} in the webhooks' credentials (the
	// REST connector's *httpjson.Secrets); required.
	Secrets Secrets
	// MaxBodyBytes caps a request body (0: DefaultMaxBodyBytes).
	MaxBodyBytes int64
	// Rate and Burst are each path's token bucket (0: the defaults; a
	// negative Rate: no limit).
	Rate  float64
	Burst int
	// Now is the clock of the rate limit (nil: time.Now).
	Now func() time.Time
}

// Handler serves /webhooks/{path}. It is safe for concurrent use.
type Handler struct {
	rt      Runtime
	opts    Options
	log     *slog.Logger
	buckets *buckets
}

// New returns a handler over rt; opts.Secrets is required.
func New(rt Runtime, opts Options) (*Handler, error) {
	if opts.MaxBodyBytes <= 0 {
		opts.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if opts.Rate == 0 {
		opts.Rate = DefaultRate
	}
	if opts.Burst <= 0 {
		opts.Burst = DefaultBurst
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Secrets == nil {
		return nil, errors.New("webhook: Options.Secrets is required")
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Handler{rt: rt, opts: opts, log: log, buckets: newBuckets(opts.Rate, opts.Burst, opts.Now)}, nil
}

// Code is the kind of a refused webhook request; the API maps each to its
// status.
type Code string

// The codes of Error.
const (
	CodeNotFound         Code = "not-found"
	CodeMethodNotAllowed Code = "method-not-allowed"
	CodeUnauthorized     Code = "unauthorized"
	CodeTooLarge         Code = "too-large"
	CodeRateLimited      Code = "rate-limited"
	CodeInvalid          Code = "invalid"
)

// Error is a refused webhook request.
type Error struct {
	Code   Code
	Detail string
	// RetryAfter is set for CodeRateLimited.
	RetryAfter time.Duration
	// Allow is the method accepted, for CodeMethodNotAllowed.
	Allow string
}

func (e *Error) Error() string { return e.Detail }

// Result is the answer to an accepted request: the instance started, or
// the message correlated.
type Result struct {
	// ProcessKey and ProcessVersion name the webhook's process version.
	ProcessKey     string `json:"bpmnProcessId"`
	ProcessVersion int    `json:"version"`
	// InstanceID is the started instance (starts only).
	InstanceID string `json:"processInstanceKey,omitempty"`
	// Correlated counts the waits the message reached (catch and
	// boundary events only).
	Correlated *int `json:"correlated,omitempty"`
}

// Serve handles one request for path (the part after /webhooks/). Errors
// are *Error, a runtime error, or internal.
func (h *Handler) Serve(w http.ResponseWriter, r *http.Request, path string) error {
	path = strings.Trim(path, "/")
	routes, err := h.rt.Webhooks(r.Context())
	if err != nil {
		return err
	}
	rt, ok := routes[path]
	if !ok {
		return &Error{Code: CodeNotFound, Detail: fmt.Sprintf("no deployed process serves webhook path %q", path)}
	}
	wh := rt.Webhook()
	if wh.Method != "" && r.Method != wh.Method {
		return &Error{Code: CodeMethodNotAllowed, Allow: wh.Method, Detail: fmt.Sprintf("webhook %q accepts %s only", path, wh.Method)}
	}
	if wait, ok := h.buckets.take(path); !ok {
		return &Error{Code: CodeRateLimited, RetryAfter: wait, Detail: fmt.Sprintf("webhook %q is rate-limited; retry later", path)}
	}
	raw, err := io.ReadAll(http.MaxBytesReader(w, r.Body, h.opts.MaxBodyBytes))
	if err != nil {
		var me *http.MaxBytesError
		if errors.As(err, &me) {
			return &Error{Code: CodeTooLarge, Detail: fmt.Sprintf("webhook request body exceeds the limit of %d bytes", h.opts.MaxBodyBytes)}
		}
		return fmt.Errorf("webhook %s: read body: %w", path, err)
	}
	req, err := requestValue(r, raw)
	if err != nil {
		return &Error{Code: CodeInvalid, Detail: err.Error()}
	}
	masks, err := h.authenticate(wh, r, raw, req)
	if err != nil {
		h.log.LogAttrs(r.Context(), slog.LevelWarn, "webhook refused", slog.String("webhook_path", path),
			slog.String("definition_key", rt.Process.Key), slog.String("reason", err.Error()))
		return err
	}
	// Credentials the caller sent are never kept in variables, whatever
	// the webhook checks.
	hdrs := req["headers"].(map[string]any)
	for _, name := range []string{"authorization", "proxy-authorization", "cookie"} {
		if _, ok := hdrs[name]; ok {
			hdrs[name] = "***"
		}
	}
	if m, ok := h.opts.Secrets.Mask(masks, req).(map[string]any); ok {
		req = m
	}
	vars, err := variables(wh, req)
	if err != nil {
		return &Error{Code: CodeInvalid, Detail: fmt.Sprintf("webhook %q: %v", path, h.opts.Secrets.Mask(masks, err.Error()))}
	}
	res, err := h.deliver(r.Context(), rt, req, vars)
	if err != nil {
		return err
	}
	h.log.LogAttrs(r.Context(), slog.LevelInfo, "webhook accepted", slog.String("webhook_path", path),
		slog.String("definition_key", rt.Process.Key), slog.String("instance_id", res.InstanceID))
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	return json.NewEncoder(w).Encode(res)
}

// deliver starts the instance or correlates the message.
func (h *Handler) deliver(ctx context.Context, rt runtime.WebhookRoute, req, vars map[string]any) (Result, error) {
	res := Result{ProcessKey: rt.Process.Key, ProcessVersion: rt.Process.Version}
	n := rt.Node
	switch {
	case n.Kind == bpmn.KindStartEvent:
		inst, err := h.rt.StartWebhook(ctx, rt, vars)
		if err != nil {
			return res, err
		}
		res.InstanceID = string(inst.ID)
	default:
		key, err := n.Webhook.CorrelationKey.Eval(expr.MapScope{"request": req})
		if err != nil {
			return res, &Error{Code: CodeInvalid, Detail: fmt.Sprintf("webhook correlationKeyExpression: %v", err)}
		}
		if key == nil {
			return res, &Error{Code: CodeInvalid, Detail: "webhook correlationKeyExpression gave null"}
		}
		k := fmt.Sprint(key)
		if s, ok := key.(string); ok {
			k = s
		}
		c, err := h.rt.CorrelateMessage(ctx, n.Event.MessageName, k, vars)
		if err != nil && !(n.Webhook.CorrelationOptional && runtime.ErrorCode(err) == runtime.ENOTFOUND) {
			return res, err
		}
		res.Correlated = &c
	}
	return res, nil
}

// variables are what the request hands the instance or message: the
// resultExpression's entries and the resultVariable, else the body when
// it is an object.
func variables(wh *bpmn.Webhook, req map[string]any) (map[string]any, error) {
	out := map[string]any{}
	if wh.ResultExpression == nil && wh.ResultVariable == "" {
		if b, ok := req["body"].(map[string]any); ok {
			return b, nil
		}
		return out, nil
	}
	if wh.ResultVariable != "" {
		out[wh.ResultVariable] = map[string]any{"request": req}
	}
	if wh.ResultExpression != nil {
		v, err := wh.ResultExpression.Eval(expr.MapScope{"request": req})
		if err != nil {
			return nil, fmt.Errorf("resultExpression: %w", err)
		}
		switch m := v.(type) {
		case nil:
		case map[string]any:
			for k, e := range m {
				out[k] = e
			}
		default:
			return nil, fmt.Errorf("resultExpression gave %T, want a context", v)
		}
	}
	return out, nil
}

// requestValue is the request as expressions see it: body (JSON decoded,
// a form as an object of strings, else text), headers (names lower case,
// one value each, repeated ones joined by ", ") and params (the query).
func requestValue(r *http.Request, raw []byte) (map[string]any, error) {
	headers := map[string]any{}
	for k, vs := range r.Header {
		headers[strings.ToLower(k)] = strings.Join(vs, ", ")
	}
	params := map[string]any{}
	for k, vs := range r.URL.Query() {
		params[k] = vs[0]
	}
	var body any
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	trimmed := bytes.TrimSpace(raw)
	switch {
	case len(trimmed) == 0:
	case mt == "application/x-www-form-urlencoded":
		form, err := url.ParseQuery(string(raw))
		if err != nil {
			return nil, fmt.Errorf("webhook form body: %w", err)
		}
		m := map[string]any{}
		for k, vs := range form {
			m[k] = vs[0]
		}
		body = m
	case mt == "application/json" || strings.HasSuffix(mt, "+json") || (mt == "" && (trimmed[0] == '{' || trimmed[0] == '[')):
		dec := json.NewDecoder(bytes.NewReader(trimmed))
		dec.UseNumber()
		if err := dec.Decode(&body); err != nil {
			return nil, fmt.Errorf("webhook JSON body: %w", err)
		}
	default:
		body = string(raw)
	}
	return map[string]any{"body": body, "headers": headers, "params": params}, nil
}

// authenticate checks the webhook's HMAC and credentials and returns the
// values to mask in what is kept.
func (h *Handler) authenticate(wh *bpmn.Webhook, r *http.Request, raw []byte, req map[string]any) ([]string, error) {
	var masks []string
	expand := func(s string) (string, error) {
		v, used, err := h.opts.Secrets.Expand(s)
		if err != nil {
			return "", fmt.Errorf("webhook credentials: %w", err)
		}
		if v == "" {
			// A secret set to nothing would let an empty credential pass
			// (or key the HMAC with nothing): refuse rather than accept.
			return "", &Error{Code: CodeUnauthorized, Detail: "the webhook's credential is empty on this server: nothing is accepted until it is set"}
		}
		masks = append(masks, used...)
		return v, nil
	}
	unauthorized := func(why string) error { return &Error{Code: CodeUnauthorized, Detail: why} }
	if wh.HMACSecret != "" {
		secret, err := expand(wh.HMACSecret)
		if err != nil {
			return nil, err
		}
		if !validHMAC(wh.HMACAlgorithm, secret, raw, r.Header.Get(wh.HMACHeader)) {
			return nil, unauthorized("the request's HMAC signature is missing or wrong")
		}
	}
	switch wh.Auth {
	case bpmn.WebhookAuthBasic:
		user, err := expand(wh.Username)
		if err != nil {
			return nil, err
		}
		pass, err := expand(wh.Password)
		if err != nil {
			return nil, err
		}
		masks = append(masks, pass)
		u, p, ok := r.BasicAuth()
		if !ok || !equal(u, user) || !equal(p, pass) {
			return nil, unauthorized("wrong or missing basic credentials")
		}
	case bpmn.WebhookAuthAPIKey:
		key, err := expand(wh.APIKey)
		if err != nil {
			return nil, err
		}
		masks = append(masks, key)
		got, err := wh.APIKeyLocator.Eval(expr.MapScope{"request": req})
		s, _ := got.(string)
		if err != nil || s == "" || !equal(s, key) {
			return nil, unauthorized("wrong or missing API key")
		}
	}
	return masks, nil
}

// equal compares in constant time.
func equal(a, b string) bool { return subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1 }

// validHMAC checks sig, the signature header's value: the HMAC of body in
// hex (optionally prefixed "sha256=" and the like, as GitHub sends it) or
// base64.
func validHMAC(alg, secret string, body []byte, sig string) bool {
	var fn func() hash.Hash
	switch alg {
	case "sha_1":
		fn = sha1.New
	case "sha_512":
		fn = sha512.New
	default:
		fn = sha256.New
	}
	m := hmac.New(fn, []byte(secret))
	m.Write(body)
	want := m.Sum(nil)
	sig = strings.TrimSpace(sig)
	for _, s := range []string{sig, strings.TrimPrefix(strings.TrimPrefix(strings.TrimPrefix(sig, "sha1="), "sha256="), "sha512=")} {
		// The signature as sent, then without a "sha256=" prefix as GitHub
		// sends it (a base64 signature may itself start with "sha").
		if got, err := hex.DecodeString(s); err == nil && hmac.Equal(got, want) {
			return true
		}
		if got, err := base64.StdEncoding.DecodeString(s); err == nil && hmac.Equal(got, want) {
			return true
		}
	}
	return false
}
