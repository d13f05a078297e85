package cockpit

import (
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/gobpm/gobpm/internal/runtime"
	"github.com/gobpm/gobpm/web/templates"
)

// maxModelBytes caps a model the modeler deploys.
const maxModelBytes = 8 << 20

// modeler opens a deployed version in the bpmn-js Modeler.
func (h *handler) modeler(w http.ResponseWriter, r *http.Request) {
	key := chi.URLParam(r, "key")
	v, ok := version(r.URL.Query().Get("version"))
	if !ok {
		h.fail(w, r, http.StatusBadRequest, "The version must be a positive whole number.")
		return
	}
	def, err := h.svc.Definition(r.Context(), key, v)
	if err != nil {
		h.failErr(w, r, err)
		return
	}
	p := templates.ModelerPage{Layout: h.layout(w, r, "Edit "+key, templates.NavProcesses), Key: def.Key, Name: def.Name,
		Version: def.Version, XMLURL: templates.ProcessXMLURL(def.Key, def.Version), Resource: def.ResourceName,
		DeployURL: templates.ProcessEditURL(def.Key, 0), HasDiagram: hasDiagram(def.XML)}
	h.render(w, r, http.StatusOK, templates.Modeler(p))
}

// modelerProblem is a deployment problem as the modeler marks it.
type modelerProblem struct {
	Element string `json:"element"`
	Rule    string `json:"rule"`
	Detail  string `json:"detail"`
}

// modelerAnswer is what the modeler's deploy answers (JSON): where the new
// version is, or the problems on the elements they name.
type modelerAnswer struct {
	Message  string           `json:"message"`
	URL      string           `json:"url,omitempty"`
	Problems []modelerProblem `json:"problems,omitempty"`
}

// deployModel deploys the modeler's document as the process's next
// version (the same deployment and deploy right as an upload) and answers
// in JSON for the modeler page's script.
func (h *handler) deployModel(w http.ResponseWriter, r *http.Request) {
	key := chi.URLParam(r, "key")
	answer := func(status int, a modelerAnswer) {
		noteStatus(r, status)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_ = json.NewEncoder(w).Encode(a)
	}
	xml := r.PostFormValue("xml")
	switch {
	case strings.TrimSpace(xml) == "":
		answer(http.StatusBadRequest, modelerAnswer{Message: "The model is empty."})
		return
	case len(xml) > maxModelBytes:
		answer(http.StatusRequestEntityTooLarge, modelerAnswer{Message: "The model is too large to deploy from here."})
		return
	}
	if !idsInDocument([]byte(xml), "process")[key] {
		// Checked first: deploying would register the other key.
		answer(http.StatusUnprocessableEntity, modelerAnswer{Message: "The model no longer declares process “" + key + "”: keep its id to deploy a new version of it."})
		return
	}
	res, err := h.svc.Deploy(h.deployGuarded(r), []runtime.File{{Name: key + ".bpmn", Content: []byte(xml)}})
	var de *runtime.DeploymentError
	if errors.As(err, &de) {
		a := modelerAnswer{Message: h.plain(r, err)}
		for _, pr := range de.Problems {
			a.Problems = append(a.Problems, modelerProblem{Element: pr.Element, Rule: pr.Rule, Detail: pr.Detail})
		}
		answer(http.StatusUnprocessableEntity, a)
		return
	}
	if err != nil {
		answer(statusOf(err), modelerAnswer{Message: h.plain(r, err)})
		return
	}
	var keys []string
	to := modelerAnswer{Message: "Deployed.", URL: templates.ProcessURL(key, 0)}
	for _, ref := range res.Processes {
		keys = append(keys, "process "+ref.Key)
		if ref.Key == key {
			to = modelerAnswer{Message: "Deployed " + key + " v" + strconv.Itoa(ref.Version) + ".", URL: templates.ProcessURL(key, ref.Version)}
		}
	}
	noteResource(r, strings.Join(keys, ", "))
	h.flash(w, r, "ok", strings.Replace(to.Message, "Deployed ", "Deployed from the modeler: ", 1))
	answer(http.StatusOK, to)
}
