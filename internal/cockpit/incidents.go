package cockpit

import (
	"net/http"
	"sort"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/gobpm/gobpm/internal/runtime"
	"github.com/gobpm/gobpm/web/templates"
)

func (h *handler) incidents(w http.ResponseWriter, r *http.Request) {
	p := templates.IncidentsPage{Layout: h.layout(w, r, "Incidents", templates.NavIncidents)}
	keys := map[runtime.InstanceID]string{}
	open, err := h.readableIncidents(r, keys)
	if err != nil {
		h.failErr(w, r, err)
		return
	}
	sort.SliceStable(open, func(i, j int) bool { return open[i].CreatedAt.After(open[j].CreatedAt) })
	for _, in := range open {
		p.Live.Items = append(p.Live.Items, h.incidentItem(r, in, keys))
	}
	h.render(w, r, http.StatusOK, templates.Incidents(p))
}

func (h *handler) retry(w http.ResponseWriter, r *http.Request) {
	to := localPath(r.PostFormValue("return"), templates.RouteIncidents)
	retries := 1
	if s := strings.TrimSpace(r.PostFormValue("retries")); s != "" {
		n, ok := version(s)
		if !ok {
			h.done(w, r, to, "error", "Retries must be a whole number of at least 1.")
			return
		}
		retries = n
	}
	in, err := h.svc.RetryIncident(r.Context(), chi.URLParam(r, "id"), retries)
	if err != nil {
		h.actFailed(w, r, to, err)
		return
	}
	h.done(w, r, to, "ok", "Retried the incident at "+in.NodeID+".")
}
