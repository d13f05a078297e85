package camunda8

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/gobpm/gobpm/internal/runtime"
)

// maxAwaitMs bounds an awaited start's requestTimeout.
const maxAwaitMs = int64(5 * time.Minute / time.Millisecond)

// defaultAwait is how long an awaited start waits without requestTimeout.
const defaultAwait = 20 * time.Second

// createInstanceRequest is POST /v2/process-instances' body.
type createInstanceRequest struct {
	ProcessDefinitionID      string          `json:"processDefinitionId"`
	ProcessDefinitionVersion *json.Number    `json:"processDefinitionVersion"`
	ProcessDefinitionKey     json.RawMessage `json:"processDefinitionKey"`
	Variables                json.RawMessage `json:"variables"`
	TenantID                 string          `json:"tenantId"`
	StartInstructions        []any           `json:"startInstructions"`
	AwaitCompletion          bool            `json:"awaitCompletion"`
	FetchVariables           []string        `json:"fetchVariables"`
	RequestTimeout           *json.Number    `json:"requestTimeout"`
}

// CreatedInstance is a started instance (Camunda 8's
// CreateProcessInstanceResult).
type CreatedInstance struct {
	ProcessDefinitionID      string         `json:"processDefinitionId"`
	ProcessDefinitionVersion int            `json:"processDefinitionVersion"`
	TenantID                 string         `json:"tenantId"`
	Variables                map[string]any `json:"variables"`
	ProcessDefinitionKey     string         `json:"processDefinitionKey"`
	ProcessInstanceKey       string         `json:"processInstanceKey"`
}

// createInstance handles POST /v2/process-instances: by
// processDefinitionKey, or by processDefinitionId and
// processDefinitionVersion (-1 or absent: the latest); with
// awaitCompletion it answers when the instance completed, with its
// variables (fetchVariables), or 504 after requestTimeout.
func (h *handler) createInstance(w http.ResponseWriter, r *http.Request) error {
	var req createInstanceRequest
	if err := h.readBody(r, &req); err != nil {
		return err
	}
	key, err := keyOf(req.ProcessDefinitionKey, "processDefinitionKey")
	if err != nil {
		return err
	}
	if key != 0 && req.ProcessDefinitionID != "" {
		return invalid("Expected at most one of processDefinitionId and processDefinitionKey, got both.")
	}
	if key == 0 && req.ProcessDefinitionID == "" {
		return invalid("At least one of [processDefinitionId, processDefinitionKey] is required.")
	}
	if req.TenantID != "" {
		if err := checkTenants([]string{req.TenantID}); err != nil {
			return err
		}
	}
	if len(req.StartInstructions) > 0 {
		return invalid("startInstructions are not supported by gobpm: the instance starts at its none start event")
	}
	version := -1
	if req.ProcessDefinitionVersion != nil {
		v, _, err := whole(req.ProcessDefinitionVersion, "processDefinitionVersion", -1, 1<<31-1)
		if err != nil {
			return err
		}
		version = int(v)
	}
	vars, err := variables(req.Variables, "variables")
	if err != nil {
		return err
	}
	var await *runtime.C8Await
	if req.AwaitCompletion {
		await = &runtime.C8Await{Timeout: defaultAwait, FetchVariables: req.FetchVariables}
		if d, ok, err := millis(req.RequestTimeout, "requestTimeout", 0, maxAwaitMs); err != nil {
			return err
		} else if ok && d > 0 {
			await.Timeout = d
		}
	}
	p, err := h.svc.ResolveC8Process(r.Context(), req.ProcessDefinitionID, version, key)
	if err != nil {
		return err
	}
	if !h.mayStart(r, p.ProcessID) {
		if !h.mayRead(r, p.ProcessID) {
			return notFound(fmt.Sprintf("no process definition found with process definition id '%s'", p.ProcessID))
		}
		return NewProblem(http.StatusForbidden, TitleForbidden, fmt.Sprintf("the caller may not start instances of process '%s'", p.ProcessID))
	}
	inst, err := h.svc.StartC8Instance(r.Context(), p, vars, await)
	if err != nil {
		return err
	}
	out := CreatedInstance{ProcessDefinitionID: p.ProcessID, ProcessDefinitionVersion: p.Version, TenantID: DefaultTenant,
		Variables: inst.Variables, ProcessDefinitionKey: keyString(p.Key), ProcessInstanceKey: keyString(inst.Key)}
	if out.Variables == nil {
		out.Variables = map[string]any{}
	}
	return writeJSON(w, http.StatusOK, out)
}

// instanceOf resolves the path's process instance key to an instance the
// caller may read (one they may not is unknown) and its process key.
func (h *handler) instanceOf(r *http.Request) (runtime.InstanceID, string, error) {
	key, err := pathKey(r, "processInstanceKey")
	if err != nil {
		return "", "", err
	}
	gone := notFound(fmt.Sprintf("Process instance with key '%d' not found", key))
	id, err := h.svc.ByNumericKey(r.Context(), runtime.KeyInstance, key)
	if runtime.ErrorCode(err) == runtime.ENOTFOUND {
		return "", "", gone
	}
	if err != nil {
		return "", "", err
	}
	pk, err := h.svc.InstanceProcessKey(r.Context(), runtime.InstanceID(id))
	if runtime.ErrorCode(err) == runtime.ENOTFOUND || (err == nil && !h.mayRead(r, pk)) {
		return "", "", gone
	}
	return runtime.InstanceID(id), pk, err
}

// cancelInstance handles POST /v2/process-instances/{key}/cancellation.
func (h *handler) cancelInstance(w http.ResponseWriter, r *http.Request) error {
	id, pk, err := h.instanceOf(r)
	if err != nil {
		return err
	}
	if !h.mayOperate(r, pk) {
		return NewProblem(http.StatusForbidden, TitleForbidden, fmt.Sprintf("the caller may not operate instances of process '%s'", pk))
	}
	if _, err := h.svc.Cancel(r.Context(), id); err != nil {
		if runtime.ErrorCode(err) == runtime.ECONFLICT {
			// Camunda 8 no longer knows an ended instance.
			return notFound(fmt.Sprintf("Process instance with key '%s' not found: it has ended", chi.URLParam(r, "processInstanceKey")))
		}
		return err
	}
	return noContent(w)
}

// searchPage is the page of a search request.
type searchPage struct {
	From  *json.Number `json:"from"`
	Limit *json.Number `json:"limit"`
	// SearchAfter and SearchBefore are cursors: gobpm pages by from.
	After  string `json:"after"`
	Before string `json:"before"`
}

// PageResponse is a search answer's page.
type PageResponse struct {
	TotalItems        int64   `json:"totalItems"`
	HasMoreTotalItems bool    `json:"hasMoreTotalItems"`
	StartCursor       *string `json:"startCursor,omitempty"`
	EndCursor         *string `json:"endCursor,omitempty"`
}

// pageOf reads a page: from (default 0) and limit (1..1000, default 100).
func pageOf(p *searchPage) (from, limit int, err error) {
	limit = 100
	if p == nil {
		return 0, limit, nil
	}
	if p.After != "" || p.Before != "" {
		return 0, 0, invalid("page.after and page.before are not supported by gobpm: page with from and limit")
	}
	f, _, err := whole(p.From, "page.from", 0, 1<<31-1)
	if err != nil {
		return 0, 0, err
	}
	l, ok, err := whole(p.Limit, "page.limit", 1, 1000)
	if err != nil {
		return 0, 0, err
	}
	if ok {
		limit = int(l)
	}
	return int(f), limit, nil
}

// ProcessInstance is an instance as the search answers it (Camunda 8's
// ProcessInstanceResult).
type ProcessInstance struct {
	ProcessDefinitionID      string  `json:"processDefinitionId"`
	ProcessDefinitionName    string  `json:"processDefinitionName"`
	ProcessDefinitionVersion int     `json:"processDefinitionVersion"`
	StartDate                string  `json:"startDate"`
	EndDate                  *string `json:"endDate,omitempty"`
	State                    string  `json:"state"`
	HasIncident              bool    `json:"hasIncident"`
	TenantID                 string  `json:"tenantId"`
	ProcessInstanceKey       string  `json:"processInstanceKey"`
	ProcessDefinitionKey     string  `json:"processDefinitionKey"`
	ParentProcessInstanceKey *string `json:"parentProcessInstanceKey,omitempty"`
	ParentElementInstanceKey *string `json:"parentElementInstanceKey,omitempty"`
}

// instanceState is Camunda 8's state of an instance status.
func instanceState(status string) string {
	switch status {
	case runtime.StatusCompleted:
		return "COMPLETED"
	case runtime.StatusTerminated:
		return "TERMINATED"
	}
	return "ACTIVE"
}

// statusesOf are the gobpm statuses a Camunda 8 state filter selects.
func statusesOf(state string) ([]string, error) {
	switch state {
	case "":
		return []string{""}, nil
	case "ACTIVE":
		return []string{runtime.StatusRunning, runtime.StatusFailed}, nil
	case "COMPLETED":
		return []string{runtime.StatusCompleted}, nil
	case "TERMINATED":
		return []string{runtime.StatusTerminated}, nil
	}
	return nil, invalid(fmt.Sprintf("filter.state must be ACTIVE, COMPLETED or TERMINATED, not '%s'", state))
}

// maxSearchScan bounds the instances one search reads.
const maxSearchScan = 1000

// searchInstances handles POST /v2/process-instances/search: filters
// processDefinitionId, processDefinitionVersion, processInstanceKey,
// state, hasIncident, parentProcessInstanceKey (exact values); newest
// first; paging from and limit. Only instances of processes the caller may
// read.
func (h *handler) searchInstances(w http.ResponseWriter, r *http.Request) error {
	var req struct {
		Filter struct {
			ProcessDefinitionID      string          `json:"processDefinitionId"`
			ProcessDefinitionVersion *json.Number    `json:"processDefinitionVersion"`
			ProcessInstanceKey       json.RawMessage `json:"processInstanceKey"`
			ParentProcessInstanceKey json.RawMessage `json:"parentProcessInstanceKey"`
			State                    string          `json:"state"`
			HasIncident              *bool           `json:"hasIncident"`
		} `json:"filter"`
		Page *searchPage `json:"page"`
	}
	if err := h.readBody(r, &req); err != nil {
		return err
	}
	from, limit, err := pageOf(req.Page)
	if err != nil {
		return err
	}
	statuses, err := statusesOf(req.Filter.State)
	if err != nil {
		return err
	}
	if req.Filter.HasIncident != nil {
		want := runtime.StatusFailed
		if !*req.Filter.HasIncident {
			statuses = slices.DeleteFunc(statuses, func(s string) bool { return s == runtime.StatusFailed })
			if len(statuses) == 1 && statuses[0] == "" {
				statuses = []string{runtime.StatusRunning, runtime.StatusCompleted, runtime.StatusTerminated}
			}
		} else if slices.Contains(statuses, want) || statuses[0] == "" {
			statuses = []string{want}
		} else {
			statuses = nil
		}
	}
	instKey, err := keyOf(req.Filter.ProcessInstanceKey, "filter.processInstanceKey")
	if err != nil {
		return err
	}
	parentKey, err := keyOf(req.Filter.ParentProcessInstanceKey, "filter.parentProcessInstanceKey")
	if err != nil {
		return err
	}
	version := 0
	if v, _, err := whole(req.Filter.ProcessDefinitionVersion, "filter.processDefinitionVersion", 1, 1<<31-1); err != nil {
		return err
	} else {
		version = int(v)
	}
	var rows []runtime.InstanceRow
	if instKey != 0 {
		id, err := h.svc.ByNumericKey(r.Context(), runtime.KeyInstance, instKey)
		if err != nil && runtime.ErrorCode(err) != runtime.ENOTFOUND {
			return err
		}
		if id != "" {
			found, err := h.svc.InstanceRows(r.Context(), []runtime.InstanceID{runtime.InstanceID(id)})
			if err != nil {
				return err
			}
			if row, ok := found[runtime.InstanceID(id)]; ok {
				rows = append(rows, row)
			}
		}
	} else {
		var parent runtime.InstanceID
		if parentKey != 0 {
			id, err := h.svc.ByNumericKey(r.Context(), runtime.KeyInstance, parentKey)
			if err != nil && runtime.ErrorCode(err) != runtime.ENOTFOUND {
				return err
			}
			if id == "" {
				statuses = nil
			}
			parent = runtime.InstanceID(id)
		}
		for _, status := range statuses {
			page, _, err := h.svc.ListInstances(r.Context(), runtime.InstanceFilter{ProcessKey: req.Filter.ProcessDefinitionID,
				ProcessVersion: version, Status: status, ParentID: parent, Limit: maxSearchScan})
			if err != nil {
				return err
			}
			rows = append(rows, page...)
		}
	}
	rows = slices.DeleteFunc(rows, func(row runtime.InstanceRow) bool {
		return !h.mayRead(r, row.ProcessKey) || (version != 0 && row.ProcessVersion != version) ||
			(req.Filter.ProcessDefinitionID != "" && row.ProcessKey != req.Filter.ProcessDefinitionID) ||
			!statusMatches(row.Status, statuses)
	})
	slices.SortStableFunc(rows, func(a, b runtime.InstanceRow) int { return b.CreatedAt.Compare(a.CreatedAt) })
	total := len(rows)
	if from > len(rows) {
		from = len(rows)
	}
	rows = rows[from:min(len(rows), from+limit)]
	items, err := h.toInstances(r, rows)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, struct {
		Items []ProcessInstance `json:"items"`
		Page  PageResponse      `json:"page"`
	}{Items: items, Page: PageResponse{TotalItems: int64(total), HasMoreTotalItems: total >= maxSearchScan}})
}

// statusMatches reports whether status is among statuses ("" matches all).
func statusMatches(status string, statuses []string) bool {
	return slices.Contains(statuses, "") || slices.Contains(statuses, status)
}

// toInstances maps instance rows to the search's items, with their keys
// looked up in one call per kind.
func (h *handler) toInstances(r *http.Request, rows []runtime.InstanceRow) ([]ProcessInstance, error) {
	ids := make([]string, 0, len(rows)*2)
	var procs []string
	for _, row := range rows {
		ids = append(ids, string(row.ID))
		if row.ParentID != "" {
			ids = append(ids, string(row.ParentID))
		}
		procs = append(procs, runtime.ProcessVersionID(row.ProcessKey, row.ProcessVersion))
	}
	instKeys, err := h.svc.NumericKeys(r.Context(), runtime.KeyInstance, ids)
	if err != nil {
		return nil, err
	}
	procKeys, err := h.svc.NumericKeys(r.Context(), runtime.KeyProcessVersion, procs)
	if err != nil {
		return nil, err
	}
	out := make([]ProcessInstance, 0, len(rows))
	for i, row := range rows {
		k, ok := instKeys[string(row.ID)]
		if !ok {
			continue // deleted meanwhile
		}
		p := ProcessInstance{ProcessDefinitionID: row.ProcessKey, ProcessDefinitionName: row.ProcessKey, ProcessDefinitionVersion: row.ProcessVersion,
			StartDate: timeString(row.CreatedAt), EndDate: optTime(row.EndedAt), State: instanceState(row.Status),
			HasIncident: row.Status == runtime.StatusFailed, TenantID: DefaultTenant, ProcessInstanceKey: keyString(k),
			ProcessDefinitionKey: keyString(procKeys[procs[i]])}
		if pk, ok := instKeys[string(row.ParentID)]; ok && row.ParentID != "" {
			s := keyString(pk)
			p.ParentProcessInstanceKey = &s
			p.ParentElementInstanceKey = &s
		}
		out = append(out, p)
	}
	return out, nil
}

// setVariables handles PUT /v2/element-instances/{elementInstanceKey}/variables
// {variables, local}: gobpm keeps numeric keys per process instance only,
// so the element instance key it takes is a process instance key (what
// activated jobs answer as elementInstanceKey); the variables go to the
// instance's root scope. Needs operate on the instance's process.
func (h *handler) setVariables(w http.ResponseWriter, r *http.Request) error {
	key, err := pathKey(r, "elementInstanceKey")
	if err != nil {
		return err
	}
	var req struct {
		Variables json.RawMessage `json:"variables"`
		Local     bool            `json:"local"`
	}
	if err := h.readBody(r, &req); err != nil {
		return err
	}
	vars, err := variables(req.Variables, "variables")
	if err != nil {
		return err
	}
	if vars == nil {
		return invalid("No variables provided.")
	}
	gone := notFound(fmt.Sprintf("Element instance with key '%d' not found: gobpm takes process instance keys here", key))
	id, err := h.svc.ByNumericKey(r.Context(), runtime.KeyInstance, key)
	if runtime.ErrorCode(err) == runtime.ENOTFOUND {
		return gone
	}
	if err != nil {
		return err
	}
	pk, err := h.svc.InstanceProcessKey(r.Context(), runtime.InstanceID(id))
	if runtime.ErrorCode(err) == runtime.ENOTFOUND || (err == nil && !h.mayRead(r, pk)) {
		return gone
	}
	if err != nil {
		return err
	}
	if !h.mayOperate(r, pk) {
		return NewProblem(http.StatusForbidden, TitleForbidden, fmt.Sprintf("the caller may not operate instances of process '%s'", pk))
	}
	if _, err := h.svc.SetC8Variables(r.Context(), key, vars, req.Local); err != nil {
		if runtime.ErrorCode(err) == runtime.ECONFLICT {
			return notFound(fmt.Sprintf("Element instance with key '%d' not found: its instance has ended", key))
		}
		return err
	}
	return noContent(w)
}
