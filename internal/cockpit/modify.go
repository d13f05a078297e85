package cockpit

import (
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/gobpm/gobpm/internal/runtime"
	"github.com/gobpm/gobpm/web/templates"
)

// modifyOptions fills the modify form's choices: the elements with tokens
// (counts from the page's elements) and every element a modification can
// start, each labelled by name and id.
func (h *handler) modifyOptions(r *http.Request, p *templates.InstancePage) error {
	elems, err := h.svc.Elements(r.Context(), p.ProcessKey, p.Version)
	if err != nil {
		return err
	}
	labels := make(map[string]string, len(elems))
	for _, e := range elems {
		labels[e.ID] = elementLabel(e)
		if e.NotStartable == "" {
			p.Modify.Startable = append(p.Modify.Startable, templates.ElementOption{ID: e.ID, Label: labels[e.ID]})
		}
	}
	for _, c := range p.Live.Elements {
		if c.Active > 0 {
			label := labels[c.NodeID]
			if label == "" {
				label = c.NodeID
			}
			p.Modify.Active = append(p.Modify.Active, templates.ElementOption{ID: c.NodeID, Label: fmt.Sprintf("%s — %d token%s", label, c.Active, plural(c.Active))})
		}
	}
	return nil
}

// elementLabel names an element for people: its name with its id, or the
// id alone.
func elementLabel(e runtime.ElementView) string {
	label := e.ID
	if e.Name != "" && e.Name != e.ID {
		label = e.Name + " (" + e.ID + ")"
	}
	if e.Container != "" {
		label += " in " + e.Container
	}
	return label
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// modify handles the instance page's modify form: with step=preview (or
// none) it shows what the modification would do and asks for the
// confirmation; with step=confirm it applies it in one step.
func (h *handler) modify(w http.ResponseWriter, r *http.Request) {
	id := runtime.InstanceID(chi.URLParam(r, "id"))
	form := templates.ModifyForm{Cancel: r.PostFormValue("cancel"), Activate: r.PostFormValue("activate"), Variables: strings.TrimSpace(r.PostFormValue("variables"))}
	show := func(status int, flash templates.Flash, preview []string) {
		p, err := h.instancePage(w, r, id)
		if err != nil {
			h.failErr(w, r, err)
			return
		}
		p.Modify.Cancel, p.Modify.Activate, p.Modify.Variables, p.Modify.Preview = form.Cancel, form.Activate, form.Variables, preview
		p.Here = templates.InstanceURL(string(id))
		p.Flash = flash
		h.render(w, r, status, templates.Instance(p))
	}
	refuse := func(status int, msg string) { show(status, templates.Flash{Kind: "error", Message: msg}, nil) }
	if form.Cancel == "" && form.Activate == "" {
		refuse(http.StatusBadRequest, "Choose an element to cancel, one to start, or both to move a token.")
		return
	}
	var vars map[string]any
	if form.Variables != "" {
		if form.Activate == "" {
			refuse(http.StatusBadRequest, "Variables go with an element to start: choose one, or clear the variables.")
			return
		}
		var err error
		if vars, err = parseVariables(form.Variables); err != nil {
			refuse(http.StatusBadRequest, err.Error())
			return
		}
	}
	var mods []runtime.Modification
	var preview []string
	if form.Cancel != "" {
		mods = append(mods, runtime.Modification{Cancel: &runtime.CancelElement{NodeID: form.Cancel}})
		preview = append(preview, "cancel every token at "+form.Cancel+", with its jobs, timers and incidents")
	}
	if form.Activate != "" {
		mods = append(mods, runtime.Modification{Activate: &runtime.ActivateElement{NodeID: form.Activate, Variables: vars}})
		line := "start " + form.Activate + " anew (its sub-process opens around it if none is open)"
		if len(vars) > 0 {
			names := make([]string, 0, len(vars))
			for k := range vars {
				names = append(names, k)
			}
			slices.Sort(names)
			line += ", setting " + strings.Join(names, ", ")
		}
		preview = append(preview, line)
	}
	if form.Activate == "" {
		preview = append(preview, "cancel any scope left with nothing running; the instance ends terminated if nothing is left")
	}
	if r.PostFormValue("step") != "confirm" {
		show(http.StatusOK, templates.Flash{}, preview)
		return
	}
	if _, err := h.svc.ModifyInstance(r.Context(), id, mods); err != nil {
		if runtime.ErrorCode(err) == runtime.EINTERNAL {
			h.actFailed(w, r, templates.InstanceURL(string(id)), err)
			return
		}
		refuse(statusOf(err), h.plain(r, err))
		return
	}
	h.done(w, r, templates.InstanceURL(string(id)), "ok", "Modified: "+strings.Join(preview, "; ")+".")
}
