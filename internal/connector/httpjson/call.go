package httpjson

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Camunda's defaults for the two timeouts of a call, in seconds.
const defaultTimeoutSeconds = 20

// request is one call as the inputs describe it, secrets resolved.
type request struct {
	method  string
	url     string
	headers map[string]string
	query   map[string]any
	body    any
	hasBody bool
	auth    map[string]any
	connect time.Duration
	read    time.Duration
}

// inputError is a problem with the inputs: retrying cannot help.
type inputError struct{ msg string }

func (e *inputError) Error() string { return e.msg }

// parseRequest reads the inputs from a job's variables (secrets already
// resolved in them).
func parseRequest(vars map[string]any, maxWait time.Duration) (request, error) {
	r := request{method: strings.ToUpper(strings.TrimSpace(str(vars["method"])))}
	if r.method == "" {
		r.method = http.MethodGet
	}
	switch r.method {
	case http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete, http.MethodHead, http.MethodOptions:
	default:
		return r, &inputError{fmt.Sprintf("method %q: want GET, POST, PUT, PATCH, DELETE, HEAD or OPTIONS", r.method)}
	}
	r.url = strings.TrimSpace(str(vars["url"]))
	u, err := url.Parse(r.url)
	if r.url == "" || err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return r, &inputError{"url: want an http:// or https:// URL"}
	}
	hs, err := object(vars["headers"], "headers")
	if err != nil {
		return r, err
	}
	r.headers = map[string]string{}
	for k, v := range hs {
		if v != nil {
			r.headers[k] = str(v)
		}
	}
	if r.query, err = object(vars["queryParameters"], "queryParameters"); err != nil {
		return r, err
	}
	if b, ok := vars["body"]; ok && b != nil && b != "" {
		r.body, r.hasBody = b, true
	}
	if r.auth, err = object(vars["authentication"], "authentication"); err != nil {
		return r, err
	}
	if r.connect, err = seconds(vars["connectionTimeoutInSeconds"], "connectionTimeoutInSeconds", maxWait); err != nil {
		return r, err
	}
	if r.read, err = seconds(vars["readTimeoutInSeconds"], "readTimeoutInSeconds", maxWait); err != nil {
		return r, err
	}
	return r, nil
}

// seconds reads a timeout input: blank is Camunda's default, 0 (Camunda:
// no timeout) the longest gobpm allows.
func seconds(v any, name string, maxWait time.Duration) (time.Duration, error) {
	s := strings.TrimSpace(str(v))
	if v == nil || s == "" {
		return defaultTimeoutSeconds * time.Second, nil
	}
	n, err := strconv.ParseFloat(s, 64)
	if err != nil || n < 0 {
		return 0, &inputError{fmt.Sprintf("%s %q: want a number of seconds >= 0", name, s)}
	}
	d := time.Duration(n * float64(time.Second))
	if d == 0 || d > maxWait {
		d = maxWait
	}
	return d, nil
}

// object reads a map input, also given as JSON text.
func object(v any, name string) (map[string]any, error) {
	switch x := v.(type) {
	case nil:
		return nil, nil
	case map[string]any:
		return x, nil
	case string:
		if strings.TrimSpace(x) == "" {
			return nil, nil
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(x), &m); err != nil {
			return nil, &inputError{fmt.Sprintf("%s: want a context (an object)", name)}
		}
		return m, nil
	}
	return nil, &inputError{fmt.Sprintf("%s: want a context (an object), not %T", name, v)}
}

// str renders a scalar input as text.
func str(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case json.Number:
		return x.String()
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case bool:
		return strconv.FormatBool(x)
	case map[string]any, []any:
		b, _ := json.Marshal(x)
		return string(b)
	}
	return fmt.Sprint(v)
}

// response is what a call answered, in Camunda's shape.
type response struct {
	status  int
	reason  string
	headers map[string]any
	body    any
	excerpt string // the start of the body as text, for job errors
}

// context is the response as the result and error expressions see it.
func (r response) context() map[string]any {
	return map[string]any{"status": r.status, "headers": r.headers, "body": r.body}
}

// httpError is an answer with status 400 or more.
type httpError struct{ resp response }

func (e *httpError) Error() string {
	msg := fmt.Sprintf("HTTP %d %s", e.resp.status, e.resp.reason)
	if e.resp.excerpt != "" {
		msg += ": " + e.resp.excerpt
	}
	return msg
}

// errBodyTooLarge is wrapped when a body exceeds Options.MaxBodyBytes.
var errBodyTooLarge = errors.New("body too large")

// caller makes calls with one guarded client.
type caller struct {
	client  *http.Client
	maxBody int64
	// tokens are the OAuth tokens fetched, per client.
	tokens *tokenCache
}

// do makes the call r describes, authentication included. A 401 answer
// drops the OAuth token sent from the cache; if the token came from the
// cache, the call is made once more with a token fetched anew (once: a
// fresh token refused is the answer).
func (c *caller) do(ctx context.Context, r request) (response, error) {
	resp, key, cached, err := c.doOnce(ctx, r)
	if err != nil || resp.status != http.StatusUnauthorized || key == "" {
		return resp, err
	}
	c.tokens.drop(key)
	if !cached {
		return resp, nil
	}
	resp, key, _, err = c.doOnce(ctx, r)
	if err == nil && resp.status == http.StatusUnauthorized && key != "" {
		c.tokens.drop(key)
	}
	return resp, err
}

// doOnce makes the call r describes once; key and cached are
// authenticate's.
func (c *caller) doOnce(ctx context.Context, r request) (resp response, key string, cached bool, err error) {
	ctx = context.WithValue(ctx, connectTimeoutKey{}, r.connect)
	u, _ := url.Parse(r.url)
	q := u.Query()
	keys := make([]string, 0, len(r.query))
	for k := range r.query {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if v := r.query[k]; v != nil {
			q.Set(k, str(v))
		}
	}
	headers := http.Header{}
	for k, v := range r.headers {
		headers.Set(k, v)
	}
	if key, cached, err = c.authenticate(ctx, r.auth, headers, q); err != nil {
		return response{}, "", false, err
	}
	u.RawQuery = q.Encode()
	var body io.Reader
	if r.hasBody {
		b, ctype, err := encodeBody(r.body, headers.Get("Content-Type"))
		if err != nil {
			return response{}, "", false, err
		}
		if int64(len(b)) > c.maxBody {
			return response{}, "", false, &inputError{fmt.Sprintf("request %v: %d bytes, the limit is %d", errBodyTooLarge, len(b), c.maxBody)}
		}
		if headers.Get("Content-Type") == "" {
			headers.Set("Content-Type", ctype)
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, r.method, u.String(), body)
	if err != nil {
		return response{}, "", false, &inputError{"request: " + err.Error()}
	}
	req.Header = headers
	resp, err = c.send(req, r.read)
	return resp, key, cached, err
}

// send sends req and reads its answer, waiting at most read for it.
func (c *caller) send(req *http.Request, read time.Duration) (response, error) {
	connect, _ := req.Context().Value(connectTimeoutKey{}).(time.Duration)
	ctx, cancel := context.WithTimeout(req.Context(), connect+read)
	defer cancel()
	resp, err := c.client.Do(req.WithContext(ctx))
	if err != nil {
		return response{}, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, c.maxBody+1))
	if err != nil {
		return response{}, fmt.Errorf("read the answer: %w", err)
	}
	if int64(len(b)) > c.maxBody {
		return response{}, fmt.Errorf("response %w: more than %d bytes", errBodyTooLarge, c.maxBody)
	}
	out := response{status: resp.StatusCode, reason: http.StatusText(resp.StatusCode), headers: map[string]any{}}
	for k, vs := range resp.Header {
		if len(vs) == 1 {
			out.headers[k] = vs[0]
			continue
		}
		l := make([]any, len(vs))
		for i, v := range vs {
			l[i] = v
		}
		out.headers[k] = l
	}
	if len(b) > 0 {
		d := json.NewDecoder(bytes.NewReader(b))
		d.UseNumber()
		var v any
		if err := d.Decode(&v); err == nil && !d.More() {
			out.body = v
		} else {
			out.body = string(b)
		}
		out.excerpt = string(b)
		if len(out.excerpt) > 200 {
			out.excerpt = strings.ToValidUTF8(out.excerpt[:200], "") + "…"
		}
	}
	return out, nil
}

// encodeBody encodes a body input: text as it is, anything else as JSON,
// or as a form when the Content-Type header asks for one.
func encodeBody(v any, ctype string) ([]byte, string, error) {
	if strings.HasPrefix(strings.ToLower(ctype), "application/x-www-form-urlencoded") {
		if m, ok := v.(map[string]any); ok {
			f := url.Values{}
			for k, e := range m {
				f.Set(k, str(e))
			}
			return []byte(f.Encode()), ctype, nil
		}
	}
	if s, ok := v.(string); ok {
		return []byte(s), "text/plain; charset=utf-8", nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, "", &inputError{"body: " + err.Error()}
	}
	return b, "application/json", nil
}
