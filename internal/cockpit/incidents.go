package cockpit

import (
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/gobpm/gobpm/internal/auth"
	"github.com/gobpm/gobpm/internal/runtime"
	"github.com/gobpm/gobpm/web/templates"
)

// incidentAge reads the incidents page's age filter: open for longer
// than an hour, a day or a week ("" is any age, 0).
func incidentAge(s string) (time.Duration, bool) {
	switch s {
	case "":
		return 0, true
	case templates.AgeHour:
		return time.Hour, true
	case templates.AgeDay:
		return 24 * time.Hour, true
	case templates.AgeWeek:
		return 7 * 24 * time.Hour, true
	}
	return 0, false
}

// maxBulkRetry caps the incidents one bulk retry resolves.
const maxBulkRetry = 500

func (h *handler) incidents(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	f := templates.IncidentFilter{
		Process: strings.TrimSpace(q.Get("process")),
		Root:    strings.TrimSpace(q.Get("root")),
		Under:   strings.TrimSpace(q.Get("under")),
		Element: strings.TrimSpace(q.Get("element")),
		Kind:    strings.TrimSpace(q.Get("kind")),
		Age:     strings.TrimSpace(q.Get("age")),
		Message: q.Get("message"),
	}
	age, ok := incidentAge(f.Age)
	if !ok {
		h.fail(w, r, http.StatusBadRequest, "The age filter must be 1h, 1d or 7d.")
		return
	}
	p := templates.IncidentsPage{Layout: h.layout(w, r, "Incidents", templates.NavIncidents), Filter: f}
	open, err := h.readableIncidents(r)
	if err != nil {
		h.failErr(w, r, err)
		return
	}
	now := h.svc.Clock().Now
	keys, kinds := map[string]bool{}, map[string]bool{}
	rows := open.rows
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].CreatedAt.After(rows[j].CreatedAt) })
	groups := map[string]*templates.IncidentGroup{}
	for _, in := range rows {
		item := h.incidentItem(r, in, open.trees)
		keys[item.ProcessKey], kinds[in.Kind] = true, true
		if item.RootKey != "" {
			keys[item.RootKey] = true
		}
		anyMessage := f
		anyMessage.Message = ""
		if !incidentMatches(anyMessage, item, open.trees[in.InstanceID], age, now) {
			continue
		}
		addToGroup(groups, f, in)
		if f.Message != "" && in.Message != f.Message {
			continue
		}
		p.Live.Items = append(p.Live.Items, item)
		p.Live.CanRetry = p.Live.CanRetry || item.CanRetry
	}
	p.Live.Total = len(rows)
	p.Live.Groups = sortedGroups(groups)
	if err := h.nameIncidents(r.Context(), p.Live.Items); err != nil {
		h.failErr(w, r, err)
		return
	}
	p.ProcessKeys, p.Kinds = sortedKeys(keys), sortedKeys(kinds)
	h.render(w, r, http.StatusOK, templates.Incidents(p))
}

// addToGroup counts incident in in the group of its error message; f is
// the page's filter, which the group's link keeps.
func addToGroup(groups map[string]*templates.IncidentGroup, f templates.IncidentFilter, in runtime.IncidentRow) {
	g := groups[in.Message]
	if g == nil {
		f.Message = in.Message
		g = &templates.IncidentGroup{Message: in.Message, URL: templates.IncidentsURL(f)}
		groups[in.Message] = g
	}
	g.Count++
	if !slices.Contains(g.Kinds, in.Kind) {
		g.Kinds = append(g.Kinds, in.Kind)
		slices.Sort(g.Kinds)
	}
}

// sortedGroups lists the groups, the largest first (then by message).
func sortedGroups(groups map[string]*templates.IncidentGroup) []templates.IncidentGroup {
	out := make([]templates.IncidentGroup, 0, len(groups))
	for _, g := range groups {
		out = append(out, *g)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Count != out[j].Count {
			return out[i].Count > out[j].Count
		}
		return out[i].Message < out[j].Message
	})
	return out
}

// incidentMatches reports whether an incident passes the filter: process
// is its instance's process, root the process at the root of its call tree
// (its own when nothing called it), under a process of its instance or of
// a caller above it (tree is its call tree), element a part of its element
// id, age how long it has been open at least, message its exact message.
func incidentMatches(f templates.IncidentFilter, in templates.IncidentItem, tree runtime.IncidentTree, age time.Duration, now time.Time) bool {
	root := in.RootKey
	if in.RootID == "" {
		root = in.ProcessKey
	}
	under := f.Under == "" || in.ProcessKey == f.Under ||
		slices.ContainsFunc(tree.Path, func(t runtime.TreeInstance) bool { return t.Key == f.Under })
	switch {
	case f.Process != "" && in.ProcessKey != f.Process,
		f.Root != "" && root != f.Root,
		!under,
		f.Message != "" && in.Message != f.Message,
		f.Element != "" && !strings.Contains(strings.ToLower(in.NodeID), strings.ToLower(f.Element)),
		f.Kind != "" && in.Kind != f.Kind,
		age > 0 && now.Sub(in.CreatedAt) < age:
		return false
	}
	return true
}

// sortedKeys returns the non-empty keys of a set in order.
func sortedKeys(set map[string]bool) []string {
	var out []string
	for k := range set {
		if k != "" {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

func (h *handler) retry(w http.ResponseWriter, r *http.Request) {
	to := localPath(r.PostFormValue("return"), templates.RouteIncidents)
	retries, ok := retriesField(r)
	if !ok {
		h.done(w, r, to, "error", "Retries must be a whole number of at least 1.")
		return
	}
	in, err := h.svc.RetryIncident(r.Context(), chi.URLParam(r, "id"), retries)
	if err != nil {
		h.actFailed(w, r, to, err)
		return
	}
	h.done(w, r, to, "ok", "Retried the incident at "+in.NodeID+".")
}

// retriesField reads the retries a retry gives the job (1 when empty).
func retriesField(r *http.Request) (int, bool) {
	s := strings.TrimSpace(r.PostFormValue("retries"))
	if s == "" {
		return 1, true
	}
	return version(s)
}

// retryMany retries the selected incidents, each checked as its own Retry
// would be: one refused or already resolved does not stop the others,
// and the message says which were not retried and why.
func (h *handler) retryMany(w http.ResponseWriter, r *http.Request) {
	to := localPath(r.PostFormValue("return"), templates.RouteIncidents)
	retries, ok := retriesField(r)
	if !ok {
		h.done(w, r, to, "error", "Retries must be a whole number of at least 1.")
		return
	}
	ids := r.PostForm["incident"]
	switch {
	case len(ids) == 0:
		h.done(w, r, to, "error", "Select the incidents to retry first.")
		return
	case len(ids) > maxBulkRetry:
		h.done(w, r, to, "error", fmt.Sprintf("At most %d incidents can be retried at once.", maxBulkRetry))
		return
	}
	noteResource(r, "incidents "+strings.Join(ids, ", "))
	ctx := r.Context()
	var retried int
	var refused []string
	for _, id := range ids {
		key, err := h.svc.IncidentProcessKey(ctx, id)
		if err == nil && !h.may(r, auth.PermOperate, auth.KindProcess, key) {
			err = &runtime.Error{Code: runtime.EFORBIDDEN, Message: "you may not operate instances of " + key}
		}
		if err == nil {
			_, err = h.svc.RetryIncident(ctx, id, retries)
		}
		if err != nil {
			refused = append(refused, id+": "+h.plain(r, err))
			continue
		}
		retried++
	}
	msg := fmt.Sprintf("Retried %d of %d incidents.", retried, len(ids))
	if len(refused) == 0 {
		h.done(w, r, to, "ok", msg)
		return
	}
	h.done(w, r, to, "error", msg+" Not retried: "+strings.Join(refused, "; ")+".")
}
