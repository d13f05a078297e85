package cockpit

import (
	"fmt"
	"net/http"
	"slices"
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

// migrateSelected takes the instances selected in the list to the
// migration page of their process version, where the person chooses the
// target version and the mapping, validates and runs the plan for just
// them. A selection of several processes or versions, or with instances
// that do not exist or the person may not operate, is refused with what
// it holds, not trimmed silently.
func (h *handler) migrateSelected(w http.ResponseWriter, r *http.Request) {
	to := localPath(r.PostFormValue("return"), templates.RouteInstances)
	ids := r.PostForm["instance"]
	switch {
	case len(ids) == 0:
		h.done(w, r, to, "error", "Select the instances to migrate first.")
		return
	case len(ids) > maxBulkInstances:
		h.done(w, r, to, "error", fmt.Sprintf("At most %d instances can be selected at once.", maxBulkInstances))
		return
	}
	noteResource(r, "instances "+strings.Join(ids, ", "))
	key, version, problem, err := h.selectionVersion(r, ids)
	if err != nil {
		h.actFailed(w, r, to, err)
		return
	}
	if problem != "" {
		h.done(w, r, to, "error", problem)
		return
	}
	versions, err := h.svc.ProcessVersions(r.Context(), key)
	if err != nil {
		h.actFailed(w, r, to, err)
		return
	}
	if len(versions) < 2 {
		h.done(w, r, to, "error", fmt.Sprintf("Process %s has only one version: deploy a changed model first.", key))
		return
	}
	http.Redirect(w, r, templates.MigrateSelectedURL(key, version, ids), http.StatusSeeOther)
}

// selectionVersion returns the one process key and version of the
// instances ids, or a sentence saying why the selection has none: an
// unknown instance, one the person may not operate, or instances of
// several processes or versions (counted by version).
func (h *handler) selectionVersion(r *http.Request, ids []string) (key string, version int, problem string, err error) {
	want := make([]runtime.InstanceID, len(ids))
	for i, s := range ids {
		want[i] = runtime.InstanceID(s)
	}
	rows, err := h.svc.InstanceRows(r.Context(), want)
	if err != nil {
		return "", 0, "", err
	}
	count := map[string]int{}
	var (
		groups  []string
		missing []string
	)
	for _, id := range want {
		row, ok := rows[id]
		if !ok {
			missing = append(missing, string(id))
			continue
		}
		if !h.may(r, auth.PermOperate, auth.KindProcess, row.ProcessKey) {
			return "", 0, fmt.Sprintf("You may not operate instances of %s, and the selection holds some.", row.ProcessKey), nil
		}
		g := fmt.Sprintf("%s v%d", row.ProcessKey, row.ProcessVersion)
		if count[g] == 0 {
			groups = append(groups, g)
		}
		count[g]++
		key, version = row.ProcessKey, row.ProcessVersion
	}
	switch {
	case len(missing) > 0:
		return "", 0, "Not migrated: these instances do not exist: " + strings.Join(missing, ", ") + ".", nil
	case len(groups) > 1:
		slices.Sort(groups)
		parts := make([]string, len(groups))
		for i, g := range groups {
			parts[i] = fmt.Sprintf("%d of %s", count[g], g)
		}
		return "", 0, "Migrate selected moves instances of one process version; the selection holds " + strings.Join(parts, ", ") +
			". Select instances of one version only (filter the list by process and version).", nil
	}
	return key, version, "", nil
}
