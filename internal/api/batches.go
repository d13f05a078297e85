package api

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/gobpm/gobpm/internal/auth"
	"github.com/gobpm/gobpm/internal/runtime"
)

// Batch operations by filter: POST /api/v1/batches acts on every instance
// a list filter matches, in the background (or, with dryRun, counts them);
// GET /api/v1/batches and /batches/{id} show batches and their progress,
// /batches/{id}/items the outcome per instance; pause, resume and cancel
// steer one. *runtime.Runtime implements Batches.
//
// A batch acts with its creator's rights: its filter is narrowed at
// creation to the processes the creator may read and may operate on (for
// delete: delete), and the instances it matched then are the batch (a
// snapshot; see runtime/batch.go). Only its creator, or a caller without
// restrictions, sees and steers a batch.

// Batches is the part of Service behind the batch routes.
type Batches interface {
	// CountBatch checks a request and counts the instances its filter
	// matches now, up to runtime.MaxListTotal+1 (more than that);
	// EINVALID for a bad operation or parameter.
	CountBatch(ctx context.Context, req runtime.BatchRequest) (int, error)
	// CreateBatch checks a request, stores the batch with its instances
	// and starts it; EINVALID as CountBatch.
	CreateBatch(ctx context.Context, req runtime.BatchRequest) (runtime.BatchView, error)
	// Batch returns a batch with its progress; ENOTFOUND if absent.
	Batch(ctx context.Context, id string) (runtime.BatchView, error)
	// Batches lists batches, newest first, and how many f matches.
	Batches(ctx context.Context, f runtime.BatchFilter) ([]runtime.BatchView, int, error)
	// BatchItems returns a page of a batch's items; ENOTFOUND if absent.
	BatchItems(ctx context.Context, id string, f runtime.BatchItemFilter) ([]runtime.BatchItem, error)
	// PauseBatch, ResumeBatch and CancelBatch steer a batch; ECONFLICT
	// when its state does not allow it, ENOTFOUND if absent.
	PauseBatch(ctx context.Context, id string) (runtime.BatchView, error)
	ResumeBatch(ctx context.Context, id string) (runtime.BatchView, error)
	CancelBatch(ctx context.Context, id string) (runtime.BatchView, error)
}

// batchFilterParams are the members a batch's filter may have: the
// filter parameters of GET /api/v1/instances (not its paging or sort),
// with the same syntax. Any other member is refused, so that a misspelt
// filter never widens a batch to every instance. A new list filter is
// added here too.
var batchFilterParams = []string{"processKey", "version", "status", "businessKey", "parentId", "number",
	"element", "incidentMessage", "incidentMessagePrefix", "var",
	"createdAfter", "createdBefore", "endedAfter", "endedBefore"}

// BatchOutcome is one instance of a batch with its outcome.
type BatchOutcome struct {
	Seq        int64  `json:"seq"`
	InstanceID string `json:"instanceId"`
	// Status is pending, done or failed.
	Status string `json:"status"`
	// Reason says why an item failed, or what a done one found.
	Reason string `json:"reason,omitempty"`
}

// BatchItemPage is a page of a batch's items.
type BatchItemPage struct {
	Items []BatchOutcome `json:"items"`
	// NextCursor fetches the next page; absent on the last.
	NextCursor string `json:"nextCursor,omitempty"`
}

// Batch is a batch operation as the batch routes show it.
type Batch struct {
	ID        string `json:"id"`
	Operation string `json:"operation"`
	// Filter is the filter as it was given, as GET /api/v1/instances
	// parameters (each a list of values).
	Filter map[string][]string `json:"filter"`
	// The operation's parameters.
	Retries       int               `json:"retries,omitempty"`
	TargetVersion int               `json:"targetVersion,omitempty"`
	Mapping       map[string]string `json:"mapping,omitempty"`
	Instructions  []json.RawMessage `json:"instructions,omitempty"`
	Variables     map[string]any    `json:"variables,omitempty"`
	State         string            `json:"state"`
	CreatedBy     string            `json:"createdBy,omitempty"`
	CreatedAt     time.Time         `json:"createdAt"`
	FinishedAt    *time.Time        `json:"finishedAt,omitempty"`
	Total         int               `json:"total"`
	Done          int               `json:"done"`
	Failed        int               `json:"failed"`
	Pending       int               `json:"pending"`
	Links         map[string]string `json:"links,omitempty"`
}

// BatchPage is a page of batches.
type BatchPage struct {
	Items  []Batch `json:"items"`
	Total  int     `json:"total"`
	Limit  int     `json:"limit"`
	Offset int     `json:"offset"`
}

// BatchCount is the answer of a dry run.
type BatchCount struct {
	DryRun bool `json:"dryRun"`
	// Count is how many instances the batch would act on now, at most
	// runtime.MaxListTotal; More says there are more than that.
	Count int  `json:"count"`
	More  bool `json:"more,omitempty"`
}

// batchRequest is the body of POST /api/v1/batches (see createBatch).
type batchRequest struct {
	bodyMembers
	Operation string
	Params    runtime.BatchParams
	// Filter is the filter as list query parameters.
	Filter url.Values
	DryRun bool
}

// Validate decodes the operation, its parameters, the filter and dryRun;
// the filter's values are checked by readInstanceFilter after.
func (q *batchRequest) Validate() error {
	var err error
	if q.Operation, err = requiredStringField(q.members, "operation"); err != nil {
		return err
	}
	if !slices.Contains(runtime.BatchOperations, q.Operation) {
		return errorf(kindInvalidRequest, "operation", fmt.Sprintf("operation must be one of %s, not %q",
			strings.Join(runtime.BatchOperations, ", "), q.Operation))
	}
	if q.Filter, err = batchFilter(q.members["filter"]); err != nil {
		return err
	}
	p := &q.Params
	if p.Retries, err = positiveIntField(q.members, "retries"); err != nil {
		return err
	}
	if p.TargetVersion, err = positiveIntField(q.members, "targetVersion"); err != nil {
		return err
	}
	if q.Operation == runtime.BatchMigrate && p.TargetVersion == 0 {
		return errorf(kindInvalidRequest, "targetVersion", "targetVersion is required for a migration: a positive integer")
	}
	if raw := q.members["mapping"]; !isNull(raw) {
		if err := json.Unmarshal(raw, &p.Mapping); err != nil {
			return errorf(kindInvalidRequest, "mapping", "mapping must be an object of source element id → target element id (strings)")
		}
	}
	if q.Operation == runtime.BatchModify {
		m := modifyRequest{}
		m.setMembers(q.members)
		if err := m.Validate(); err != nil {
			return err
		}
		p.Instructions = m.Instructions
	}
	if q.Operation == runtime.BatchSetVariables {
		v := setVariablesRequest{}
		v.setMembers(q.members)
		if err := v.Validate(); err != nil {
			return err
		}
		p.Variables = v.Variables
	}
	q.DryRun, err = boolField(q.members, "dryRun")
	return err
}

// batchFilter reads a batch's filter object into list query parameters:
// each member a string, number or boolean, or (var) an array of them.
func batchFilter(raw json.RawMessage) (url.Values, error) {
	out := url.Values{}
	if isNull(raw) {
		return out, nil
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(raw, &members); err != nil {
		return nil, errorf(kindInvalidRequest, "filter", "filter must be an object of GET /api/v1/instances filter parameters")
	}
	for name, v := range members {
		if !slices.Contains(batchFilterParams, name) {
			return nil, errorf(kindInvalidRequest, "filter."+name, fmt.Sprintf("filter.%s is not a filter of the instance list; use %s",
				name, strings.Join(batchFilterParams, ", ")))
		}
		var list []json.RawMessage
		if json.Unmarshal(v, &list) != nil {
			list = []json.RawMessage{v}
		}
		for _, item := range list {
			var s string
			switch {
			case json.Unmarshal(item, &s) == nil:
			case len(item) > 0 && item[0] != '{' && item[0] != '[' && !isNull(item):
				s = string(item) // a number or boolean, as its JSON text
			default:
				return nil, errorf(kindInvalidRequest, "filter."+name, fmt.Sprintf("filter.%s must be a string, number or boolean (var: an array of name=value)", name))
			}
			out.Add(name, s)
		}
	}
	return out, nil
}

// createBatch handles POST /api/v1/batches (batchRequest):
//
//	{"operation": "cancel", "filter": {"processKey": "order", "var": ["region=\"north\""]}, "dryRun": true}
//
// A dry run answers 200 with the count; otherwise 201 with the batch,
// running in the background.
func (s *server) createBatch(w http.ResponseWriter, r *http.Request) error {
	var q batchRequest
	if err := s.decodeBody(w, r, &q); err != nil {
		return err
	}
	lr := r.Clone(r.Context())
	lr.URL.RawQuery = q.Filter.Encode()
	f, err := readInstanceFilter(lr)
	if err != nil {
		return prefixField(err, "filter")
	}
	perm := auth.PermOperate
	if q.Operation == runtime.BatchDelete {
		perm = auth.PermDelete
	}
	if ps := permPatterns(r, perm, auth.KindProcess); ps != nil {
		f.ProcessKeyPatterns = append(f.ProcessKeyPatterns, ps...)
	}
	q.Params.FilterQuery = q.Filter.Encode()
	req := runtime.BatchRequest{Operation: q.Operation, Params: q.Params, Filter: f}
	if q.DryRun {
		n, err := s.svc.CountBatch(r.Context(), req)
		if err != nil {
			return err
		}
		s.writeJSON(w, r, http.StatusOK, BatchCount{DryRun: true, Count: min(n, runtime.MaxListTotal), More: n > runtime.MaxListTotal})
		return nil
	}
	v, err := s.svc.CreateBatch(r.Context(), req)
	if err != nil {
		return err
	}
	noteResource(r, "batch "+v.ID)
	w.Header().Set("Location", "/api/v1/batches/"+url.PathEscape(v.ID))
	s.writeJSON(w, r, http.StatusCreated, toBatch(v))
	return nil
}

// listBatches handles GET /api/v1/batches: the caller's own batches (every
// batch for a caller without restrictions), newest first, paged by limit
// and offset.
func (s *server) listBatches(w http.ResponseWriter, r *http.Request) error {
	limit, err := queryInt(r, "limit", defaultInstanceLimit, 1, maxInstanceLimit)
	if err != nil {
		return err
	}
	offset, err := queryInt(r, "offset", 0, 0, math.MaxInt32)
	if err != nil {
		return err
	}
	f := runtime.BatchFilter{Limit: int(limit), Offset: int(offset)}
	if !seesEveryBatch(r) {
		f.CreatedBy = runtime.ActingUser(r.Context())
	}
	list, total, err := s.svc.Batches(r.Context(), f)
	if err != nil {
		return err
	}
	out := BatchPage{Items: make([]Batch, 0, len(list)), Total: total, Limit: f.Limit, Offset: f.Offset}
	for _, v := range list {
		out.Items = append(out.Items, toBatch(v))
	}
	s.writeJSON(w, r, http.StatusOK, out)
	return nil
}

// seesEveryBatch reports whether the caller sees every batch, not only
// their own.
func seesEveryBatch(r *http.Request) bool {
	c := callerFrom(r.Context())
	return c.Via == "none" || c.Unrestricted()
}

// ownBatch returns batch id when the caller may see it: theirs, or any
// for a caller without restrictions; another's reads as absent.
func (s *server) ownBatch(r *http.Request, id string) (runtime.BatchView, error) {
	v, err := s.svc.Batch(r.Context(), id)
	if err != nil {
		return v, err
	}
	if !seesEveryBatch(r) && v.CreatedBy != runtime.ActingUser(r.Context()) {
		return runtime.BatchView{}, runtime.Errorf(runtime.ENOTFOUND, "batch %s not found", id)
	}
	return v, nil
}

// getBatch handles GET /api/v1/batches/{id}.
func (s *server) getBatch(w http.ResponseWriter, r *http.Request) error {
	v, err := s.ownBatch(r, chi.URLParam(r, "id"))
	if err != nil {
		return err
	}
	s.writeJSON(w, r, http.StatusOK, toBatch(v))
	return nil
}

// batchItems handles GET /api/v1/batches/{id}/items: the items in order,
// status (pending, done or failed) to keep one outcome, limit and cursor
// (the nextCursor of the previous page).
func (s *server) batchItems(w http.ResponseWriter, r *http.Request) error {
	id := chi.URLParam(r, "id")
	if _, err := s.ownBatch(r, id); err != nil {
		return err
	}
	q := r.URL.Query()
	f := runtime.BatchItemFilter{Status: q.Get("status"), AfterSeq: -1}
	switch f.Status {
	case "", runtime.BatchItemPending, runtime.BatchItemDone, runtime.BatchItemFailed:
	default:
		return errorf(kindInvalidRequest, "status", fmt.Sprintf("status must be pending, done or failed, not %q", f.Status))
	}
	limit, err := queryInt(r, "limit", defaultInstanceLimit, 1, maxInstanceLimit)
	if err != nil {
		return err
	}
	f.Limit = int(limit)
	if c := q.Get("cursor"); c != "" {
		if f.AfterSeq, err = strconv.ParseInt(c, 10, 64); err != nil || f.AfterSeq < 0 {
			return errorf(kindInvalidRequest, "cursor", "cursor is not one this API returned as nextCursor")
		}
	}
	items, err := s.svc.BatchItems(r.Context(), id, f)
	if err != nil {
		return err
	}
	out := BatchItemPage{Items: make([]BatchOutcome, len(items))}
	for i, it := range items {
		out.Items[i] = BatchOutcome{Seq: it.Seq, InstanceID: string(it.InstanceID), Status: it.Status, Reason: it.Reason}
	}
	if len(items) == f.Limit {
		out.NextCursor = strconv.FormatInt(items[len(items)-1].Seq, 10)
	}
	s.writeJSON(w, r, http.StatusOK, out)
	return nil
}

// steerBatch handles POST /api/v1/batches/{id}/pause, /resume and /cancel
// with act.
func (s *server) steerBatch(act func(Batches, context.Context, string) (runtime.BatchView, error)) func(http.ResponseWriter, *http.Request) error {
	return func(w http.ResponseWriter, r *http.Request) error {
		id := chi.URLParam(r, "id")
		if _, err := s.ownBatch(r, id); err != nil {
			return err
		}
		v, err := act(s.svc, r.Context(), id)
		if err != nil {
			return err
		}
		s.writeJSON(w, r, http.StatusOK, toBatch(v))
		return nil
	}
}

func toBatch(v runtime.BatchView) Batch {
	b := Batch{ID: v.ID, Operation: v.Operation, Filter: echoFilter(v.Params.FilterQuery), Retries: v.Params.Retries,
		TargetVersion: v.Params.TargetVersion, Mapping: v.Params.Mapping, Variables: v.Params.Variables,
		State: v.State, CreatedBy: v.CreatedBy, CreatedAt: v.CreatedAt,
		Total: v.Total, Done: v.Done, Failed: v.Failed, Pending: v.Pending,
		Links: map[string]string{"items": "/api/v1/batches/" + url.PathEscape(v.ID) + "/items"}}
	for _, m := range v.Params.Instructions {
		if raw, err := json.Marshal(toModificationDTO(m)); err == nil {
			b.Instructions = append(b.Instructions, raw)
		}
	}
	if !v.FinishedAt.IsZero() {
		at := v.FinishedAt
		b.FinishedAt = &at
	}
	return b
}

// toModificationDTO is an instruction in the form POST …/modify takes.
func toModificationDTO(m runtime.Modification) map[string]any {
	out := map[string]any{}
	if c := m.Cancel; c != nil {
		out["cancel"] = omitEmpty(map[string]any{"trackId": c.TrackID, "scopeId": c.ScopeID, "nodeId": c.NodeID})
	}
	if a := m.Activate; a != nil {
		act := omitEmpty(map[string]any{"nodeId": a.NodeID, "scopeId": a.ScopeID})
		if len(a.Variables) > 0 {
			act["variables"] = a.Variables
		}
		out["activate"] = act
	}
	return out
}

// omitEmpty drops the empty strings of m.
func omitEmpty(m map[string]any) map[string]any {
	for k, v := range m {
		if v == "" {
			delete(m, k)
		}
	}
	return m
}

// echoFilter is a batch's filter as it was given (BatchParams.FilterQuery).
func echoFilter(query string) map[string][]string {
	q, err := url.ParseQuery(query)
	if err != nil || q == nil {
		return map[string][]string{}
	}
	return q
}
