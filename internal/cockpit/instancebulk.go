package cockpit

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/gobpm/gobpm/internal/auth"
	"github.com/gobpm/gobpm/internal/runtime"
	"github.com/gobpm/gobpm/web/templates"
)

// maxBulkInstances caps the instances one selection acts on.
const maxBulkInstances = 500

// cancelSelected cancels the instances selected in the list, each checked
// as its own cancel would be (operate on its process): one refused or
// already ended does not stop the others, and the message says which were
// not cancelled and why.
func (h *handler) cancelSelected(w http.ResponseWriter, r *http.Request) {
	h.eachSelected(w, r, "cancelled", func(id runtime.InstanceID) error {
		_, err := h.svc.Cancel(r.Context(), id)
		return err
	})
}

// retrySelected retries every open incident of the selected instances,
// each instance checked as its own retries would be.
func (h *handler) retrySelected(w http.ResponseWriter, r *http.Request) {
	retries, ok := retriesField(r)
	to := localPath(r.PostFormValue("return"), templates.RouteInstances)
	if !ok {
		h.done(w, r, to, "error", "Retries must be a whole number of at least 1.")
		return
	}
	h.eachSelected(w, r, "retried", func(id runtime.InstanceID) error {
		incidents, err := h.svc.Incidents(r.Context(), id, true)
		if err != nil {
			return err
		}
		if len(incidents) == 0 {
			return runtime.Errorf(runtime.ECONFLICT, "it has no open incident")
		}
		for _, in := range incidents {
			if _, err := h.svc.RetryIncident(r.Context(), in.ID, retries); err != nil {
				return err
			}
		}
		return nil
	})
}

// eachSelected does act on every instance of the form's "instance"
// fields the person may operate, and returns to the list with how many
// were done (the verb) and why the others were not.
func (h *handler) eachSelected(w http.ResponseWriter, r *http.Request, verb string, act func(runtime.InstanceID) error) {
	to := localPath(r.PostFormValue("return"), templates.RouteInstances)
	ids := r.PostForm["instance"]
	switch {
	case len(ids) == 0:
		h.done(w, r, to, "error", "Select the instances first.")
		return
	case len(ids) > maxBulkInstances:
		h.done(w, r, to, "error", fmt.Sprintf("At most %d instances can be selected at once.", maxBulkInstances))
		return
	}
	noteResource(r, "instances "+strings.Join(ids, ", "))
	var (
		n       int
		refused []string
	)
	for _, s := range ids {
		id := runtime.InstanceID(s)
		key, err := h.svc.InstanceProcessKey(r.Context(), id)
		if err == nil && !h.may(r, auth.PermOperate, auth.KindProcess, key) {
			err = &runtime.Error{Code: runtime.EFORBIDDEN, Message: "you may not operate instances of " + key}
		}
		if err == nil {
			err = act(id)
		}
		if err != nil {
			refused = append(refused, s+": "+h.plain(r, err))
			continue
		}
		n++
	}
	msg := fmt.Sprintf("%s %d of %d instances.", strings.ToUpper(verb[:1])+verb[1:], n, len(ids))
	if len(refused) == 0 {
		h.done(w, r, to, "ok", msg)
		return
	}
	h.done(w, r, to, "error", msg+" Not "+verb+": "+strings.Join(refused, "; ")+".")
}
