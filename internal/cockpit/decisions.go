package cockpit

import (
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/gobpm/gobpm/internal/auth"
	"github.com/gobpm/gobpm/internal/runtime"
	"github.com/gobpm/gobpm/web/templates"
)

// decisionReadable returns whether the person may read a decision key.
func (h *handler) decisionReadable(r *http.Request) func(key string) bool {
	if !h.authOn() || h.caller(r).Unrestricted() {
		return func(string) bool { return true }
	}
	return h.caller(r).Filter(auth.PermRead, auth.KindDecision).Match
}

func (h *handler) decisions(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	p := templates.DecisionsPage{Layout: h.layout(w, r, "Decisions", templates.NavDecisions)}
	defs, err := h.svc.Decisions(ctx)
	if err != nil {
		h.failErr(w, r, err)
		return
	}
	readable := h.decisionReadable(r)
	for _, d := range defs {
		if !readable(d.Key) {
			continue
		}
		versions, err := h.svc.DecisionVersions(ctx, d.Key)
		if err != nil {
			h.failErr(w, r, err)
			return
		}
		it := templates.ProcessItem{Key: d.Key, Name: d.Name, Latest: d.Version, DeployedAt: d.DeployedAt, Resource: d.ResourceName}
		for _, v := range versions {
			it.Versions = append(it.Versions, v.Version)
		}
		p.Items = append(p.Items, it)
	}
	h.render(w, r, http.StatusOK, templates.Decisions(p))
}

func (h *handler) decision(w http.ResponseWriter, r *http.Request) {
	v, ok := version(r.URL.Query().Get("version"))
	if !ok {
		h.fail(w, r, http.StatusBadRequest, "The version must be a positive whole number.")
		return
	}
	p, err := h.decisionPage(w, r, chi.URLParam(r, "key"), v)
	if err != nil {
		h.failErr(w, r, err)
		return
	}
	h.render(w, r, http.StatusOK, templates.Decision(p))
}

// decisionPage reads one version of a decision (0: the latest).
func (h *handler) decisionPage(w http.ResponseWriter, r *http.Request, key string, v int) (templates.DecisionPage, error) {
	ctx := r.Context()
	def, err := h.svc.DecisionDefinition(ctx, key, v)
	if err != nil {
		return templates.DecisionPage{}, err
	}
	versions, err := h.svc.DecisionVersions(ctx, key)
	if err != nil {
		return templates.DecisionPage{}, err
	}
	outline, err := h.svc.DecisionOutline(ctx, def.Key, def.Version)
	if err != nil {
		return templates.DecisionPage{}, err
	}
	p := templates.DecisionPage{Layout: h.layout(w, r, "Decision "+key, templates.NavDecisions), Key: def.Key, Name: def.Name,
		Version: def.Version, Resource: def.ResourceName, XMLURL: templates.DecisionXMLURL(def.Key, def.Version),
		CanEvaluate: h.may(r, auth.PermStart, auth.KindDecision, def.Key)}
	for _, in := range outline.Inputs {
		p.Inputs = append(p.Inputs, templates.DecisionInput{Name: in.Name, Label: in.Label, Type: in.Type})
	}
	for _, d := range versions {
		p.Versions = append(p.Versions, d.Version)
	}
	p.Latest = len(versions) > 0 && versions[len(versions)-1].Version == def.Version
	return p, nil
}

// decisionXML serves a decision version's DMN document, sandboxed as the
// process XML is.
func (h *handler) decisionXML(w http.ResponseWriter, r *http.Request) {
	v, ok := version(chi.URLParam(r, "version"))
	if !ok || v == 0 {
		h.fail(w, r, http.StatusBadRequest, "The version must be a positive whole number.")
		return
	}
	def, err := h.svc.DecisionDefinition(r.Context(), chi.URLParam(r, "key"), v)
	if err != nil {
		h.failErr(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "application/xml; charset=utf-8")
	w.Header().Set("Content-Security-Policy", "default-src 'none'; sandbox")
	_, _ = w.Write(def.XML)
}

// evaluate evaluates the version of a decision the page showed (the form's
// version; the latest without one) with the form's typed fields and JSON,
// and shows the result and the matched rules.
func (h *handler) evaluate(w http.ResponseWriter, r *http.Request) {
	key := chi.URLParam(r, "key")
	v, ok := version(r.PostFormValue("version"))
	if !ok {
		h.fail(w, r, http.StatusBadRequest, "The version must be a positive whole number.")
		return
	}
	p, err := h.decisionPage(w, r, key, v)
	if err != nil {
		h.failErr(w, r, err)
		return
	}
	p.Variables = r.PostFormValue("variables")
	vars, err := parseVariables(p.Variables)
	if err != nil {
		p.Result = &templates.DecisionOutcome{Error: err.Error()}
		h.render(w, r, http.StatusBadRequest, templates.Decision(p))
		return
	}
	if vars == nil {
		vars = map[string]any{}
	}
	for i, in := range p.Inputs {
		raw := r.PostFormValue("input." + in.Name)
		p.Inputs[i].Value = raw
		val, ok, err := typedInput(in.Type, raw)
		if err != nil {
			p.Result = &templates.DecisionOutcome{Error: in.Label + ": " + err.Error()}
			h.render(w, r, http.StatusBadRequest, templates.Decision(p))
			return
		}
		if ok {
			vars[in.Name] = val
		}
	}
	res, err := h.svc.EvaluateDecision(r.Context(), key, p.Version, vars)
	if err != nil {
		noteStatus(r, statusOf(err))
		p.Result = &templates.DecisionOutcome{Error: h.plain(r, err)}
		h.render(w, r, statusOf(err), templates.Decision(p))
		return
	}
	out, _ := json.MarshalIndent(res.Result, "", "  ")
	p.Result = &templates.DecisionOutcome{Version: res.Version, Result: string(out), Matched: res.MatchedRules}
	h.render(w, r, http.StatusOK, templates.Decision(p))
}

// typedInput reads a form field as its input's type: a number stays a
// number, a boolean a boolean; an empty field sets nothing.
func typedInput(typ, raw string) (any, bool, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return nil, false, nil
	}
	switch typ {
	case runtime.InputNumber:
		if _, err := strconv.ParseFloat(raw, 64); err != nil {
			return nil, false, errors.New("not a number")
		}
		return json.Number(raw), true, nil
	case runtime.InputBoolean:
		return raw == "true", true, nil
	}
	return raw, true, nil
}
