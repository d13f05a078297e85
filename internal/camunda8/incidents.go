package camunda8

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"

	"github.com/gobpm/gobpm/internal/engine"
	"github.com/gobpm/gobpm/internal/runtime"
)

// Incident is an incident as the search answers it (Camunda 8's
// IncidentResult).
type Incident struct {
	ProcessDefinitionID  string `json:"processDefinitionId"`
	ErrorType            string `json:"errorType"`
	ErrorMessage         string `json:"errorMessage"`
	ElementID            string `json:"elementId"`
	CreationTime         string `json:"creationTime"`
	State                string `json:"state"`
	TenantID             string `json:"tenantId"`
	IncidentKey          string `json:"incidentKey"`
	ProcessDefinitionKey string `json:"processDefinitionKey,omitempty"`
	ProcessInstanceKey   string `json:"processInstanceKey"`
	ElementInstanceKey   string `json:"elementInstanceKey"`
}

// errorType is Camunda 8's error type of a gobpm incident kind.
func errorType(kind string) string {
	switch kind {
	case engine.IncidentJobFailed:
		return "JOB_NO_RETRIES"
	case engine.IncidentNoFlow:
		return "CONDITION_ERROR"
	case engine.IncidentExpression:
		return "EXTRACT_VALUE_ERROR"
	case engine.IncidentChildMissing:
		return "CALLED_ELEMENT_ERROR"
	case engine.IncidentUnhandled:
		return "UNHANDLED_ERROR_EVENT"
	case engine.IncidentDecision:
		return "DECISION_EVALUATION_ERROR"
	}
	return "UNKNOWN"
}

// maxIncidentSearch bounds the incidents one search reads.
const maxIncidentSearch = 1000

// searchIncidents handles POST /v2/incidents/search: the open incidents
// (state ACTIVE; gobpm lists no resolved ones here), filters
// processInstanceKey, processDefinitionId, elementId, errorType; oldest
// first; paging from and limit. Only incidents of processes the caller
// may read.
func (h *handler) searchIncidents(w http.ResponseWriter, r *http.Request) error {
	var req struct {
		Filter struct {
			ProcessInstanceKey  json.RawMessage `json:"processInstanceKey"`
			ProcessDefinitionID string          `json:"processDefinitionId"`
			ElementID           string          `json:"elementId"`
			ErrorType           string          `json:"errorType"`
			State               string          `json:"state"`
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
	var inst runtime.InstanceID
	none := req.Filter.State != "" && req.Filter.State != "ACTIVE"
	if k, err := keyOf(req.Filter.ProcessInstanceKey, "filter.processInstanceKey"); err != nil {
		return err
	} else if k != 0 {
		id, err := h.svc.ByNumericKey(r.Context(), runtime.KeyInstance, k)
		if err != nil && runtime.ErrorCode(err) != runtime.ENOTFOUND {
			return err
		}
		none = none || id == ""
		inst = runtime.InstanceID(id)
	}
	var rows []runtime.IncidentRow
	if !none {
		cursor := ""
		for len(rows) < maxIncidentSearch {
			page, next, err := h.svc.IncidentsPage(r.Context(), inst, true, cursor, runtime.MaxPageLimit)
			if err != nil {
				return err
			}
			rows = append(rows, page...)
			if next == "" {
				break
			}
			cursor = next
		}
	}
	var instIDs []runtime.InstanceID
	for _, row := range rows {
		instIDs = append(instIDs, row.InstanceID)
	}
	instRows, err := h.svc.InstanceRows(r.Context(), instIDs)
	if err != nil {
		return err
	}
	procOf := map[string]string{}
	for id, row := range instRows {
		procOf[string(id)] = row.ProcessKey
	}
	rows = slices.DeleteFunc(rows, func(row runtime.IncidentRow) bool {
		pk := procOf[string(row.InstanceID)]
		return pk == "" || !h.mayRead(r, pk) || !row.ResolvedAt.IsZero() ||
			(req.Filter.ProcessDefinitionID != "" && pk != req.Filter.ProcessDefinitionID) ||
			(req.Filter.ElementID != "" && row.NodeID != req.Filter.ElementID) ||
			(req.Filter.ErrorType != "" && errorType(row.Kind) != req.Filter.ErrorType)
	})
	total := len(rows)
	if from > len(rows) {
		from = len(rows)
	}
	rows = rows[from:min(len(rows), from+limit)]
	var ids, insts []string
	for _, row := range rows {
		ids = append(ids, row.ID)
		insts = append(insts, string(row.InstanceID))
	}
	incKeys, err := h.svc.NumericKeys(r.Context(), runtime.KeyIncident, ids)
	if err != nil {
		return err
	}
	instKeys, err := h.svc.NumericKeys(r.Context(), runtime.KeyInstance, insts)
	if err != nil {
		return err
	}
	items := []Incident{}
	for _, row := range rows {
		k, ok := incKeys[row.ID]
		if !ok {
			continue
		}
		ik := keyString(instKeys[string(row.InstanceID)])
		items = append(items, Incident{ProcessDefinitionID: procOf[string(row.InstanceID)], ErrorType: errorType(row.Kind),
			ErrorMessage: row.Message, ElementID: row.NodeID, CreationTime: timeString(row.CreatedAt), State: "ACTIVE",
			TenantID: DefaultTenant, IncidentKey: keyString(k), ProcessInstanceKey: ik, ElementInstanceKey: ik})
	}
	return writeJSON(w, http.StatusOK, struct {
		Items []Incident   `json:"items"`
		Page  PageResponse `json:"page"`
	}{Items: items, Page: PageResponse{TotalItems: int64(total), HasMoreTotalItems: total >= maxIncidentSearch}})
}

// resolveIncident handles POST /v2/incidents/{incidentKey}/resolution: a
// job incident's job gets one retry and is activatable again; a stopped
// element runs again. 204, also for an incident resolved already.
func (h *handler) resolveIncident(w http.ResponseWriter, r *http.Request) error {
	key, err := pathKey(r, "incidentKey")
	if err != nil {
		return err
	}
	gone := notFound(fmt.Sprintf("Incident with key '%d' not found", key))
	id, err := h.svc.ByNumericKey(r.Context(), runtime.KeyIncident, key)
	if runtime.ErrorCode(err) == runtime.ENOTFOUND {
		return gone
	}
	if err != nil {
		return err
	}
	pk, err := h.svc.IncidentProcessKey(r.Context(), id)
	if runtime.ErrorCode(err) == runtime.ENOTFOUND || (err == nil && !h.mayRead(r, pk)) {
		return gone
	}
	if err != nil {
		return err
	}
	if !h.mayOperate(r, pk) {
		return NewProblem(http.StatusForbidden, TitleForbidden, fmt.Sprintf("the caller may not operate instances of process '%s'", pk))
	}
	if _, err := h.svc.ResolveC8Incident(r.Context(), key); err != nil && runtime.ErrorCode(err) != runtime.ECONFLICT {
		return err
	}
	// An incident resolved already (by a retries update, as Camunda 8
	// clients send before the resolution) is no error.
	return noContent(w)
}
