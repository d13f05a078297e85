package api

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/url"

	"github.com/go-chi/chi/v5"

	"github.com/gobpm/gobpm/internal/auth"
	"github.com/gobpm/gobpm/internal/runtime"
)

// Paging bounds.
const (
	defaultInstanceLimit = 50
	maxInstanceLimit     = 500
	defaultHistoryLimit  = 1000
	maxHistoryLimit      = 10000
)

// startRequest is the body of POST /api/v1/processes/{key}/instances:
// {variables?, businessKey?, version?, requestId?}.
type startRequest struct {
	bodyMembers
	Variables   map[string]any
	BusinessKey string
	// Version is 0 (the latest) when the body has none.
	Version int
	// RequestID is the body's idempotency key (idempotent).
	RequestID string
}

// Validate decodes and checks variables, businessKey, version and
// requestId, in that order.
func (q *startRequest) Validate() error {
	var err error
	if q.Variables, err = objectField(q.members, "variables"); err != nil {
		return err
	}
	if q.BusinessKey, err = stringField(q.members, "businessKey"); err != nil {
		return err
	}
	if q.Version, err = positiveIntField(q.members, "version"); err != nil {
		return err
	}
	q.RequestID, err = stringField(q.members, "requestId")
	return err
}

// startInstance handles POST /api/v1/processes/{key}/instances
// (startRequest); an empty body starts the latest version with no
// variables. The answer is the instance after its first step.
func (s *server) startInstance(w http.ResponseWriter, r *http.Request) error {
	var q startRequest
	if err := s.decodeBody(w, r, &q); err != nil {
		return err
	}
	ctx, err := idempotent(r, q.RequestID)
	if err != nil {
		return err
	}
	req := runtime.StartRequest{ProcessKey: chi.URLParam(r, "key"), Variables: q.Variables, BusinessKey: q.BusinessKey, Version: q.Version}
	view, err := s.svc.StartInstance(ctx, req)
	if err != nil {
		return err
	}
	if view.Replayed {
		w.Header().Set(HeaderIdempotentReplayed, "true")
	}
	noteResource(r, "instance "+string(view.ID))
	w.Header().Set("Location", "/api/v1/instances/"+url.PathEscape(string(view.ID)))
	return s.writeInstance(w, r, http.StatusCreated, view)
}

// instanceStatuses are the values the status filter accepts.
var instanceStatuses = map[string]bool{
	runtime.StatusRunning: true, runtime.StatusCompleted: true, runtime.StatusTerminated: true, runtime.StatusFailed: true,
}

// readInstanceFilter reads the filters of GET /api/v1/instances (not its
// paging): processKey, version, status, businessKey, parentId, number and
// readListFilters', narrowed to the processes the caller may read. POST
// /api/v1/batches reads its filter with it too.
func readInstanceFilter(r *http.Request) (runtime.InstanceFilter, error) {
	q := r.URL.Query()
	f := runtime.InstanceFilter{
		ProcessKey:  q.Get("processKey"),
		Status:      q.Get("status"),
		BusinessKey: q.Get("businessKey"),
		ParentID:    runtime.InstanceID(q.Get("parentId")),
	}
	if f.Status != "" && !instanceStatuses[f.Status] {
		return f, errorf(kindInvalidRequest, "status", fmt.Sprintf("status must be running, completed, terminated or failed, not %q", f.Status))
	}
	f.ProcessKeyPatterns = readPatterns(r, auth.KindProcess)
	version, err := queryInt(r, "version", 0, 1, math.MaxInt32)
	if err != nil {
		return f, err
	}
	f.ProcessVersion = int(version)
	if err := readListFilters(r, &f); err != nil {
		return f, err
	}
	if f.Number, err = queryInt(r, "number", 0, 1, math.MaxInt64); err != nil {
		return f, err
	}
	return f, nil
}

// listInstances handles GET /api/v1/instances with filters and paging: by
// offset, or by keyset with cursor (the nextCursor of the previous page),
// which costs the same on every page and neither skips nor repeats
// instances created meanwhile.
func (s *server) listInstances(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	f, err := readInstanceFilter(r)
	if err != nil {
		return err
	}
	limit, err := queryInt(r, "limit", defaultInstanceLimit, 1, maxInstanceLimit)
	if err != nil {
		return err
	}
	offset, err := queryInt(r, "offset", 0, 0, math.MaxInt32)
	if err != nil {
		return err
	}
	f.Limit, f.Offset = int(limit), int(offset)
	if c := q.Get("cursor"); c != "" {
		if f.After, err = decodeCursor(c); err != nil {
			return err
		}
	}

	rows, total, err := s.svc.ListInstances(r.Context(), f)
	if f.After != "" && errors.Is(err, runtime.ErrNotFound) {
		return errorf(kindInvalidRequest, "cursor", "cursor does not name a listed instance")
	}
	if err != nil {
		return err
	}
	readable, err := s.instanceReadable(r)
	if err != nil {
		return err
	}
	out := InstancePage{Items: make([]InstanceSummary, 0, len(rows)), Total: total, Limit: f.Limit, Offset: f.Offset}
	for _, row := range rows {
		if row.ParentID != "" {
			if ok, err := readable(row.ParentID); err != nil {
				return err
			} else if !ok {
				row.ParentID, row.ParentNodeID = "", ""
			}
		}
		out.Items = append(out.Items, toSummary(row))
	}
	if err := s.markIncidents(r, out.Items); err != nil {
		return err
	}
	if len(rows) == f.Limit {
		out.NextCursor = encodeCursor(rows[len(rows)-1].ID)
	}
	s.writeJSON(w, r, http.StatusOK, out)
	return nil
}

// encodeCursor makes the opaque cursor of the page after the instance id.
func encodeCursor(id runtime.InstanceID) string {
	return base64.RawURLEncoding.EncodeToString([]byte(id))
}

// decodeCursor reads a cursor made by encodeCursor.
func decodeCursor(c string) (runtime.InstanceID, error) {
	b, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil || len(b) == 0 {
		return "", errorf(kindInvalidRequest, "cursor", "cursor is not one this API returned as nextCursor")
	}
	return runtime.InstanceID(b), nil
}

// getInstance handles GET /api/v1/instances/{id}.
func (s *server) getInstance(w http.ResponseWriter, r *http.Request) error {
	view, err := s.svc.Instance(r.Context(), runtime.InstanceID(chi.URLParam(r, "id")))
	if err != nil {
		return err
	}
	return s.writeInstance(w, r, http.StatusOK, view)
}

// Page sizes of an instance's scopes and tracks.
const (
	defaultPartLimit = runtime.ViewLimit
	maxPartLimit     = runtime.MaxPageLimit
)

// listScopes handles GET /api/v1/instances/{id}/scopes?cursor=&limit=: the
// open scopes in creation order, a page at a time (a page costs its size,
// however many scopes the instance has).
func (s *server) listScopes(w http.ResponseWriter, r *http.Request) error {
	return writeInstancePage(s, w, r, s.svc.InstanceScopes, toScope)
}

// listTracks handles GET /api/v1/instances/{id}/tracks?cursor=&limit=: the
// live tracks in creation order, a page at a time.
func (s *server) listTracks(w http.ResponseWriter, r *http.Request) error {
	return writeInstancePage(s, w, r, s.svc.InstanceTracks, toTrack)
}

// writeInstancePage answers a request for a page of an instance's V (read
// by fetch after the query's cursor, at most its limit) as a Page of D.
func writeInstancePage[V, D any](s *server, w http.ResponseWriter, r *http.Request,
	fetch func(ctx context.Context, id runtime.InstanceID, after string, limit int) ([]V, string, error), conv func(V) D) error {
	limit, err := queryInt(r, "limit", defaultPartLimit, 1, maxPartLimit)
	if err != nil {
		return err
	}
	items, next, err := fetch(r.Context(), runtime.InstanceID(chi.URLParam(r, "id")), r.URL.Query().Get("cursor"), int(limit))
	if err != nil {
		return err
	}
	out := Page[D]{Items: make([]D, 0, len(items)), NextCursor: next}
	for _, it := range items {
		out.Items = append(out.Items, conv(it))
	}
	s.writeJSON(w, r, http.StatusOK, out)
	return nil
}

// history handles GET /api/v1/instances/{id}/history?after=&limit=: facts
// with seq > after, in order. Page by passing the last seq as after.
func (s *server) history(w http.ResponseWriter, r *http.Request) error {
	after, err := queryInt(r, "after", 0, 0, math.MaxInt64)
	if err != nil {
		return err
	}
	limit, err := queryInt(r, "limit", defaultHistoryLimit, 1, maxHistoryLimit)
	if err != nil {
		return err
	}
	facts, err := s.svc.History(r.Context(), runtime.InstanceID(chi.URLParam(r, "id")), after, int(limit))
	if err != nil {
		return err
	}
	out := List[Fact]{Items: make([]Fact, 0, len(facts))}
	for _, f := range facts {
		out.Items = append(out.Items, toFact(f))
	}
	s.writeJSON(w, r, http.StatusOK, out)
	return nil
}

// cancel handles POST /api/v1/instances/{id}/cancel. Cancelling an ended
// instance is a conflict (409).
func (s *server) cancel(w http.ResponseWriter, r *http.Request) error {
	view, err := s.svc.Cancel(r.Context(), runtime.InstanceID(chi.URLParam(r, "id")))
	if err != nil {
		return err
	}
	return s.writeInstance(w, r, http.StatusOK, view)
}

// listIncidents handles GET /api/v1/incidents?instanceId=&open=&limit=&cursor=.
// Without an instance it lists the open incidents of all instances;
// open=false (with an instance) includes resolved ones. Pages are oldest
// first, by cursor; a caller who may not read every process gets the
// readable ones of each page (a page may then be shorter than limit).
func (s *server) listIncidents(w http.ResponseWriter, r *http.Request) error {
	open, err := queryBool(r, "open", true)
	if err != nil {
		return err
	}
	limit, err := queryInt(r, "limit", int64(runtime.ViewLimit), 1, runtime.MaxPageLimit)
	if err != nil {
		return err
	}
	incs, next, err := s.svc.IncidentsPage(r.Context(), runtime.InstanceID(r.URL.Query().Get("instanceId")), open, r.URL.Query().Get("cursor"), int(limit))
	if err != nil {
		return err
	}
	readable, err := s.incidentFilter(r)
	if err != nil {
		return err
	}
	out := Page[Incident]{Items: make([]Incident, 0, len(incs)), NextCursor: next}
	for _, inc := range incs {
		if ok, err := readable(inc.InstanceID); err != nil {
			return err
		} else if ok {
			out.Items = append(out.Items, toIncident(inc))
		}
	}
	s.writeJSON(w, r, http.StatusOK, out)
	return nil
}

// setVariablesRequest is the body of POST
// /api/v1/instances/{id}/variables: {variables, scopeId?, local?}.
type setVariablesRequest struct {
	bodyMembers
	// Variables holds at least one variable.
	Variables map[string]any
	ScopeID   string
	Local     bool
}

// Validate decodes and checks variables (required, non-empty), scopeId
// and local, in that order.
func (q *setVariablesRequest) Validate() error {
	var err error
	if q.Variables, err = objectField(q.members, "variables"); err != nil {
		return err
	}
	if len(q.Variables) == 0 {
		return errorf(kindInvalidRequest, "variables", "variables is required: a JSON object with at least one variable")
	}
	if q.ScopeID, err = stringField(q.members, "scopeId"); err != nil {
		return err
	}
	q.Local, err = boolField(q.members, "local")
	return err
}

// setVariables handles POST /api/v1/instances/{id}/variables
// (setVariablesRequest): variables (a non-empty object) are written
// from the root scope or from scopeId by the write rule of docs/scopes.md#variables (an
// existing name is updated where it lives, a new one is created at the
// root), or with local into that scope itself. The answer is the instance.
// An unknown scope is 404.
func (s *server) setVariables(w http.ResponseWriter, r *http.Request) error {
	var q setVariablesRequest
	if err := s.decodeBody(w, r, &q); err != nil {
		return err
	}
	view, err := s.svc.SetVariables(r.Context(), runtime.InstanceID(chi.URLParam(r, "id")), q.ScopeID, q.Variables, q.Local)
	if err != nil {
		return err
	}
	return s.writeInstance(w, r, http.StatusOK, view)
}

// listWaits handles GET /api/v1/instances/{id}/waits?cursor=&limit=: what
// the instance waits for (jobs, user tasks, timers, message and signal
// subscriptions, conditions, called children), oldest first, a page at a
// time.
func (s *server) listWaits(w http.ResponseWriter, r *http.Request) error {
	return writeInstancePage(s, w, r, s.svc.Waits, toWait)
}
