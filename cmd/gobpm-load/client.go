package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Client speaks gobpm's JSON API (openapi.yaml) and nothing else: the load
// tool must keep working while the engine behind it changes.
type Client struct {
	base string // http://host:port, no trailing slash
	hc   *http.Client
}

// NewClient returns a client for the server at base with a connection pool
// big enough for conns concurrent requests.
func NewClient(base string, conns int) *Client {
	tr := &http.Transport{
		DialContext:         (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConns:        conns,
		MaxIdleConnsPerHost: conns,
		IdleConnTimeout:     90 * time.Second,
		DisableCompression:  true,
	}
	// Timeout bounds every request, long polls included (they ask for ≤ 1 s).
	return &Client{base: strings.TrimRight(base, "/"), hc: &http.Client{Transport: tr, Timeout: 2 * time.Minute}}
}

// Close drops the idle connections.
func (c *Client) Close() { c.hc.CloseIdleConnections() }

// StatusError is a non-2xx answer.
type StatusError struct {
	Method, Path string
	Status       int
	Body         string // the start of the problem document
}

// Error implements error.
func (e *StatusError) Error() string {
	return fmt.Sprintf("%s %s: %d %s", e.Method, e.Path, e.Status, e.Body)
}

// do sends one request and decodes a 2xx JSON answer into out (when not
// nil). It returns the number of body bytes read.
func (c *Client) do(ctx context.Context, method, path, ctype string, body []byte, out any) (int, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, rd)
	if err != nil {
		return 0, err
	}
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return len(data), fmt.Errorf("%s %s: read body: %w", method, path, err)
	}
	if resp.StatusCode/100 != 2 {
		msg := string(data)
		if len(msg) > 300 {
			msg = msg[:300] + "…"
		}
		return len(data), &StatusError{Method: method, Path: path, Status: resp.StatusCode, Body: msg}
	}
	if out != nil && len(data) > 0 {
		if err := json.Unmarshal(data, out); err != nil {
			return len(data), fmt.Errorf("%s %s: decode: %w", method, path, err)
		}
	}
	return len(data), nil
}

func (c *Client) postJSON(ctx context.Context, path string, in, out any) (int, error) {
	body, err := json.Marshal(in)
	if err != nil {
		return 0, err
	}
	return c.do(ctx, http.MethodPost, path, "application/json", body, out)
}

// Healthy reports whether GET /healthz answers 200.
func (c *Client) Healthy(ctx context.Context) bool {
	_, err := c.do(ctx, http.MethodGet, "/healthz", "", nil, nil)
	return err == nil
}

// Deploy posts one BPMN document as a raw XML body.
func (c *Client) Deploy(ctx context.Context, name string, xml []byte) error {
	_, err := c.do(ctx, http.MethodPost, "/api/v1/deployments?name="+url.QueryEscape(name), "application/xml", xml, nil)
	return err
}

// StartRequest is the body of POST /api/v1/processes/{key}/instances.
type StartRequest struct {
	BusinessKey string         `json:"businessKey,omitempty"`
	Variables   map[string]any `json:"variables,omitempty"`
}

// Instance is the part of an instance (or instance summary) the tool reads.
type Instance struct {
	ID          string `json:"id"`
	ProcessKey  string `json:"processKey"`
	Status      string `json:"status"`
	BusinessKey string `json:"businessKey"`
	// Number is the instance's number within its process key.
	Number int64 `json:"number"`
}

// Start starts an instance of the latest version of key.
func (c *Client) Start(ctx context.Context, key string, req StartRequest) (Instance, int, error) {
	var inst Instance
	n, err := c.postJSON(ctx, "/api/v1/processes/"+url.PathEscape(key)+"/instances", req, &inst)
	if err == nil && inst.ID == "" {
		err = fmt.Errorf("start %s: answer without an id", key)
	}
	return inst, n, err
}

// Get reads an instance; it returns the body size too.
func (c *Client) Get(ctx context.Context, id string) (Instance, int, error) {
	var inst Instance
	n, err := c.do(ctx, http.MethodGet, "/api/v1/instances/"+url.PathEscape(id), "", nil, &inst)
	return inst, n, err
}

// Cancel cancels an instance.
func (c *Client) Cancel(ctx context.Context, id string) (Instance, error) {
	var inst Instance
	_, err := c.do(ctx, http.MethodPost, "/api/v1/instances/"+url.PathEscape(id)+"/cancel", "", nil, &inst)
	return inst, err
}

// Job is the part of an activated job the tool reads.
type Job struct {
	Key string `json:"key"`
	// LockToken proves the activation holds the job; completing needs it.
	LockToken  string `json:"lockToken"`
	InstanceID string `json:"instanceId"`
}

// Activate locks up to max jobs of typ, long-polling up to waitMs.
func (c *Client) Activate(ctx context.Context, typ, worker string, max, waitMs int) ([]Job, error) {
	var out struct {
		Jobs []Job `json:"jobs"`
	}
	_, err := c.postJSON(ctx, "/api/v1/jobs/activate", map[string]any{
		"type": typ, "worker": worker, "maxJobs": max, "lockDurationMs": 120000, "requestTimeoutMs": waitMs,
	}, &out)
	return out.Jobs, err
}

// Complete completes an activated job without variables, presenting its
// lock token.
func (c *Client) Complete(ctx context.Context, j Job) error {
	body, err := json.Marshal(struct {
		LockToken string `json:"lockToken"`
	}{j.LockToken})
	if err != nil {
		return err
	}
	_, err = c.do(ctx, http.MethodPost, "/api/v1/jobs/"+url.PathEscape(j.Key)+"/complete", "application/json", body, nil)
	return err
}

// Page is one page of GET /api/v1/instances. Total is nil when the server
// does not count; NextCursor is nil when it offers no cursor paging.
type Page struct {
	Items      []Instance `json:"items"`
	Total      *int64     `json:"total"`
	NextCursor *string    `json:"nextCursor"`
}

// List reads one page of instances.
func (c *Client) List(ctx context.Context, q url.Values) (Page, error) {
	var p Page
	_, err := c.do(ctx, http.MethodGet, "/api/v1/instances?"+q.Encode(), "", nil, &p)
	return p, err
}

// countedTotals is how far the server counts a list's total: a larger total
// (10,001) means "more than 10,000" (openapi.yaml, GET /api/v1/instances).
const countedTotals = 10_000

// Count returns how many instances match q: the page's total when the server
// counted them all, else it walks the pages (by cursor when offered, else by
// offset), at most limit instances.
func (c *Client) Count(ctx context.Context, q url.Values, limit int) (int64, error) {
	q = cloneValues(q)
	q.Set("limit", "1")
	p, err := c.List(ctx, q)
	if err != nil {
		return 0, err
	}
	if p.Total != nil && *p.Total <= countedTotals {
		return *p.Total, nil
	}
	q.Set("limit", "500")
	var n int64
	for pages := 0; pages <= limit/500+1; pages++ {
		p, err := c.List(ctx, q)
		if err != nil {
			return n, err
		}
		n += int64(len(p.Items))
		switch {
		case len(p.Items) < 500:
			return n, nil
		case p.NextCursor != nil && *p.NextCursor != "":
			q.Set("cursor", *p.NextCursor)
		default:
			q.Set("offset", fmt.Sprint(n))
		}
	}
	return n, fmt.Errorf("count: more than %d instances", limit)
}

func cloneValues(q url.Values) url.Values {
	out := url.Values{}
	for k, v := range q {
		out[k] = append([]string(nil), v...)
	}
	return out
}
