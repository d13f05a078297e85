package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"mime/multipart"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gobpm/gobpm/internal/access"
	"github.com/gobpm/gobpm/internal/auth"
)

// modelerDeployment is the Camunda Modeler's recorded deployment request
// (internal/camunda7/testdata/modeler/README.md): the body and its
// Content-Type.
func modelerDeployment(t *testing.T) ([]byte, string) {
	t.Helper()
	dir := filepath.Join("..", "camunda7", "testdata", "modeler")
	body, err := os.ReadFile(filepath.Join(dir, "deploy.multipart"))
	if err != nil {
		t.Fatal(err)
	}
	boundary, err := os.ReadFile(filepath.Join(dir, "boundary.txt"))
	if err != nil {
		t.Fatal(err)
	}
	return body, "multipart/form-data; boundary=" + strings.TrimSpace(string(boundary))
}

// c7Multipart builds a deployment body of fields and resources (name →
// content), as a browser's FormData does.
func c7Multipart(t *testing.T, fields map[string]string, files map[string]string) ([]byte, string) {
	t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	for k, v := range fields {
		if err := mw.WriteField(k, v); err != nil {
			t.Fatal(err)
		}
	}
	for name, content := range files {
		fw, err := mw.CreateFormFile(name, name)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = fw.Write([]byte(content))
	}
	if err := mw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), mw.FormDataContentType()
}

// c7Deploy posts a deployment body with an Authorization header ("" none).
func (b *bundle) c7Deploy(body []byte, contentType, authorization string) *response {
	b.t.Helper()
	req := httptestRequest("POST", "/engine-rest/deployment/create", bytes.NewReader(body))
	req.Header.Set("Content-Type", contentType)
	if authorization != "" {
		req.Header.Set("Authorization", authorization)
	}
	res := b.do(req)
	if res.Header.Get("Content-Type") != "application/json" {
		b.t.Errorf("deployment answer Content-Type %q, want exactly application/json", res.Header.Get("Content-Type"))
	}
	return res
}

func TestCamunda7DeploymentAsTheModelerSendsIt(t *testing.T) {
	t.Parallel()
	b := c7World(t)
	body, ct := modelerDeployment(t)
	res := b.c7Deploy(body, ct, "").wantStatus(t, http.StatusOK)
	var dep struct {
		ID, DeploymentTime         string
		Name, Source, TenantID     *string
		Links                      []map[string]string
		DeployedProcessDefinitions map[string]struct {
			ID, Key, Resource, DeploymentID string
			Name                            *string
			Version                         int
			Suspended                       bool
		}
		DeployedDecisionDefinitions map[string]any
	}
	if err := json.Unmarshal(res.Body, &dep); err != nil {
		t.Fatalf("answer %s: %v", res.Body, err)
	}
	if dep.ID == "" || dep.Name == nil || *dep.Name != "invoice" || dep.Source == nil || *dep.Source != "Camunda Modeler" || dep.TenantID != nil {
		t.Errorf("deployment = %s", res.Body)
	}
	if len(dep.DeploymentTime) != len("2026-01-02T03:04:05.000+0000") || !strings.HasSuffix(dep.DeploymentTime, "+0000") {
		t.Errorf("deploymentTime = %q, want Camunda 7's format", dep.DeploymentTime)
	}
	if len(dep.Links) != 1 || dep.Links[0]["rel"] != "self" || !strings.HasSuffix(dep.Links[0]["href"], "/engine-rest/deployment/"+dep.ID) {
		t.Errorf("links = %v", dep.Links)
	}
	pd, ok := dep.DeployedProcessDefinitions["invoice:1"]
	if !ok || len(dep.DeployedProcessDefinitions) != 1 {
		t.Fatalf("deployedProcessDefinitions = %v, want invoice:1", dep.DeployedProcessDefinitions)
	}
	if pd.ID != "invoice:1" || pd.Key != "invoice" || pd.Version != 1 || pd.Resource != "invoice.bpmn" || pd.DeploymentID != dep.ID ||
		pd.Name == nil || *pd.Name != "Invoice approval" || pd.Suspended {
		t.Errorf("definition = %+v", pd)
	}
	if dep.DeployedDecisionDefinitions != nil {
		t.Errorf("deployedDecisionDefinitions = %v, want null", dep.DeployedDecisionDefinitions)
	}
	// The form went with it: the process runs and its task shows the form.
	b.postJSON("/api/v1/processes/invoice/instances", `{}`).wantStatus(t, http.StatusCreated)
	b.get("/api/v1/processes/invoice/versions").wantStatus(t, http.StatusOK)

	// The Modeler's connection check, and the listing.
	if got := b.c7Send("GET", "/engine-rest/deployment?maxResults=0", "").wantStatus(t, http.StatusOK).array(t); len(got) != 0 {
		t.Errorf("maxResults=0 = %v", got)
	}
	deps := b.c7Send("GET", "/engine-rest/deployment", "").wantStatus(t, http.StatusOK).array(t)
	if len(deps) != 2 || deps[1].(map[string]any)["id"] != dep.ID { // c7World deployed the order model first
		t.Errorf("deployments = %v, want the order model's and %s", deps, dep.ID)
	}
	if got := b.c7Send("GET", "/engine-rest/deployment?id="+dep.ID, "").wantStatus(t, http.StatusOK).array(t); len(got) != 1 {
		t.Errorf("by id = %v", got)
	}

	// The same request again keeps version 1, as duplicate filtering does.
	again := b.c7Deploy(body, ct, "").wantStatus(t, http.StatusOK).object(t)
	if defs := again["deployedProcessDefinitions"].(map[string]any); defs["invoice:1"] == nil {
		t.Errorf("redeployment answered %v, want invoice:1 again", defs)
	}
}

func TestCamunda7DeploymentDecisionsAndRefusals(t *testing.T) {
	t.Parallel()
	b := c7World(t)
	dmn, err := os.ReadFile(filepath.Join("..", "..", "examples", "discount.dmn"))
	if err != nil {
		t.Fatal(err)
	}
	body, ct := c7Multipart(t, map[string]string{"deployment-name": "d", "deploy-changed-only": "true"}, map[string]string{"discount.dmn": string(dmn)})
	dep := b.c7Deploy(body, ct, "").wantStatus(t, http.StatusOK).object(t)
	decs, _ := dep["deployedDecisionDefinitions"].(map[string]any)
	if len(decs) != 1 {
		t.Fatalf("deployedDecisionDefinitions = %v", dep["deployedDecisionDefinitions"])
	}
	for id, d := range decs {
		d := d.(map[string]any)
		if d["id"] != id || fmt.Sprint(d["version"]) != "1" || d["resource"] != "discount.dmn" || d["deploymentId"] != dep["id"] {
			t.Errorf("decision = %v in deployment %v", d, dep["id"])
		}
	}
	if defs := dep["deployedProcessDefinitions"].(map[string]any); len(defs) != 0 {
		t.Errorf("deployedProcessDefinitions = %v, want {}", defs)
	}

	// A model gobpm refuses: Camunda 7's ParseException with details per
	// resource, the message opening as the Modeler recognizes it.
	broken := `<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" id="d" targetNamespace="urn:x">
  <process id="broken" isExecutable="true">
    <startEvent id="start"/>
    <sequenceFlow id="f" sourceRef="start" targetRef="nowhere"/>
  </process>
</definitions>`
	body, ct = c7Multipart(t, map[string]string{"deployment-name": "x"}, map[string]string{"broken.bpmn": broken})
	res := b.c7Deploy(body, ct, "")
	msg := res.c7Error(t, http.StatusBadRequest, "ParseException")
	if !strings.HasPrefix(msg, "ENGINE-09005 Could not parse BPMN process.") || !strings.Contains(msg, "broken.bpmn") {
		t.Errorf("message = %q", msg)
	}
	var refusal struct {
		Details map[string]struct {
			Errors []struct {
				Message       string
				Line, Column  int
				MainElementID string
				ElementIDs    []string
			}
			Warnings []any
		}
	}
	if err := json.Unmarshal(res.Body, &refusal); err != nil {
		t.Fatal(err)
	}
	rep, ok := refusal.Details["broken.bpmn"]
	if !ok || len(rep.Errors) == 0 || rep.Warnings == nil {
		t.Fatalf("details = %s", res.Body)
	}
	for _, e := range rep.Errors {
		if e.Message == "" || e.MainElementID == "" || len(e.ElementIDs) != 1 || e.ElementIDs[0] != e.MainElementID {
			t.Errorf("error = %+v", e)
		}
	}
	b.get("/api/v1/processes/broken/versions").wantStatus(t, http.StatusNotFound)

	// Tenants, unknown parts and bodies that are no deployment.
	order := c7Model(t, "c7-order.bpmn")
	for name, tc := range map[string]struct {
		fields map[string]string
		files  map[string]string
		want   string
	}{
		"tenant":          {map[string]string{"tenant-id": "acme"}, map[string]string{"a.bpmn": order}, "acme"},
		"flag":            {map[string]string{"enable-duplicate-filtering": "yes"}, map[string]string{"a.bpmn": order}, "enable-duplicate-filtering"},
		"activation time": {map[string]string{"deployment-activation-time": "2030-01-01T00:00:00.000+0000"}, map[string]string{"a.bpmn": order}, "deployment-activation-time"},
		"no resource":     {map[string]string{"deployment-name": "x"}, nil, "no resource"},
		"unknown type":    {nil, map[string]string{"a.txt": "hi"}, "a.txt"},
		"empty resource":  {nil, map[string]string{"a.bpmn": ""}, "empty"},
	} {
		body, ct := c7Multipart(t, tc.fields, tc.files)
		if msg := b.c7Deploy(body, ct, "").c7Error(t, http.StatusBadRequest, "InvalidRequestException"); !strings.Contains(msg, tc.want) {
			t.Errorf("%s: message %q does not name %q", name, msg, tc.want)
		}
	}
	b.c7Deploy([]byte(order), "application/xml", "").c7Error(t, http.StatusUnsupportedMediaType, "InvalidRequestException")
}

func TestCamunda7DeploymentPermissions(t *testing.T) {
	t.Parallel()
	w := setupAuth(t)
	body, ct := modelerDeployment(t)
	basic := func(user string) string {
		req := httptestRequest("GET", "/", nil)
		req.SetBasicAuth(user, "correct horse battery")
		return req.Header.Get("Authorization")
	}
	res := w.b.c7Deploy(body, ct, "")
	res.c7Error(t, http.StatusUnauthorized, "RestException")
	// A worker or viewer holds deploy on nothing: refused at the route.
	w.b.c7Deploy(body, ct, basic("u-worker")).c7Error(t, http.StatusForbidden, "AuthorizationException")
	w.b.c7Deploy(body, ct, "Bearer "+w.tokens["viewer"]).c7Error(t, http.StatusForbidden, "AuthorizationException")
	// Deploy on other keys only: the deploy guard refuses the invoice
	// process, in Camunda 7's error body, and registers nothing.
	pattern, err := auth.ParsePattern("order-*")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.acc.Grant(context.Background(), "", access.GrantRecord{Subject: access.Subject{Kind: access.SubjectUser, ID: "u-nobody"},
		Grant: &auth.Grant{Permission: auth.PermDeploy, Kind: auth.KindProcess, Pattern: pattern}}); err != nil {
		t.Fatal(err)
	}
	if msg := w.b.c7Deploy(body, ct, "Bearer "+w.tokens["nobody"]).c7Error(t, http.StatusForbidden, "AuthorizationException"); !strings.Contains(msg, "invoice") {
		t.Errorf("refusal %q does not name the process", msg)
	}
	w.call("admin", "GET", "/api/v1/processes/invoice/versions", "").wantStatus(t, http.StatusNotFound)
	// A developer deploys, with Basic credentials as the Modeler sends them.
	w.b.c7Deploy(body, ct, basic("u-developer")).wantStatus(t, http.StatusOK)
}

// TestCamunda7DeploymentFromAnotherOrigin: the Modeler's window is of
// another origin than the server; its request names its credentials, so
// it is no cross-site forgery and goes through. A request from another
// site relying on what the browser adds by itself (no Authorization: the
// session cookie, a --auth none server) is refused.
func TestCamunda7DeploymentFromAnotherOrigin(t *testing.T) {
	t.Parallel()
	w := setupAuth(t)
	body, ct := modelerDeployment(t)
	post := func(authorization string) *response {
		t.Helper()
		req := httptestRequest("POST", "/engine-rest/deployment/create", bytes.NewReader(body))
		req.Header.Set("Content-Type", ct)
		req.Header.Set("Origin", "file://")
		req.Header.Set("Sec-Fetch-Site", "cross-site")
		if authorization != "" {
			req.Header.Set("Authorization", authorization)
		}
		return w.b.do(req)
	}
	req := httptestRequest("GET", "/", nil)
	req.SetBasicAuth("u-developer", "correct horse battery")
	post(req.Header.Get("Authorization")).wantStatus(t, http.StatusOK)
	if res := post(""); res.Status != http.StatusForbidden || !strings.Contains(string(res.Body), "cross-origin") {
		t.Errorf("a cross-site request without credentials: %d %s, want 403 cross-origin", res.Status, res.Body)
	}
}

func TestCamunda7EngineAndVersion(t *testing.T) {
	t.Parallel()
	b := c7World(t)
	if got := string(bytes.TrimSpace(b.c7Send("GET", "/engine-rest/engine", "").wantStatus(t, http.StatusOK).Body)); got != `[{"name":"default"}]` {
		t.Errorf("GET /engine = %s", got)
	}
	if v := b.c7Send("GET", "/engine-rest/version", "").wantStatus(t, http.StatusOK).object(t)["version"]; v != "7.22.0" {
		t.Errorf("GET /version = %v", v)
	}
}
