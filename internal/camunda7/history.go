package camunda7

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/gobpm/gobpm/internal/runtime"
)

// Incidents is what GET /incident needs from the runtime;
// *runtime.Runtime implements it.
type Incidents interface {
	// Incidents lists the incidents of an instance ("" = all instances).
	Incidents(ctx context.Context, id runtime.InstanceID, openOnly bool) ([]runtime.IncidentRow, error)
}

// Incident is Camunda 7's IncidentDto.
type Incident struct {
	ID                  string  `json:"id"`
	ProcessDefinitionID string  `json:"processDefinitionId"`
	ProcessInstanceID   string  `json:"processInstanceId"`
	ExecutionID         string  `json:"executionId"`
	IncidentTimestamp   string  `json:"incidentTimestamp"`
	IncidentType        string  `json:"incidentType"`
	ActivityID          string  `json:"activityId"`
	FailedActivityID    string  `json:"failedActivityId"`
	CauseIncidentID     string  `json:"causeIncidentId"`
	RootCauseIncidentID string  `json:"rootCauseIncidentId"`
	Configuration       *string `json:"configuration"`
	TenantID            *string `json:"tenantId"`
	IncidentMessage     *string `json:"incidentMessage"`
	JobDefinitionID     *string `json:"jobDefinitionId"`
	Annotation          *string `json:"annotation"`
}

// incidentType is Camunda 7's type of a gobpm incident kind: a job's
// exhausted retries are a failed external task (gobpm's jobs are worked
// by workers); any other kind keeps gobpm's name.
func incidentType(kind string) string {
	if kind == "job-failed" {
		return "failedExternalTask"
	}
	return kind
}

// listIncidents handles GET /incident: the open incidents of the
// processes the caller may read, oldest first; filters
// processInstanceId, processDefinitionKeyIn (comma-separated as one
// value), activityId, incidentType, incidentId; paging firstResult,
// maxResults.
func (h *handler) listIncidents(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	rows, err := h.svc.Incidents(r.Context(), runtime.InstanceID(q.Get("processInstanceId")), true)
	if err != nil {
		return err
	}
	versions := map[runtime.InstanceID]int{}
	out := []Incident{}
	for _, row := range rows {
		if !h.mayRead(r, row.ProcessKey) || (q.Get("activityId") != "" && row.NodeID != q.Get("activityId")) ||
			(q.Get("incidentType") != "" && incidentType(row.Kind) != q.Get("incidentType")) ||
			(q.Get("incidentId") != "" && row.ID != q.Get("incidentId")) ||
			(q.Get("processDefinitionKeyIn") != "" && !slices.Contains(splitList(q.Get("processDefinitionKeyIn")), row.ProcessKey)) {
			continue
		}
		v, ok := versions[row.InstanceID]
		if !ok {
			view, err := h.svc.Instance(r.Context(), row.InstanceID)
			if err != nil {
				return fmt.Errorf("camunda7: read the instance of incident %s: %w", row.ID, err)
			}
			v = view.ProcessVersion
			versions[row.InstanceID] = v
		}
		out = append(out, Incident{ID: row.ID, ProcessDefinitionID: definitionID(row.ProcessKey, v), ProcessInstanceID: string(row.InstanceID),
			ExecutionID: string(row.InstanceID), IncidentTimestamp: FormatDate(row.CreatedAt), IncidentType: incidentType(row.Kind),
			ActivityID: row.NodeID, FailedActivityID: row.NodeID, CauseIncidentID: row.ID, RootCauseIncidentID: row.ID,
			IncidentMessage: optional(row.Message)})
	}
	first, err := queryInt(q.Get("firstResult"), "firstResult", 0)
	if err != nil {
		return err
	}
	max, err := queryInt(q.Get("maxResults"), "maxResults", len(out))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, page(out, first, max))
	return nil
}

// page is items[first:first+max], within bounds.
func page[T any](items []T, first, max int) []T {
	if first >= len(items) {
		return []T{}
	}
	items = items[first:]
	if max < len(items) {
		items = items[:max]
	}
	return items
}

// splitList splits a comma-separated query value, empty items left out.
func splitList(s string) []string {
	return slices.DeleteFunc(strings.Split(s, ","), func(v string) bool { return v == "" })
}

// HistoricInstance is Camunda 7's HistoricProcessInstanceDto.
type HistoricInstance struct {
	ID                       string  `json:"id"`
	BusinessKey              *string `json:"businessKey"`
	ProcessDefinitionID      string  `json:"processDefinitionId"`
	ProcessDefinitionKey     string  `json:"processDefinitionKey"`
	ProcessDefinitionName    *string `json:"processDefinitionName"`
	ProcessDefinitionVersion int     `json:"processDefinitionVersion"`
	StartTime                string  `json:"startTime"`
	EndTime                  *string `json:"endTime"`
	RemovalTime              *string `json:"removalTime"`
	DurationInMillis         *int64  `json:"durationInMillis"`
	StartUserID              *string `json:"startUserId"`
	StartActivityID          *string `json:"startActivityId"`
	DeleteReason             *string `json:"deleteReason"`
	RootProcessInstanceID    string  `json:"rootProcessInstanceId"`
	SuperProcessInstanceID   *string `json:"superProcessInstanceId"`
	SuperCaseInstanceID      *string `json:"superCaseInstanceId"`
	CaseInstanceID           *string `json:"caseInstanceId"`
	TenantID                 *string `json:"tenantId"`
	State                    string  `json:"state"`
}

// historicState is Camunda 7's state of an instance status.
func historicState(status string) string {
	switch status {
	case runtime.StatusCompleted:
		return "COMPLETED"
	case runtime.StatusTerminated:
		return "EXTERNALLY_TERMINATED"
	}
	return "ACTIVE"
}

// toHistoric renders an instance as history.
func toHistoric(row runtime.InstanceRow) HistoricInstance {
	out := HistoricInstance{ID: string(row.ID), BusinessKey: optional(row.BusinessKey), ProcessDefinitionID: definitionID(row.ProcessKey, row.ProcessVersion),
		ProcessDefinitionKey: row.ProcessKey, ProcessDefinitionVersion: row.ProcessVersion, StartTime: FormatDate(row.CreatedAt),
		RootProcessInstanceID: string(row.ID), SuperProcessInstanceID: optional(string(row.ParentID)), State: historicState(row.Status)}
	if !row.EndedAt.IsZero() {
		end := FormatDate(row.EndedAt)
		d := row.EndedAt.Sub(row.CreatedAt).Milliseconds()
		out.EndTime, out.DurationInMillis = &end, &d
	}
	return out
}

// listHistory handles GET /history/process-instance: the instances,
// running and ended, of the processes the caller may read, the newest
// first (at most 1000 are read); filters processInstanceId,
// processDefinitionKey, processInstanceBusinessKey, finished, unfinished;
// paging firstResult, maxResults.
func (h *handler) listHistory(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	for _, name := range []string{"finished", "unfinished"} {
		if v := q.Get(name); v != "" && v != "true" && v != "false" {
			return invalid(fmt.Sprintf("%s must be true or false, not %q", name, v))
		}
	}
	var rows []runtime.InstanceRow
	if id := q.Get("processInstanceId"); id != "" {
		view, err := h.svc.Instance(r.Context(), runtime.InstanceID(id))
		if err != nil && runtime.ErrorCode(err) != runtime.ENOTFOUND {
			return err
		}
		if err == nil {
			rows = append(rows, view.InstanceRow)
		}
	} else {
		var err error
		rows, _, err = h.svc.ListInstances(r.Context(), runtime.InstanceFilter{ProcessKey: q.Get("processDefinitionKey"),
			BusinessKey: q.Get("processInstanceBusinessKey"), Limit: maxInstanceScan})
		if err != nil {
			return err
		}
	}
	out := []HistoricInstance{}
	for _, row := range rows {
		done := ended(row)
		if !h.mayRead(r, row.ProcessKey) || (q.Get("finished") == "true" && !done) || (q.Get("unfinished") == "true" && done) ||
			(q.Get("processDefinitionKey") != "" && row.ProcessKey != q.Get("processDefinitionKey")) ||
			(q.Get("processInstanceBusinessKey") != "" && row.BusinessKey != q.Get("processInstanceBusinessKey")) {
			continue
		}
		out = append(out, toHistoric(row))
	}
	first, err := queryInt(q.Get("firstResult"), "firstResult", 0)
	if err != nil {
		return err
	}
	max, err := queryInt(q.Get("maxResults"), "maxResults", len(out))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, page(out, first, max))
	return nil
}
