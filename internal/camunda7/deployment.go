package camunda7

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/gobpm/gobpm/internal/runtime"
)

// Deployments is what POST /deployment/create needs from the runtime;
// *runtime.Runtime implements it.
type Deployments interface {
	// Deploy validates and registers the files: *runtime.DeploymentError
	// for invalid models (nothing is registered), *runtime.ReachError or
	// the guard's refusal for models the deployer may not deploy.
	Deploy(ctx context.Context, files []runtime.File) (runtime.DeploymentResult, error)
	// Definition returns one process version; ENOTFOUND if absent.
	Definition(ctx context.Context, key string, version int) (runtime.DefinitionRecord, error)
	// DecisionDefinition returns one decision version; ENOTFOUND if absent.
	DecisionDefinition(ctx context.Context, key string, version int) (runtime.DefinitionRecord, error)
}

// parseErrorPrefix opens the message of a refused deployment: the Camunda
// Modeler recognizes a parse error by it and shows the problems.
const parseErrorPrefix = "ENGINE-09005 Could not parse BPMN process. Errors: "

// Link is one of Camunda 7's hypermedia links.
type Link struct {
	Method string `json:"method"`
	Href   string `json:"href"`
	Rel    string `json:"rel"`
}

// ProcessDefinition is Camunda 7's ProcessDefinitionDto. Its id is
// key:version, the form the external task answers use too.
type ProcessDefinition struct {
	ID                  string  `json:"id"`
	Key                 string  `json:"key"`
	Category            *string `json:"category"`
	Description         *string `json:"description"`
	Name                *string `json:"name"`
	Version             int     `json:"version"`
	Resource            string  `json:"resource"`
	DeploymentID        string  `json:"deploymentId"`
	Diagram             *string `json:"diagram"`
	Suspended           bool    `json:"suspended"`
	TenantID            *string `json:"tenantId"`
	VersionTag          *string `json:"versionTag"`
	HistoryTimeToLive   *int    `json:"historyTimeToLive"`
	StartableInTasklist bool    `json:"startableInTasklist"`
}

// DecisionDefinition is Camunda 7's DecisionDefinitionDto.
type DecisionDefinition struct {
	ID                                string  `json:"id"`
	Key                               string  `json:"key"`
	Category                          *string `json:"category"`
	Name                              *string `json:"name"`
	Version                           int     `json:"version"`
	Resource                          string  `json:"resource"`
	DeploymentID                      string  `json:"deploymentId"`
	TenantID                          *string `json:"tenantId"`
	DecisionRequirementsDefinitionID  *string `json:"decisionRequirementsDefinitionId"`
	DecisionRequirementsDefinitionKey *string `json:"decisionRequirementsDefinitionKey"`
	HistoryTimeToLive                 *int    `json:"historyTimeToLive"`
	VersionTag                        *string `json:"versionTag"`
}

// Deployment is Camunda 7's DeploymentWithDefinitionsDto, the answer of
// POST /deployment/create.
type Deployment struct {
	Links                                   []Link                        `json:"links"`
	ID                                      string                        `json:"id"`
	Name                                    *string                       `json:"name"`
	Source                                  *string                       `json:"source"`
	DeploymentTime                          string                        `json:"deploymentTime"`
	TenantID                                *string                       `json:"tenantId"`
	DeployedProcessDefinitions              map[string]ProcessDefinition  `json:"deployedProcessDefinitions"`
	DeployedCaseDefinitions                 map[string]any                `json:"deployedCaseDefinitions"`
	DeployedDecisionDefinitions             map[string]DecisionDefinition `json:"deployedDecisionDefinitions"`
	DeployedDecisionRequirementsDefinitions map[string]any                `json:"deployedDecisionRequirementsDefinitions"`
}

// deploymentForm is what the multipart fields of a deployment say.
type deploymentForm struct {
	name, source string
	files        []runtime.File
}

// createDeployment handles POST /deployment/create: multipart/form-data as
// the Camunda Modeler sends it — the fields deployment-name,
// deployment-source, deploy-changed-only, enable-duplicate-filtering and
// tenant-id, and one part per resource (.bpmn, .dmn, .form) named by its
// file name. gobpm keeps a process whose model did not change at its
// version in any case, so the two filtering flags need no action. A
// refused model is Camunda 7's 400 ParseException with the problems per
// resource.
func (h *handler) createDeployment(w http.ResponseWriter, r *http.Request) error {
	form, err := h.readDeployment(w, r)
	if err != nil {
		return err
	}
	ctx := r.Context()
	if h.guard != nil {
		ctx = h.guard.Deploying(r)
	}
	res, err := h.svc.Deploy(ctx, form.files)
	if err != nil {
		return err
	}
	out := Deployment{ID: res.ID, Links: []Link{{Method: http.MethodGet, Href: baseURL(r) + "/deployment/" + res.ID, Rel: "self"}},
		DeployedProcessDefinitions: map[string]ProcessDefinition{}}
	if form.name != "" {
		out.Name = &form.name
	}
	if form.source != "" {
		out.Source = &form.source
	}
	var deployedAt time.Time
	for _, ref := range res.Processes {
		def, err := h.svc.Definition(r.Context(), ref.Key, ref.Version)
		if err != nil {
			return fmt.Errorf("camunda7: read deployed process %s version %d: %w", ref.Key, ref.Version, err)
		}
		pd := toProcessDefinition(def)
		out.DeployedProcessDefinitions[pd.ID] = pd
		if def.DeployedAt.After(deployedAt) {
			deployedAt = def.DeployedAt
		}
	}
	if len(res.Decisions) > 0 {
		out.DeployedDecisionDefinitions = map[string]DecisionDefinition{}
	}
	for _, ref := range res.Decisions {
		def, err := h.svc.DecisionDefinition(r.Context(), ref.Key, ref.Version)
		if err != nil {
			return fmt.Errorf("camunda7: read deployed decision %s version %d: %w", ref.Key, ref.Version, err)
		}
		dd := DecisionDefinition{ID: definitionID(def.Key, def.Version), Key: def.Key, Name: optional(def.Name), Version: def.Version,
			Resource: def.ResourceName, DeploymentID: def.DeploymentID}
		out.DeployedDecisionDefinitions[dd.ID] = dd
		if def.DeployedAt.After(deployedAt) {
			deployedAt = def.DeployedAt
		}
	}
	if deployedAt.IsZero() {
		deployedAt = time.Now()
	}
	out.DeploymentTime = FormatDate(deployedAt)
	writeJSON(w, http.StatusOK, out)
	return nil
}

// toProcessDefinition renders a process version.
func toProcessDefinition(def runtime.DefinitionRecord) ProcessDefinition {
	return ProcessDefinition{ID: definitionID(def.Key, def.Version), Key: def.Key, Name: optional(def.Name), Version: def.Version,
		Resource: def.ResourceName, DeploymentID: def.DeploymentID, StartableInTasklist: true}
}

// optional is s, or nil when it is empty (Camunda 7 answers null).
func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// baseURL is the engine-rest root the request reached, for links.
func baseURL(r *http.Request) string {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host + "/engine-rest"
}

// Resource extensions a deployment registers.
var deployableExts = []string{".bpmn", ".bpmn20.xml", ".dmn", ".dmn11.xml", ".form", ".xml"}

// readDeployment reads POST /deployment/create's multipart body.
func (h *handler) readDeployment(w http.ResponseWriter, r *http.Request) (deploymentForm, error) {
	var form deploymentForm
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != "multipart/form-data" {
		return form, &Error{Status: http.StatusUnsupportedMediaType, Type: TypeInvalidRequest,
			Msg: "send the deployment as multipart/form-data: the fields deployment-name, deployment-source, ... and one part per resource"}
	}
	r.Body = http.MaxBytesReader(w, r.Body, h.maxDeploy)
	mr, err := r.MultipartReader()
	if err != nil {
		return form, invalid("the multipart body is malformed: " + err.Error())
	}
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return form, h.multipartError(err)
		}
		content, err := io.ReadAll(part)
		_ = part.Close()
		if err != nil {
			return form, h.multipartError(err)
		}
		if err := form.add(part.FormName(), part.FileName(), content); err != nil {
			return form, err
		}
	}
	if len(form.files) == 0 {
		return form, invalid("the deployment has no resource: send one multipart part per .bpmn, .dmn or .form file")
	}
	return form, nil
}

// add takes one multipart part: a field or a resource.
func (f *deploymentForm) add(field, fileName string, content []byte) error {
	value := strings.TrimSpace(string(content))
	switch field {
	case "deployment-name":
		f.name = value
		return nil
	case "deployment-source":
		f.source = value
		return nil
	case "deploy-changed-only", "enable-duplicate-filtering":
		if value != "" && value != "true" && value != "false" {
			return invalid(fmt.Sprintf("%s must be true or false, not %q", field, value))
		}
		return nil
	case "tenant-id":
		if value != "" {
			return invalid(fmt.Sprintf("tenant-id %q: gobpm has no tenants; deploy without a tenant id", value))
		}
		return nil
	case "deployment-activation-time":
		if value != "" {
			return invalid("deployment-activation-time: gobpm activates a deployment at once; deploy without it")
		}
		return nil
	}
	name := resourceName(fileName, field)
	if name == "" || !slices.ContainsFunc(deployableExts, func(ext string) bool { return strings.HasSuffix(strings.ToLower(name), ext) }) {
		if fileName == "" {
			return invalid(fmt.Sprintf("unknown field %q: a resource part needs a file name ending in .bpmn, .dmn or .form", field))
		}
		return invalid(fmt.Sprintf("resource %q: gobpm deploys .bpmn, .dmn and .form files", name))
	}
	if len(content) == 0 {
		return invalid(fmt.Sprintf("resource %q is empty", name))
	}
	f.files = append(f.files, runtime.File{Name: name, Content: content})
	return nil
}

// resourceName is a part's resource name: its file name (else its field
// name), without any directory a client sent.
func resourceName(fileName, field string) string {
	name := fileName
	if name == "" {
		name = field
	}
	name = path.Base(strings.ReplaceAll(strings.TrimSpace(name), `\`, "/"))
	if name == "." || name == ".." || name == "/" {
		return ""
	}
	return name
}

// multipartError answers a body over the limit 413, else 400.
func (h *handler) multipartError(err error) error {
	var me *http.MaxBytesError
	if errors.As(err, &me) {
		return &Error{Status: http.StatusRequestEntityTooLarge, Type: TypeInvalidRequest, Msg: fmt.Sprintf("the deployment exceeds %d bytes", h.maxDeploy)}
	}
	return invalid("the multipart body is malformed: " + err.Error())
}

// deploymentRefusal is Camunda 7's 400 ParseException for refused models:
// a message listing every problem, and the problems per resource in
// details (line and column 0: gobpm names elements, not positions).
func deploymentRefusal(de *runtime.DeploymentError) *Error {
	details := map[string]ResourceReport{}
	lines := make([]string, 0, len(de.Problems))
	for _, p := range de.Problems {
		rep := details[p.Resource]
		if rep.Warnings == nil {
			rep.Warnings = []ProblemDto{}
		}
		dto := ProblemDto{Message: p.Detail + " (" + p.Rule + ")", MainElementID: p.Element, ElementIDs: []string{}}
		if p.Element != "" {
			dto.ElementIDs = []string{p.Element}
		}
		rep.Errors = append(rep.Errors, dto)
		details[p.Resource] = rep
		lines = append(lines, fmt.Sprintf("* %s: %s: %s (%s)", p.Resource, p.Element, p.Detail, p.Rule))
	}
	return &Error{Status: http.StatusBadRequest, Type: TypeParse, Msg: parseErrorPrefix + "\n" + strings.Join(lines, "\n"), Details: details}
}

// DeploymentSummary is Camunda 7's DeploymentDto, an entry of GET
// /deployment.
type DeploymentSummary struct {
	Links          []Link  `json:"links"`
	ID             string  `json:"id"`
	Name           *string `json:"name"`
	Source         *string `json:"source"`
	DeploymentTime string  `json:"deploymentTime"`
	TenantID       *string `json:"tenantId"`
}

// listDeployments handles GET /deployment (the Camunda Modeler's
// connection check sends maxResults=0): the deployments that registered a
// version of a process the caller may read, oldest first; filter id;
// paging firstResult, maxResults. gobpm keeps no deployment names, so
// name and source are null.
func (h *handler) listDeployments(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	first, err := queryInt(q.Get("firstResult"), "firstResult", 0)
	if err != nil {
		return err
	}
	max, err := queryInt(q.Get("maxResults"), "maxResults", -1)
	if err != nil {
		return err
	}
	out := []DeploymentSummary{}
	if max == 0 {
		writeJSON(w, http.StatusOK, out)
		return nil
	}
	heads, err := h.svc.Processes(r.Context())
	if err != nil {
		return err
	}
	at := map[string]time.Time{}
	for _, head := range heads {
		if !h.mayRead(r, head.Key) {
			continue
		}
		versions, err := h.svc.ProcessVersions(r.Context(), head.Key)
		if err != nil {
			return err
		}
		for _, v := range versions {
			if t, ok := at[v.DeploymentID]; !ok || v.DeployedAt.Before(t) {
				at[v.DeploymentID] = v.DeployedAt
			}
		}
	}
	for id, t := range at {
		if q.Get("id") == "" || q.Get("id") == id {
			out = append(out, DeploymentSummary{Links: []Link{{Method: http.MethodGet, Href: baseURL(r) + "/deployment/" + id, Rel: "self"}},
				ID: id, DeploymentTime: FormatDate(t)})
		}
	}
	slices.SortFunc(out, func(a, b DeploymentSummary) int {
		if c := at[a.ID].Compare(at[b.ID]); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	if max < 0 {
		max = len(out)
	}
	writeJSON(w, http.StatusOK, page(out, first, max))
	return nil
}
