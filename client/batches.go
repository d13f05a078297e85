package client

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// Batch operations by filter: one act on every instance a list filter
// matches, run by the server in the background.

// BatchSpec asks for a batch: Operation (cancel, retry-incidents,
// migrate, modify, set-variables, delete), Filter (the filter parameters
// of the instance list, e.g. "processKey", "status", "var") and the
// operation's parameters.
type BatchSpec struct {
	Operation string `json:"operation"`
	// Filter holds list filter parameters, each with one or more values
	// ("var" may repeat).
	Filter        url.Values        `json:"-"`
	Retries       int               `json:"retries,omitempty"`
	TargetVersion int               `json:"targetVersion,omitempty"`
	Mapping       map[string]string `json:"mapping,omitempty"`
	// Instructions are modify's, in the form POST …/modify takes.
	Instructions []map[string]any `json:"instructions,omitempty"`
	Variables    map[string]any   `json:"variables,omitempty"`
}

// Batch is a batch operation with its progress.
type Batch struct {
	ID        string `json:"id"`
	Operation string `json:"operation"`
	// Filter is the filter as it was given.
	Filter map[string][]string `json:"filter"`
	// State is preparing, running, paused, completed or cancelled.
	State      string     `json:"state"`
	CreatedBy  string     `json:"createdBy,omitempty"`
	CreatedAt  time.Time  `json:"createdAt"`
	FinishedAt *time.Time `json:"finishedAt,omitempty"`
	Total      int        `json:"total"`
	Done       int        `json:"done"`
	Failed     int        `json:"failed"`
	Pending    int        `json:"pending"`
}

// BatchPage is a page of batches, newest first.
type BatchPage struct {
	Items  []Batch `json:"items"`
	Total  int     `json:"total"`
	Limit  int     `json:"limit"`
	Offset int     `json:"offset"`
}

// BatchItem is one instance of a batch with its outcome.
type BatchItem struct {
	Seq        int64  `json:"seq"`
	InstanceID string `json:"instanceId"`
	// Status is pending, done or failed.
	Status string `json:"status"`
	Reason string `json:"reason,omitempty"`
}

// BatchItemPage is a page of a batch's items; NextCursor ("" on the
// last page) fetches the next.
type BatchItemPage struct {
	Items      []BatchItem `json:"items"`
	NextCursor string      `json:"nextCursor,omitempty"`
}

// BatchCount is the answer of a dry run: how many instances a batch
// would act on now; More says there are more than Count (the server
// counts as far as its instance list does).
type BatchCount struct {
	Count int  `json:"count"`
	More  bool `json:"more,omitempty"`
}

// CountBatch asks how many instances a batch would act on now (a dry
// run); nothing is stored.
func (c *Client) CountBatch(ctx context.Context, spec BatchSpec) (BatchCount, error) {
	var out BatchCount
	err := c.do(ctx, request{method: http.MethodPost, path: "/batches", body: batchBody(spec, true)}, &out)
	return out, err
}

// CreateBatch starts a batch; the server resolves its filter into the
// instances it matches now and acts on them in the background.
func (c *Client) CreateBatch(ctx context.Context, spec BatchSpec) (Batch, error) {
	var out Batch
	err := c.do(ctx, request{method: http.MethodPost, path: "/batches", body: batchBody(spec, false)}, &out)
	return out, err
}

// Batch returns a batch and its progress; an unknown id is a 404 *Problem.
func (c *Client) Batch(ctx context.Context, id string) (Batch, error) {
	var out Batch
	err := c.do(ctx, request{method: http.MethodGet, path: "/batches/" + esc(id)}, &out)
	return out, err
}

// Batches lists the caller's batches, newest first (limit 0: the
// server's default).
func (c *Client) Batches(ctx context.Context, limit, offset int) (BatchPage, error) {
	q := url.Values{}
	if limit > 0 {
		q.Set("limit", strconv.Itoa(limit))
	}
	if offset > 0 {
		q.Set("offset", strconv.Itoa(offset))
	}
	var out BatchPage
	err := c.do(ctx, request{method: http.MethodGet, path: "/batches", query: q}, &out)
	return out, err
}

// BatchItems returns a page of a batch's items: those with status (""
// for any), after cursor ("" for the first page), at most limit (0: the
// server's default).
func (c *Client) BatchItems(ctx context.Context, id, status, cursor string, limit int) (BatchItemPage, error) {
	q := url.Values{}
	if status != "" {
		q.Set("status", status)
	}
	if cursor != "" {
		q.Set("cursor", cursor)
	}
	if limit > 0 {
		q.Set("limit", strconv.Itoa(limit))
	}
	var out BatchItemPage
	err := c.do(ctx, request{method: http.MethodGet, path: "/batches/" + esc(id) + "/items", query: q}, &out)
	return out, err
}

// PauseBatch pauses a batch after the instance in hand.
func (c *Client) PauseBatch(ctx context.Context, id string) (Batch, error) {
	return c.steerBatch(ctx, id, "pause")
}

// ResumeBatch resumes a paused batch.
func (c *Client) ResumeBatch(ctx context.Context, id string) (Batch, error) {
	return c.steerBatch(ctx, id, "resume")
}

// CancelBatch ends a batch; its pending instances are not acted on.
func (c *Client) CancelBatch(ctx context.Context, id string) (Batch, error) {
	return c.steerBatch(ctx, id, "cancel")
}

func (c *Client) steerBatch(ctx context.Context, id, act string) (Batch, error) {
	var out Batch
	err := c.do(ctx, request{method: http.MethodPost, path: "/batches/" + esc(id) + "/" + act}, &out)
	return out, err
}

// batchBody is the request body of a spec.
func batchBody(spec BatchSpec, dryRun bool) map[string]any {
	filter := map[string]any{}
	for name, vs := range spec.Filter {
		if name == "var" || len(vs) > 1 {
			filter[name] = vs
		} else if len(vs) == 1 {
			filter[name] = vs[0]
		}
	}
	body := map[string]any{"operation": spec.Operation, "filter": filter}
	if spec.Retries > 0 {
		body["retries"] = spec.Retries
	}
	if spec.TargetVersion > 0 {
		body["targetVersion"] = spec.TargetVersion
	}
	if len(spec.Mapping) > 0 {
		body["mapping"] = spec.Mapping
	}
	if len(spec.Instructions) > 0 {
		body["instructions"] = spec.Instructions
	}
	if len(spec.Variables) > 0 {
		body["variables"] = spec.Variables
	}
	if dryRun {
		body["dryRun"] = true
	}
	return body
}
