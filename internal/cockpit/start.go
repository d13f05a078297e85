package cockpit

import (
	"context"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/gobpm/gobpm/internal/auth"
	"github.com/gobpm/gobpm/internal/runtime"
	"github.com/gobpm/gobpm/web/templates"
)

// startablePage serves the inbox's "Start a process": the processes the
// person may start, at their latest version, and (?started=) the instance
// they just started with the first task it offers them.
func (h *handler) startablePage(w http.ResponseWriter, r *http.Request) {
	p := templates.StartPage{Layout: h.layout(w, r, "Start a process", templates.NavTasks)}
	ctx := r.Context()
	var err error
	if p.Processes, err = h.startable(ctx, r); err != nil {
		h.failErr(w, r, err)
		return
	}
	if id := r.URL.Query().Get("started"); id != "" {
		if p.Started, err = h.started(ctx, r, runtime.InstanceID(id)); err != nil {
			h.failErr(w, r, err)
			return
		}
	}
	h.render(w, r, http.StatusOK, templates.StartProcess(p))
}

// startable lists the processes the person may start, by key, with
// whether each one's start event links a form.
func (h *handler) startable(ctx context.Context, r *http.Request) ([]templates.StartableProcess, error) {
	defs, err := h.svc.Processes(ctx)
	if err != nil {
		return nil, err
	}
	out := []templates.StartableProcess{}
	for _, d := range defs {
		if !h.may(r, auth.PermStart, auth.KindProcess, d.Key) {
			continue
		}
		sf, err := h.svc.StartForm(ctx, d.Key, d.Version)
		if err != nil {
			return nil, err
		}
		out = append(out, templates.StartableProcess{Key: d.Key, Name: d.Name, Version: d.Version, HasForm: sf.FormID != "",
			URL: templates.StartProcessURL(d.Key)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out, nil
}

// started describes an instance started from the inbox: its number and
// the first task it offers the person (nil when the person may not start
// its process: the page tells only starters about their instances).
func (h *handler) started(ctx context.Context, r *http.Request, id runtime.InstanceID) (*templates.StartedInstance, error) {
	rows, err := h.svc.InstanceRows(ctx, []runtime.InstanceID{id})
	if err != nil {
		return nil, err
	}
	row, ok := rows[id]
	if !ok || !h.may(r, auth.PermStart, auth.KindProcess, row.ProcessKey) {
		return nil, nil
	}
	out := &templates.StartedInstance{ID: string(id), Number: row.Number, Process: row.ProcessKey, Status: row.Status}
	if a := h.actor(r); a.User != "" {
		ts, _, err := h.svc.Tasks(ctx, runtime.TaskFilter{InstanceID: id, OfferedTo: &a, Limit: 1})
		if err != nil {
			return nil, err
		}
		if len(ts) > 0 {
			out.TaskName, out.TaskURL = taskName(ts[0]), templates.TasksURL(templates.TaskFilter{Task: ts[0].ID})
		}
	}
	return out, nil
}

// startChoicePage serves a process's start form in the inbox.
func (h *handler) startChoicePage(w http.ResponseWriter, r *http.Request) {
	h.renderStartChoice(w, r, http.StatusOK, "", "", templates.Flash{})
}

// renderStartChoice renders the start form of the process the path
// names, with what was typed and a flash (a refused start).
func (h *handler) renderStartChoice(w http.ResponseWriter, r *http.Request, status int, businessKey, vars string, flash templates.Flash) {
	ctx := r.Context()
	key := chi.URLParam(r, "key")
	c, err := h.startChoice(ctx, key)
	if err != nil {
		h.failErr(w, r, err)
		return
	}
	c.BusinessKey, c.Variables = businessKey, vars
	p := templates.StartPage{Layout: h.layout(w, r, "Start "+c.Key, templates.NavTasks), Chosen: &c}
	if flash.Message != "" {
		p.Flash = flash
	}
	if p.Processes, err = h.startable(ctx, r); err != nil {
		h.failErr(w, r, err)
		return
	}
	h.render(w, r, status, templates.StartProcess(p))
}

// startChoice reads the start form of a process's latest version.
func (h *handler) startChoice(ctx context.Context, key string) (templates.StartChoice, error) {
	sf, err := h.svc.StartForm(ctx, key, 0)
	if err != nil {
		return templates.StartChoice{}, err
	}
	def, err := h.svc.Definition(ctx, key, sf.Version)
	if err != nil {
		return templates.StartChoice{}, err
	}
	c := templates.StartChoice{StartableProcess: templates.StartableProcess{Key: key, Name: def.Name, Version: sf.Version,
		HasForm: sf.FormID != "", URL: templates.StartProcessURL(key)}, FormID: sf.FormID}
	switch {
	case sf.Form != nil:
		c.FormSchema, c.FormResource = string(sf.Form.Schema), sf.Form.Resource
	case sf.FormID != "":
		c.FormMissing = sf.FormID
	}
	return c, nil
}

// startFromInbox starts the chosen process's latest version with the
// start form's values (or the JSON typed) as variables, then shows the
// new instance; a refused start shows the form again.
func (h *handler) startFromInbox(w http.ResponseWriter, r *http.Request) {
	key := chi.URLParam(r, "key")
	bk, raw := strings.TrimSpace(r.PostFormValue("businessKey")), r.PostFormValue("variables")
	// The version whose form was filled in: a version deployed meanwhile
	// may ask for other values.
	v, ok := version(r.PostFormValue("version"))
	if !ok {
		h.renderStartChoice(w, r, http.StatusBadRequest, bk, raw, templates.Flash{Kind: "error", Message: "The version must be a positive whole number."})
		return
	}
	vars, err := parseVariables(raw)
	if err != nil {
		h.renderStartChoice(w, r, http.StatusBadRequest, bk, raw, templates.Flash{Kind: "error", Message: err.Error()})
		return
	}
	inst, err := h.svc.StartInstance(r.Context(), runtime.StartRequest{ProcessKey: key, Version: v, BusinessKey: bk, Variables: vars})
	if err != nil {
		if runtime.ErrorCode(err) == runtime.EINTERNAL {
			h.actFailed(w, r, templates.StartProcessURL(key), err)
			return
		}
		h.renderStartChoice(w, r, statusOf(err), bk, raw, templates.Flash{Kind: "error", Message: h.plain(r, err)})
		return
	}
	noteResource(r, "process "+key+" instance "+string(inst.ID))
	h.done(w, r, templates.RouteTasksStart+"?started="+url.QueryEscape(string(inst.ID)), "ok",
		"Started "+key+" v"+strconv.Itoa(inst.ProcessVersion)+"; the instance is "+inst.Status+".")
}
