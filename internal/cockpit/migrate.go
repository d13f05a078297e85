package cockpit

import (
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/gobpm/gobpm/internal/auth"
	"github.com/gobpm/gobpm/internal/runtime"
	"github.com/gobpm/gobpm/web/templates"
)

// migratePage plans a migration of a process's instances: the versions
// (from defaults to the version the process page showed, to the latest
// other one), the mapping of every source element (the same id by
// default, or what the form chose) and the validation of every running or
// failed instance of the source version. It changes nothing.
func (h *handler) migratePage(w http.ResponseWriter, r *http.Request) {
	key := chi.URLParam(r, "key")
	p, status, err := h.migrateForm(w, r, key, r.URL.Query())
	if err != nil {
		h.failErr(w, r, err)
		return
	}
	h.render(w, r, status, templates.Migrate(p))
}

// startMigration runs the plan the migration page's Run form posts: on
// success it goes to the batch's progress page, else the page shows again
// with the reasons.
func (h *handler) startMigration(w http.ResponseWriter, r *http.Request) {
	key := chi.URLParam(r, "key")
	if err := r.ParseForm(); err != nil {
		h.fail(w, r, http.StatusBadRequest, "The form could not be read.")
		return
	}
	plan, err := h.migrationPlan(r, key, r.PostForm)
	if err != nil {
		h.failErr(w, r, err)
		return
	}
	view, _, err := h.svc.StartMigration(r.Context(), plan)
	if err != nil {
		if runtime.ErrorCode(err) == runtime.EINTERNAL {
			h.actFailed(w, r, templates.MigrateURL(key, plan.SourceVersion, plan.TargetVersion), err)
			return
		}
		noteStatus(r, statusOf(err))
		p, _, ferr := h.migrateForm(w, r, key, r.PostForm)
		if ferr != nil {
			h.failErr(w, r, ferr)
			return
		}
		p.Flash = templates.Flash{Kind: "error", Message: h.plain(r, err)}
		h.render(w, r, statusOf(err), templates.Migrate(p))
		return
	}
	h.done(w, r, templates.MigrationURL(view.ID), "ok",
		fmt.Sprintf("Migrating %d instances of %s from v%d to v%d.", view.Total, key, plan.SourceVersion, plan.TargetVersion))
}

// migrationPlan reads the versions and the mapping ("map:<source id>"
// fields naming a target id other than the source's own) of a form.
func (h *handler) migrationPlan(r *http.Request, key string, form url.Values) (runtime.MigrationPlan, error) {
	from, ok1 := version(form.Get("from"))
	to, ok2 := version(form.Get("to"))
	if !ok1 || !ok2 || from == 0 || to == 0 {
		return runtime.MigrationPlan{}, runtime.Errorf(runtime.EINVALID, "choose the version to migrate from and the one to migrate to")
	}
	plan := runtime.MigrationPlan{ProcessKey: key, SourceVersion: from, TargetVersion: to, InstanceIDs: selectedIDs(form)}
	for name, vals := range form {
		src, ok := strings.CutPrefix(name, templates.MappingField(""))
		if !ok || src == "" || len(vals) == 0 || vals[0] == "" || vals[0] == src {
			continue
		}
		if plan.Mapping == nil {
			plan.Mapping = map[string]string{}
		}
		plan.Mapping[src] = vals[0]
	}
	return plan, nil
}

// migrateForm builds the migration page for the versions and mapping of
// form; the status is 200 unless the versions are unusable.
func (h *handler) migrateForm(w http.ResponseWriter, r *http.Request, key string, form url.Values) (templates.MigratePage, int, error) {
	ctx := r.Context()
	p := templates.MigratePage{Layout: h.layout(w, r, "Migrate "+key, templates.NavProcesses), Key: key}
	versions, err := h.svc.ProcessVersions(ctx, key)
	if err != nil {
		return p, 0, err
	}
	for _, d := range versions {
		p.Versions = append(p.Versions, d.Version)
	}
	if len(p.Versions) < 2 {
		return p, 0, runtime.Errorf(runtime.ECONFLICT, "process %s has only one version: deploy a changed model first", key)
	}
	latest := p.Versions[len(p.Versions)-1]
	from, ok := version(form.Get("from"))
	if !ok || from == 0 || !slices.Contains(p.Versions, from) {
		from = p.Versions[len(p.Versions)-2]
	}
	to, ok := version(form.Get("to"))
	if !ok || to == 0 || to == from || !slices.Contains(p.Versions, to) {
		to = latest
		if to == from {
			to = p.Versions[len(p.Versions)-2]
		}
	}
	p.From, p.To = from, to
	p.Selected = form[templates.SelectedField]
	sources, err := h.svc.Elements(ctx, key, from)
	if err != nil {
		return p, 0, err
	}
	targets, err := h.svc.Elements(ctx, key, to)
	if err != nil {
		return p, 0, err
	}
	inTarget := map[string]bool{}
	for _, e := range targets {
		inTarget[e.ID] = true
		p.Targets = append(p.Targets, templates.ElementOption{ID: e.ID, Label: elementLabel(e)})
	}
	plan := runtime.MigrationPlan{ProcessKey: key, SourceVersion: from, TargetVersion: to, InstanceIDs: selectedIDs(form)}
	for _, e := range sources {
		row := templates.MappingRow{Source: templates.ElementOption{ID: e.ID, Label: elementLabel(e)}}
		chosen := form.Get(templates.MappingField(e.ID))
		switch {
		case chosen != "" && chosen != e.ID && inTarget[chosen]:
			row.Target = chosen
			if plan.Mapping == nil {
				plan.Mapping = map[string]string{}
			}
			plan.Mapping[e.ID] = chosen
		case inTarget[e.ID]:
			row.Target, row.Default = e.ID, true
		}
		p.Mapping = append(p.Mapping, row)
	}
	check, err := h.svc.CheckMigration(ctx, plan)
	if err != nil {
		return p, 0, err
	}
	for _, pr := range check.Plan {
		p.Plan = append(p.Plan, pr.Message)
	}
	ids := make([]runtime.InstanceID, 0, len(check.Instances))
	for _, in := range check.Instances {
		ids = append(ids, in.InstanceID)
	}
	rows, err := h.svc.InstanceRows(ctx, ids)
	if err != nil {
		return p, 0, err
	}
	for _, in := range check.Instances {
		row := rows[in.InstanceID]
		c := templates.InstanceCheck{InstanceID: string(in.InstanceID), ProcessKey: row.ProcessKey, Number: row.Number}
		for _, pr := range in.Problems {
			c.Problems = append(c.Problems, pr.Message)
		}
		p.Instances = append(p.Instances, c)
	}
	p.Valid = check.OK() && len(check.Instances) > 0
	return p, http.StatusOK, nil
}

// migration shows a batch's progress; the page refreshes its live part
// while the batch runs. Reading it needs read on the batch's process.
func (h *handler) migration(w http.ResponseWriter, r *http.Request) {
	v, err := h.svc.Migration(r.Context(), chi.URLParam(r, "id"))
	if err != nil {
		h.failErr(w, r, err)
		return
	}
	if !h.may(r, auth.PermRead, auth.KindProcess, v.ProcessKey) {
		h.fail(w, r, http.StatusForbidden, fmt.Sprintf("Not allowed: reading process %s.", v.ProcessKey))
		return
	}
	p := templates.MigrationPage{Layout: h.layout(w, r, "Migration "+v.ProcessKey, templates.NavProcesses),
		ID: v.ID, ProcessKey: v.ProcessKey, From: v.SourceVersion, To: v.TargetVersion, Status: v.Status,
		CreatedBy: v.CreatedBy, CreatedAt: v.CreatedAt, FinishedAt: v.FinishedAt,
		Total: v.Total, Migrated: v.Migrated, Failed: v.Failed, Pending: v.Pending}
	for _, src := range slices.Sorted(maps.Keys(v.Mapping)) {
		p.Mapping = append(p.Mapping, src+" → "+v.Mapping[src])
	}
	// One read names every instance of the batch ("order #7").
	ids := make([]runtime.InstanceID, 0, len(v.Items))
	for _, it := range v.Items {
		ids = append(ids, it.InstanceID)
	}
	rows, err := h.svc.InstanceRows(r.Context(), ids)
	if err != nil {
		h.failErr(w, r, err)
		return
	}
	for _, it := range v.Items {
		row := rows[it.InstanceID]
		p.Items = append(p.Items, templates.MigrationRow{InstanceID: string(it.InstanceID), ProcessKey: row.ProcessKey, Number: row.Number,
			Status: it.Status, Reason: it.Reason})
	}
	h.render(w, r, http.StatusOK, templates.Migration(p))
}

// selectedIDs are the instances a migration form names (the ones chosen
// in the instance list), nil for none: every running or failed instance
// of the source version.
func selectedIDs(form url.Values) []runtime.InstanceID {
	var ids []runtime.InstanceID
	for _, s := range form[templates.SelectedField] {
		ids = append(ids, runtime.InstanceID(s))
	}
	return ids
}
