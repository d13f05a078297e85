package cockpit

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/gobpm/gobpm/internal/auth"
	"github.com/gobpm/gobpm/internal/runtime"
	"github.com/gobpm/gobpm/web/templates"
)

// Batch operations: the instance list's filter leads to a page that counts
// the instances it matches (a dry run) and starts a batch over them; the
// batch pages show its progress and steer it. A batch acts with its
// creator's rights: its filter is narrowed to the processes the person may
// read and operate on (delete: delete), as the JSON API's is, and only its
// creator (or a person without restrictions) sees and steers it.

// batchItemsShown is how many items a batch's page shows.
const batchItemsShown = 100

// seesEveryBatch reports whether the person sees every batch, not only
// their own.
func (h *handler) seesEveryBatch(r *http.Request) bool {
	return !h.authOn() || h.caller(r).Unrestricted()
}

// batchRequest builds the request of a batch over the list filter in
// query, narrowed to what the person may do for op; problem is a sentence
// for a filter the list refuses.
func (h *handler) batchRequest(r *http.Request, query, op string) (runtime.BatchRequest, string) {
	lr := r.Clone(r.Context())
	lr.URL.RawQuery = query
	_, f, problem := h.listFilter(lr)
	if problem != "" {
		return runtime.BatchRequest{}, problem
	}
	perm := auth.PermOperate
	if op == runtime.BatchDelete {
		perm = auth.PermDelete
	}
	if ps := h.permPatterns(r, perm); ps != nil {
		f.ProcessKeyPatterns = append(f.ProcessKeyPatterns, ps...)
	}
	return runtime.BatchRequest{Operation: op, Filter: f, Params: runtime.BatchParams{FilterQuery: query}}, ""
}

// listQuery is the instance list's filter of a query: its page left out.
func listQuery(q url.Values) string {
	out := url.Values{}
	for k, vs := range q {
		if k != "page" {
			out[k] = vs
		}
	}
	return out.Encode()
}

// batchNew shows how many instances the list's filter matches and the
// form that starts a batch over them.
func (h *handler) batchNew(w http.ResponseWriter, r *http.Request) {
	query := listQuery(r.URL.Query())
	req, problem := h.batchRequest(r, query, runtime.BatchCancel)
	if problem != "" {
		h.fail(w, r, http.StatusBadRequest, problem)
		return
	}
	n, err := h.svc.CountBatch(r.Context(), req)
	if err != nil {
		h.failErr(w, r, err)
		return
	}
	list := templates.RouteInstances
	if query != "" {
		list += "?" + query
	}
	h.render(w, r, http.StatusOK, templates.BatchNew(templates.BatchNewPage{
		Layout: h.layout(w, r, "New batch", templates.NavInstances), Query: query, ListURL: list, Count: listTotal(n),
		Operation: runtime.BatchCancel, Retries: "1"}))
}

// createBatch starts a batch from the form of batchNew.
func (h *handler) createBatch(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		h.fail(w, r, http.StatusBadRequest, "The form could not be read.")
		return
	}
	query := r.PostFormValue("query")
	back := templates.RouteBatchNew
	if query != "" {
		back += "?" + query
	}
	req, problem := h.batchRequest(r, query, r.PostFormValue("operation"))
	if problem != "" {
		h.done(w, r, back, "error", problem)
		return
	}
	switch req.Operation {
	case runtime.BatchRetryIncidents:
		n, err := strconv.Atoi(strings.TrimSpace(r.PostFormValue("retries")))
		if err != nil || n < 1 {
			h.done(w, r, back, "error", "Retries must be a whole number of at least 1.")
			return
		}
		req.Params.Retries = n
	case runtime.BatchSetVariables:
		if err := json.Unmarshal([]byte(r.PostFormValue("variables")), &req.Params.Variables); err != nil || len(req.Params.Variables) == 0 {
			h.done(w, r, back, "error", `The variables must be a JSON object with at least one variable, such as {"approved": true}.`)
			return
		}
	}
	v, err := h.svc.CreateBatch(r.Context(), req)
	if err != nil {
		h.actFailed(w, r, back, err)
		return
	}
	h.done(w, r, templates.BatchURL(v.ID), "ok", fmt.Sprintf("Batch %s started on %d instances.", v.Operation, v.Total))
}

// batches lists the person's batches (every batch for a person without
// restrictions), newest first.
func (h *handler) batches(w http.ResponseWriter, r *http.Request) {
	f := runtime.BatchFilter{Limit: pageSize}
	if !h.seesEveryBatch(r) {
		f.CreatedBy = runtime.ActingUser(r.Context())
	}
	list, _, err := h.svc.Batches(r.Context(), f)
	if err != nil {
		h.failErr(w, r, err)
		return
	}
	p := templates.BatchesPage{Layout: h.layout(w, r, "Batch operations", templates.NavInstances)}
	for _, v := range list {
		p.Rows = append(p.Rows, batchRow(v))
	}
	h.render(w, r, http.StatusOK, templates.Batches(p))
}

// ownBatch returns batch id when the person may see it; another's reads
// as absent.
func (h *handler) ownBatch(r *http.Request, id string) (runtime.BatchView, error) {
	v, err := h.svc.Batch(r.Context(), id)
	if err != nil {
		return v, err
	}
	if !h.seesEveryBatch(r) && v.CreatedBy != runtime.ActingUser(r.Context()) {
		return runtime.BatchView{}, runtime.Errorf(runtime.ENOTFOUND, "batch %s not found", id)
	}
	return v, nil
}

// batch shows a batch's progress and its first items; the page refreshes
// its live part while the batch runs.
func (h *handler) batch(w http.ResponseWriter, r *http.Request) {
	v, err := h.ownBatch(r, chi.URLParam(r, "id"))
	if err != nil {
		h.failErr(w, r, err)
		return
	}
	items, err := h.svc.BatchItems(r.Context(), v.ID, runtime.BatchItemFilter{AfterSeq: -1, Limit: batchItemsShown + 1})
	if err != nil {
		h.failErr(w, r, err)
		return
	}
	p := templates.BatchPage{Layout: h.layout(w, r, "Batch "+v.Operation, templates.NavInstances), Batch: batchRow(v),
		CanSteer: h.mayAny(r, auth.PermOperate, auth.KindProcess)}
	if len(items) > batchItemsShown {
		items, p.MoreItems = items[:batchItemsShown], true
	}
	for _, it := range items {
		p.Items = append(p.Items, templates.BatchItemRow{InstanceID: string(it.InstanceID), Status: it.Status, Reason: it.Reason})
	}
	h.render(w, r, http.StatusOK, templates.Batch(p))
}

// steerBatch pauses, resumes or cancels a batch with act and returns to
// its page.
func (h *handler) steerBatch(act func(*handler, *http.Request, string) (runtime.BatchView, error), verb string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		id := chi.URLParam(r, "id")
		if _, err := h.ownBatch(r, id); err != nil {
			h.failErr(w, r, err)
			return
		}
		if _, err := act(h, r, id); err != nil {
			h.actFailed(w, r, templates.BatchURL(id), err)
			return
		}
		h.done(w, r, templates.BatchURL(id), "ok", "Batch "+verb+".")
	}
}

func pauseBatch(h *handler, r *http.Request, id string) (runtime.BatchView, error) {
	return h.svc.PauseBatch(r.Context(), id)
}

func resumeBatch(h *handler, r *http.Request, id string) (runtime.BatchView, error) {
	return h.svc.ResumeBatch(r.Context(), id)
}

func cancelBatch(h *handler, r *http.Request, id string) (runtime.BatchView, error) {
	return h.svc.CancelBatch(r.Context(), id)
}

// filterText is a list query for people: name=value pairs, sorted.
func filterText(query string) string {
	q, err := url.ParseQuery(query)
	if err != nil {
		return query
	}
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(q)) {
		for _, v := range q[k] {
			parts = append(parts, k+"="+v)
		}
	}
	return strings.Join(parts, " ")
}

func batchRow(v runtime.BatchView) templates.BatchRow {
	return templates.BatchRow{ID: v.ID, Operation: v.Operation, Filter: v.Params.FilterQuery, FilterText: filterText(v.Params.FilterQuery), State: v.State,
		CreatedBy: v.CreatedBy, CreatedAt: v.CreatedAt, FinishedAt: v.FinishedAt,
		Total: v.Total, Done: v.Done, Failed: v.Failed, Pending: v.Pending}
}
