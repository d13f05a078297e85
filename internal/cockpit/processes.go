package cockpit

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/gobpm/gobpm/internal/auth"
	"github.com/gobpm/gobpm/internal/runtime"
	"github.com/gobpm/gobpm/web/templates"
)

func (h *handler) processes(w http.ResponseWriter, r *http.Request) {
	p := templates.ProcessesPage{Layout: h.layout(w, r, "Processes", templates.NavProcesses)}
	if err := h.fillProcesses(r, &p); err != nil {
		h.failErr(w, r, err)
		return
	}
	h.render(w, r, http.StatusOK, templates.Processes(p))
}

// fillProcesses lists the processes the person may read.
func (h *handler) fillProcesses(r *http.Request, p *templates.ProcessesPage) error {
	ctx := r.Context()
	defs, err := h.svc.Processes(ctx)
	if err != nil {
		return err
	}
	readable := h.readable(r)
	p.Items = p.Items[:0]
	for _, d := range defs {
		if !readable(d.Key) {
			continue
		}
		versions, err := h.svc.ProcessVersions(ctx, d.Key)
		if err != nil {
			return err
		}
		it := templates.ProcessItem{Key: d.Key, Name: d.Name, Latest: d.Version, DeployedAt: d.DeployedAt, Resource: d.ResourceName}
		for _, v := range versions {
			it.Versions = append(it.Versions, v.Version)
		}
		p.Items = append(p.Items, it)
	}
	return nil
}

// deploy registers uploaded files; a refused model is shown with every
// problem on the processes page.
func (h *handler) deploy(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseMultipartForm(h.opts.MaxUploadBytes); err != nil {
		msg := "The upload could not be read: send one or more .bpmn, .dmn or .form files."
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			msg = fmt.Sprintf("The upload is larger than %d bytes.", tooBig.Limit)
		}
		h.done(w, r, templates.RouteProcesses, "error", msg)
		return
	}
	var files []runtime.File
	for _, fh := range r.MultipartForm.File["file"] {
		f, err := fh.Open()
		if err != nil {
			h.actFailed(w, r, templates.RouteProcesses, err)
			return
		}
		data, err := io.ReadAll(f)
		f.Close()
		if err != nil {
			h.actFailed(w, r, templates.RouteProcesses, err)
			return
		}
		files = append(files, runtime.File{Name: fh.Filename, Content: data})
	}
	if len(files) == 0 {
		h.done(w, r, templates.RouteProcesses, "error", "Choose at least one .bpmn, .dmn or .form file to deploy.")
		return
	}
	res, err := h.svc.Deploy(h.deployGuarded(r), files)
	var de *runtime.DeploymentError
	if errors.As(err, &de) {
		p := templates.ProcessesPage{Layout: h.layout(w, r, "Processes", templates.NavProcesses)}
		p.Flash = templates.Flash{Kind: "error", Message: h.plain(r, err)}
		p.Refused = refusedModel(files, de.Problems)
		var drawn map[string]bool
		if p.Refused != nil {
			drawn = idsInDocument([]byte(p.Refused.XML), "")
		}
		for _, pr := range de.Problems {
			p.Problems = append(p.Problems, templates.DeployProblem{Resource: pr.Resource, Element: pr.Element, Rule: pr.Rule, Detail: pr.Detail,
				OnDiagram: p.Refused != nil && pr.Resource == p.Refused.Name && pr.Element != "" && drawn[pr.Element]})
		}
		if err := h.fillProcesses(r, &p); err != nil {
			h.failErr(w, r, err)
			return
		}
		h.render(w, r, http.StatusUnprocessableEntity, templates.Processes(p))
		return
	}
	if err != nil {
		h.actFailed(w, r, templates.RouteProcesses, err)
		return
	}
	var names, keys []string
	for _, ref := range res.Processes {
		names = append(names, fmt.Sprintf("%s v%d", ref.Key, ref.Version))
		keys = append(keys, "process "+ref.Key)
	}
	for _, ref := range res.Decisions {
		keys = append(keys, "decision "+ref.Key)
	}
	noteResource(r, strings.Join(keys, ", "))
	to := templates.RouteProcesses
	if len(res.Processes) == 1 {
		to = templates.ProcessURL(res.Processes[0].Key, res.Processes[0].Version)
	}
	h.done(w, r, to, "ok", "Deployed: "+strings.Join(names, ", ")+".")
}

// version reads a positive version from s; 0 (latest) when empty.
func version(s string) (int, bool) {
	if s == "" {
		return 0, true
	}
	v, err := strconv.Atoi(s)
	return v, err == nil && v > 0
}

func (h *handler) process(w http.ResponseWriter, r *http.Request) {
	key := chi.URLParam(r, "key")
	if c := r.URL.Query().Get("compare"); c != "" {
		h.compareRedirect(w, r, key, c)
		return
	}
	v, ok := version(r.URL.Query().Get("version"))
	if !ok {
		h.fail(w, r, http.StatusBadRequest, "The version must be a positive whole number.")
		return
	}
	p, err := h.processPage(w, r, key, v)
	if err != nil {
		h.failErr(w, r, err)
		return
	}
	h.render(w, r, http.StatusOK, templates.Process(p))
}

func (h *handler) processPage(w http.ResponseWriter, r *http.Request, key string, v int) (templates.ProcessPage, error) {
	ctx := r.Context()
	def, err := h.svc.Definition(ctx, key, v)
	if err != nil {
		if runtime.ErrorCode(err) == runtime.ENOTFOUND {
			if v > 0 {
				return templates.ProcessPage{}, runtime.Errorf(runtime.ENOTFOUND, "process %q has no version %d", key, v)
			}
			return templates.ProcessPage{}, runtime.Errorf(runtime.ENOTFOUND, "no process with the key %q is deployed", key)
		}
		return templates.ProcessPage{}, err
	}
	p := templates.ProcessPage{
		Layout:     h.layout(w, r, def.Key, templates.NavProcesses),
		Key:        def.Key,
		Name:       def.Name,
		Version:    def.Version,
		XMLURL:     templates.ProcessXMLURL(def.Key, def.Version),
		HasDiagram: hasDiagram(def.XML),
		CanStart:   h.may(r, auth.PermStart, auth.KindProcess, def.Key),
		CanMigrate: h.may(r, auth.PermOperate, auth.KindProcess, def.Key),
		CanEdit:    h.may(r, auth.PermDeploy, auth.KindProcess, def.Key),
	}
	versions, err := h.svc.ProcessVersions(ctx, key)
	if err != nil {
		return p, err
	}
	for _, d := range versions {
		p.Versions = append(p.Versions, d.Version)
	}
	suspended, err := h.svc.SuspendedVersions(ctx, key)
	if err != nil {
		return p, err
	}
	p.Suspended = slices.Contains(suspended, def.Version)
	o, err := h.outline(ctx, def.Key, def.Version)
	if err != nil {
		return p, err
	}
	if p.Live, err = h.processLive(ctx, def.Key, def.Version, o.Names()); err != nil {
		return p, err
	}
	// A live refresh redraws the token counts only: the statistics are
	// read for the whole page.
	if !isLivePoll(r) {
		if p.Insight, err = h.processInsight(r, def.Key, def.Version, p.Versions, o.Names()); err != nil {
			return p, err
		}
	}
	return p, nil
}

// hasDiagram reports whether a model carries a BPMNDI layout bpmn-js can draw.
func hasDiagram(xml []byte) bool {
	return bytes.Contains(xml, []byte("BPMNDiagram")) && bytes.Contains(xml, []byte("BPMNShape"))
}

// processLive counts the active tokens and open incidents per element over
// every running or failed instance of a version, exactly (the store's
// token index: one read, whatever the number of instances), naming the
// elements by names.
func (h *handler) processLive(ctx context.Context, key string, v int, names map[string]string) (templates.ProcessLive, error) {
	var live templates.ProcessLive
	for _, status := range []string{runtime.StatusFailed, runtime.StatusRunning} {
		total, err := h.countInstances(ctx, runtime.InstanceFilter{ProcessKey: key, ProcessVersion: v, Status: status})
		if err != nil {
			return live, err
		}
		live.Running = addTotals(live.Running, total)
	}
	rows, err := h.svc.ElementCounts(ctx, key, v)
	if err != nil {
		return live, err
	}
	counts := make(map[string]*templates.ElementCount, len(rows))
	for _, r := range rows {
		counts[r.NodeID] = &templates.ElementCount{NodeID: r.NodeID, Active: r.Tokens, Incidents: r.Incidents}
	}
	live.Elements = sortedCounts(counts, names)
	live.State = stateJSON(live.Elements, false, nil)
	return live, nil
}

// sortedCounts lists the counts by element id, each with the element's
// name.
func sortedCounts(m map[string]*templates.ElementCount, names map[string]string) []templates.ElementCount {
	out := make([]templates.ElementCount, 0, len(m))
	for _, c := range m {
		c.Name = names[c.NodeID]
		out = append(out, *c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].NodeID < out[j].NodeID })
	return out
}

// stateJSON is the overlay data cockpit.js draws on the diagram; partial
// marks token counts that are lower bounds (counted over a page of tokens);
// path is the path an instance took (nil on a process page).
func stateJSON(els []templates.ElementCount, partial bool, path *pathTaken) string {
	type el struct {
		ID             string `json:"id"`
		Active         int    `json:"active"`
		Incidents      int    `json:"incidents"`
		ChildIncidents int    `json:"childIncidents"`
		Candidates     int    `json:"candidates,omitempty"`
	}
	out := struct {
		Elements []el       `json:"elements"`
		Partial  bool       `json:"partial,omitempty"`
		Path     *pathTaken `json:"path,omitempty"`
	}{Elements: []el{}, Partial: partial, Path: path}
	for _, e := range els {
		out.Elements = append(out.Elements, el{ID: e.NodeID, Active: e.Active, Incidents: e.Incidents, ChildIncidents: e.ChildIncidents, Candidates: e.Candidates})
	}
	b, _ := json.Marshal(out)
	return string(b)
}

// processXML serves the deployed XML the diagram is drawn from; with
// ?download=1 as an attachment named by the key and version.
func (h *handler) processXML(w http.ResponseWriter, r *http.Request) {
	v, ok := version(chi.URLParam(r, "version"))
	if !ok || v == 0 {
		h.fail(w, r, http.StatusBadRequest, "The version must be a positive whole number.")
		return
	}
	download := r.URL.Query().Get("download")
	if download != "" && download != "1" {
		h.fail(w, r, http.StatusBadRequest, "download must be 1 to save the XML as a file, or absent to show it.")
		return
	}
	def, err := h.svc.Definition(r.Context(), chi.URLParam(r, "key"), v)
	if err != nil {
		h.failErr(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "application/xml; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	// The XML is verbatim and may carry XHTML (a <script> in documentation is
	// valid BPMN): a browser opening the XML link must run none of it in the
	// cockpit's origin. cockpit.js's fetch of the document is unaffected.
	w.Header().Set("Content-Security-Policy", "default-src 'none'; sandbox")
	if download == "1" {
		w.Header().Set("Content-Disposition", mime.FormatMediaType("attachment",
			map[string]string{"filename": templates.ProcessFileName(def.Key, def.Version, false)}))
	}
	_, _ = w.Write(def.XML)
}

// start starts an instance from the start form; a refused start shows the
// form again with what was typed.
func (h *handler) start(w http.ResponseWriter, r *http.Request) {
	key := chi.URLParam(r, "key")
	form := templates.StartForm{BusinessKey: strings.TrimSpace(r.PostFormValue("businessKey")), Variables: r.PostFormValue("variables")}
	v, ok := version(r.PostFormValue("version"))
	refuse := func(status int, msg string) {
		p, err := h.processPage(w, r, key, v)
		if err != nil {
			h.failErr(w, r, err)
			return
		}
		p.Start = form
		p.Flash = templates.Flash{Kind: "error", Message: msg}
		h.render(w, r, status, templates.Process(p))
	}
	if !ok {
		refuse(http.StatusBadRequest, "The version must be a positive whole number.")
		return
	}
	vars, err := parseVariables(form.Variables)
	if err != nil {
		refuse(http.StatusBadRequest, err.Error())
		return
	}
	inst, err := h.svc.StartInstance(r.Context(), runtime.StartRequest{ProcessKey: key, Version: v, BusinessKey: form.BusinessKey, Variables: vars})
	if err != nil {
		if runtime.ErrorCode(err) == runtime.EINTERNAL {
			h.actFailed(w, r, templates.ProcessURL(key, v), err)
			return
		}
		refuse(statusOf(err), h.plain(r, err))
		return
	}
	noteResource(r, "process "+key+" instance "+string(inst.ID))
	h.done(w, r, templates.InstanceURL(string(inst.ID)), "ok", fmt.Sprintf("Started instance %s of %s v%d; it is %s.", inst.ID, inst.ProcessKey, inst.ProcessVersion, inst.Status))
}

// parseVariables reads a JSON object typed into a form (empty = none);
// numbers stay json.Number, as the JSON API keeps them.
func parseVariables(s string) (map[string]any, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, nil
	}
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("The variables are not valid JSON: %v. Write an object such as {\"amount\": 42}.", err)
	}
	if dec.More() {
		return nil, errors.New("The variables must be one JSON object; there is more text after it.")
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, errors.New("The variables must be a JSON object such as {\"amount\": 42}, not a list or a single value.")
	}
	return m, nil
}

// deployGuarded returns r's context naming the person as the deployer and
// with a deploy guard that refuses a deployment declaring a process or
// decision key they may not deploy, or whose models reach anything they
// may not reach (nothing is stored then), as the JSON API does.
func (h *handler) deployGuarded(r *http.Request) context.Context {
	ctx := r.Context()
	if !h.authOn() {
		return ctx
	}
	c := h.caller(r)
	ctx = runtime.WithDeployer(ctx, h.opts.Access.Deployer(c))
	if c.Unrestricted() {
		return ctx
	}
	return runtime.WithDeployGuard(ctx, func(plan runtime.DeploymentPlan) error {
		for _, set := range []struct {
			kind auth.ResourceKind
			keys []string
		}{{auth.KindProcess, plan.Processes}, {auth.KindDecision, plan.Decisions}} {
			for _, k := range set.keys {
				if !c.Allowed(auth.PermDeploy, set.kind, k) {
					return runtime.Errorf(runtime.EFORBIDDEN, "%s may not deploy %s %q; nothing was registered", c.User, set.kind, k)
				}
			}
		}
		return c.ReachRefused(plan.Reaches)
	})
}

// suspendVersion suspends (or resumes) a process version, with its
// instances when the form asks, and returns to the version's page.
func (h *handler) suspendVersion(suspend bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		key := chi.URLParam(r, "key")
		v, err := strconv.Atoi(chi.URLParam(r, "version"))
		to := templates.ProcessURL(key, v)
		if err != nil || v < 1 {
			h.actFailed(w, r, templates.ProcessURL(key, 0), runtime.Errorf(runtime.EINVALID, "version must be a positive integer"))
			return
		}
		req := runtime.VersionSuspension{Key: key, Version: v, IncludeInstances: r.PostFormValue("includeInstances") == "on"}
		act, verb := h.svc.ResumeVersion, "resumed"
		if suspend {
			act, verb = h.svc.SuspendVersion, "suspended"
		}
		n, err := act(r.Context(), req)
		if err != nil {
			h.actFailed(w, r, to, err)
			return
		}
		msg := fmt.Sprintf("Version %d was %s.", v, verb)
		if req.IncludeInstances {
			msg = fmt.Sprintf("Version %d was %s, with %d of its instances.", v, verb, n)
		}
		h.done(w, r, to, "ok", msg)
	}
}
