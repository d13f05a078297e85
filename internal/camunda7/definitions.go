package camunda7

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/gobpm/gobpm/internal/runtime"
)

// Definitions is what the process definition endpoints need from the
// runtime; *runtime.Runtime implements it.
type Definitions interface {
	// Processes returns the latest version of every process key.
	Processes(ctx context.Context) ([]runtime.DefinitionRecord, error)
	// ProcessVersions returns every version of key, ascending; ENOTFOUND
	// for an unknown key.
	ProcessVersions(ctx context.Context, key string) ([]runtime.DefinitionRecord, error)
	// StartInstance starts an instance and returns it after its first
	// step committed; ENOTFOUND for an unknown key or version, EINVALID
	// for bad input.
	StartInstance(ctx context.Context, req runtime.StartRequest) (runtime.InstanceView, error)
}

// noDefinition is Camunda 7's 404 for an unknown process definition.
func noDefinition(what string) *Error {
	return &Error{Status: http.StatusNotFound, Type: TypeRestException, Msg: "No matching process definition with " + what + " and no tenant-id"}
}

// mayRead reports whether the caller may read instances of processKey.
func (h *handler) mayRead(r *http.Request, processKey string) bool {
	return h.guard == nil || h.guard.MayRead(r, processKey)
}

// listDefinitions handles GET /process-definition: filters
// processDefinitionId, key, keysIn, name, version, latestVersion,
// deploymentId; paging firstResult, maxResults. It lists the versions of
// the processes the caller may read, by key, then version.
func (h *handler) listDefinitions(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	latest := q.Get("latestVersion")
	if latest != "" && latest != "true" && latest != "false" {
		return invalid(fmt.Sprintf("latestVersion must be true or false, not %q", latest))
	}
	version := 0
	if v := q.Get("version"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return invalid(fmt.Sprintf("version must be a positive whole number, not %q", v))
		}
		version = n
	}
	var keys []string
	if k := q.Get("keysIn"); k != "" {
		keys = strings.Split(k, ",")
	}
	heads, err := h.svc.Processes(r.Context())
	if err != nil {
		return err
	}
	slices.SortFunc(heads, func(a, b runtime.DefinitionRecord) int { return strings.Compare(a.Key, b.Key) })
	var defs []runtime.DefinitionRecord
	for _, head := range heads {
		if (q.Get("key") != "" && head.Key != q.Get("key")) || (keys != nil && !slices.Contains(keys, head.Key)) || !h.mayRead(r, head.Key) {
			continue
		}
		if latest == "true" {
			defs = append(defs, head)
			continue
		}
		versions, err := h.svc.ProcessVersions(r.Context(), head.Key)
		if err != nil {
			return err
		}
		defs = append(defs, versions...)
	}
	defs = slices.DeleteFunc(defs, func(d runtime.DefinitionRecord) bool {
		return (version != 0 && d.Version != version) || (q.Get("name") != "" && d.Name != q.Get("name")) ||
			(q.Get("deploymentId") != "" && d.DeploymentID != q.Get("deploymentId")) ||
			(q.Get("processDefinitionId") != "" && definitionID(d.Key, d.Version) != q.Get("processDefinitionId"))
	})
	first, err := queryInt(q.Get("firstResult"), "firstResult", 0)
	if err != nil {
		return err
	}
	max, err := queryInt(q.Get("maxResults"), "maxResults", len(defs))
	if err != nil {
		return err
	}
	out := []ProcessDefinition{}
	for i := first; i < len(defs) && len(out) < max; i++ {
		out = append(out, toProcessDefinition(defs[i]))
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// mayStart reports whether the caller may start instances of processKey.
func (h *handler) mayStart(r *http.Request, processKey string) bool {
	return h.guard == nil || h.guard.MayStart(r, processKey)
}

// mayReadOrStart reports whether the caller may know of processKey to
// start it: reading or starting it.
func (h *handler) mayReadOrStart(r *http.Request, processKey string) bool {
	return h.mayRead(r, processKey) || h.mayStart(r, processKey)
}

// definitionByKey resolves {key} to its latest version; a process the
// caller may not see (visible false) is unknown.
func (h *handler) definitionByKey(r *http.Request, visible func(*http.Request, string) bool) (runtime.DefinitionRecord, error) {
	key := chi.URLParam(r, "key")
	versions, err := h.svc.ProcessVersions(r.Context(), key)
	if runtime.ErrorCode(err) == runtime.ENOTFOUND || (err == nil && (len(versions) == 0 || !visible(r, key))) {
		return runtime.DefinitionRecord{}, noDefinition("key: " + key)
	}
	if err != nil {
		return runtime.DefinitionRecord{}, err
	}
	return versions[len(versions)-1], nil
}

// definitionByID resolves {id}, key:version.
func (h *handler) definitionByID(r *http.Request) (runtime.DefinitionRecord, error) {
	id := chi.URLParam(r, "id")
	key, v, ok := strings.Cut(id, ":")
	version, err := strconv.Atoi(v)
	if !ok || err != nil || version < 1 || !h.mayReadOrStart(r, key) {
		return runtime.DefinitionRecord{}, noDefinition("id: " + id)
	}
	def, err := h.svc.Definition(r.Context(), key, version)
	if runtime.ErrorCode(err) == runtime.ENOTFOUND {
		return runtime.DefinitionRecord{}, noDefinition("id: " + id)
	}
	return def, err
}

// getDefinitionByKey handles GET /process-definition/key/{key}: the
// latest version.
func (h *handler) getDefinitionByKey(w http.ResponseWriter, r *http.Request) error {
	def, err := h.definitionByKey(r, h.mayRead)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, toProcessDefinition(def))
	return nil
}

// startBody is the body of a start (Camunda 7's
// StartProcessInstanceDto).
type startBody struct {
	Variables             map[string]TypedValue `json:"variables"`
	BusinessKey           string                `json:"businessKey"`
	WithVariablesInReturn bool                  `json:"withVariablesInReturn"`
	StartInstructions     []any                 `json:"startInstructions"`
	CaseInstanceID        string                `json:"caseInstanceId"`
	SkipCustomListeners   bool                  `json:"skipCustomListeners"`
	SkipIoMappings        bool                  `json:"skipIoMappings"`
}

// ProcessInstance is Camunda 7's ProcessInstanceWithVariablesDto (and,
// without variables, its ProcessInstanceDto).
type ProcessInstance struct {
	Links          []Link                `json:"links"`
	ID             string                `json:"id"`
	DefinitionID   string                `json:"definitionId"`
	BusinessKey    *string               `json:"businessKey"`
	CaseInstanceID *string               `json:"caseInstanceId"`
	Ended          bool                  `json:"ended"`
	Suspended      bool                  `json:"suspended"`
	TenantID       *string               `json:"tenantId"`
	Variables      map[string]TypedValue `json:"variables,omitempty"`
}

// startByKey handles POST /process-definition/key/{key}/start: the latest
// version.
func (h *handler) startByKey(w http.ResponseWriter, r *http.Request) error {
	def, err := h.definitionByKey(r, h.mayReadOrStart)
	if err != nil {
		return err
	}
	return h.start(w, r, def.Key, 0)
}

// startByID handles POST /process-definition/{id}/start (what the Camunda
// Modeler's "Deploy and run" sends): that version.
func (h *handler) startByID(w http.ResponseWriter, r *http.Request) error {
	def, err := h.definitionByID(r)
	if err != nil {
		return err
	}
	return h.start(w, r, def.Key, def.Version)
}

// start starts an instance of key (version 0: the latest) with the
// request's typed variables and business key; it needs start on the
// process (403 otherwise).
func (h *handler) start(w http.ResponseWriter, r *http.Request, key string, version int) error {
	if !h.mayStart(r, key) {
		return &Error{Status: http.StatusForbidden, Type: TypeAuthorization, Msg: fmt.Sprintf("the user may not start instances of process %s", key)}
	}
	var body startBody
	if err := h.readBody(r, &body); err != nil {
		return err
	}
	switch {
	case len(body.StartInstructions) > 0:
		return invalid("startInstructions: gobpm starts an instance at its start event; use POST /api/v1/instances/{id}/modify afterwards")
	case body.CaseInstanceID != "":
		return invalid("caseInstanceId: gobpm runs no CMMN cases")
	case body.SkipCustomListeners, body.SkipIoMappings:
		return invalid("skipCustomListeners and skipIoMappings apply to start instructions, which gobpm does not take")
	}
	vars, err := FromTypedMap(body.Variables)
	if err != nil {
		return err
	}
	view, err := h.svc.StartInstance(r.Context(), runtime.StartRequest{ProcessKey: key, Version: version, BusinessKey: body.BusinessKey, Variables: vars})
	if err != nil {
		if runtime.ErrorCode(err) == runtime.ENOTFOUND {
			return noDefinition("key: " + key)
		}
		return err
	}
	out := toProcessInstance(r, view.InstanceRow)
	if body.WithVariablesInReturn {
		typed, err := ToTypedMap(view.Variables)
		if err != nil {
			return err
		}
		if typed == nil {
			typed = map[string]TypedValue{}
		}
		out.Variables = typed
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// toProcessInstance renders an instance.
func toProcessInstance(r *http.Request, row runtime.InstanceRow) ProcessInstance {
	id := string(row.ID)
	return ProcessInstance{Links: []Link{{Method: http.MethodGet, Href: baseURL(r) + "/process-instance/" + id, Rel: "self"}},
		ID: id, DefinitionID: definitionID(row.ProcessKey, row.ProcessVersion), BusinessKey: optional(row.BusinessKey),
		Ended: row.Status == runtime.StatusCompleted || row.Status == runtime.StatusTerminated, Suspended: row.Suspended}
}
