package camunda8

import (
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"path"
	"strings"

	"github.com/gobpm/gobpm/internal/runtime"
)

// deployableExts are the resource names a deployment takes.
var deployableExts = []string{".bpmn", ".bpmn20.xml", ".dmn", ".dmn11.xml", ".form", ".xml"}

// DeployedProcess is a process of a deployment (Camunda 8's
// DeploymentProcessResult).
type DeployedProcess struct {
	ProcessDefinitionID      string `json:"processDefinitionId"`
	ProcessDefinitionVersion int    `json:"processDefinitionVersion"`
	ResourceName             string `json:"resourceName"`
	TenantID                 string `json:"tenantId"`
	ProcessDefinitionKey     string `json:"processDefinitionKey"`
}

// DeployedDecision is a decision of a deployment (Camunda 8's
// DeploymentDecisionResult, without keys: gobpm keeps none for decisions).
type DeployedDecision struct {
	DecisionDefinitionID   string `json:"decisionDefinitionId"`
	Version                int    `json:"version"`
	Name                   string `json:"name"`
	TenantID               string `json:"tenantId"`
	DecisionRequirementsID string `json:"decisionRequirementsId"`
}

// DeploymentItem is one item of a deployment's answer.
type DeploymentItem struct {
	ProcessDefinition  *DeployedProcess  `json:"processDefinition,omitempty"`
	DecisionDefinition *DeployedDecision `json:"decisionDefinition,omitempty"`
}

// Deployment is Camunda 8's DeploymentResult.
type Deployment struct {
	TenantID      string           `json:"tenantId"`
	DeploymentKey string           `json:"deploymentKey"`
	Deployments   []DeploymentItem `json:"deployments"`
}

// deploy handles POST /v2/deployments: multipart/form-data with one
// resources part per .bpmn, .dmn or .form file (and an optional
// tenantId). A refused model is a 400 naming its problems.
func (h *handler) deploy(w http.ResponseWriter, r *http.Request) error {
	files, err := h.readResources(w, r)
	if err != nil {
		return err
	}
	ctx := r.Context()
	if h.guard != nil {
		ctx = h.guard.Deploying(r)
	}
	dep, err := h.svc.DeployC8(ctx, files)
	if err != nil {
		return err
	}
	out := Deployment{TenantID: DefaultTenant, DeploymentKey: keyString(dep.Key), Deployments: []DeploymentItem{}}
	for _, p := range dep.Processes {
		out.Deployments = append(out.Deployments, DeploymentItem{ProcessDefinition: &DeployedProcess{ProcessDefinitionID: p.ProcessID,
			ProcessDefinitionVersion: p.Version, ResourceName: p.ResourceName, TenantID: DefaultTenant, ProcessDefinitionKey: keyString(p.Key)}})
	}
	for _, d := range dep.Decisions {
		out.Deployments = append(out.Deployments, DeploymentItem{DecisionDefinition: &DeployedDecision{DecisionDefinitionID: d.Key,
			Version: d.Version, Name: d.Name, TenantID: DefaultTenant, DecisionRequirementsID: d.Key}})
	}
	return writeJSON(w, http.StatusOK, out)
}

// readResources reads a deployment's multipart body.
func (h *handler) readResources(w http.ResponseWriter, r *http.Request) ([]runtime.File, error) {
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != "multipart/form-data" {
		return nil, NewProblem(http.StatusUnsupportedMediaType, TitleInvalidArgument, "send the deployment as multipart/form-data: one resources part per file")
	}
	r.Body = http.MaxBytesReader(w, r.Body, h.maxDeploy)
	mr, err := r.MultipartReader()
	if err != nil {
		return nil, invalid("the multipart body is malformed: " + err.Error())
	}
	var files []runtime.File
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, h.multipartError(err)
		}
		content, err := io.ReadAll(part)
		_ = part.Close()
		if err != nil {
			return nil, h.multipartError(err)
		}
		switch part.FormName() {
		case "tenantId":
			if err := checkTenants([]string{strings.TrimSpace(string(content))}); err != nil {
				return nil, err
			}
			continue
		case "resources":
		default:
			return nil, invalid(fmt.Sprintf("unknown part '%s': send resources and, optionally, tenantId", part.FormName()))
		}
		name := path.Base(strings.ReplaceAll(strings.TrimSpace(part.FileName()), `\`, "/"))
		ok := false
		for _, ext := range deployableExts {
			ok = ok || strings.HasSuffix(strings.ToLower(name), ext)
		}
		if !ok {
			return nil, invalid(fmt.Sprintf("resource '%s': gobpm deploys .bpmn, .dmn and .form files", name))
		}
		files = append(files, runtime.File{Name: name, Content: content})
	}
	if len(files) == 0 {
		return nil, invalid("No resources provided: send one resources part per .bpmn, .dmn or .form file.")
	}
	return files, nil
}

// multipartError answers a body over the limit 413, else 400.
func (h *handler) multipartError(err error) error {
	var me *http.MaxBytesError
	if errors.As(err, &me) {
		return NewProblem(http.StatusRequestEntityTooLarge, TitleInvalidArgument, fmt.Sprintf("the deployment exceeds %d bytes", h.maxDeploy))
	}
	return invalid("the multipart body is malformed: " + err.Error())
}
