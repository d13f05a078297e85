package cockpit

import (
	"context"
	"fmt"
	"net/http"
	"sort"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/gobpm/gobpm/internal/runtime"
	"github.com/gobpm/gobpm/web/templates"
)

// regionItems maps the open ad-hoc regions for the instance page, by path;
// a nested region names the region it lies in.
func regionItems(regions []runtime.RegionView, names map[string]string) []templates.RegionItem {
	sort.SliceStable(regions, func(i, j int) bool { return regions[i].Path < regions[j].Path })
	name := func(id string) string {
		if n := names[id]; n != "" {
			return n
		}
		return id
	}
	counts := func(ids map[string]int) ([]templates.ActivityCount, int) {
		out := make([]templates.ActivityCount, 0, len(ids))
		total := 0
		for id, n := range ids {
			out = append(out, templates.ActivityCount{ActivityID: id, Name: name(id), Count: n})
			total += n
		}
		sort.Slice(out, func(i, j int) bool { return out[i].ActivityID < out[j].ActivityID })
		return out, total
	}
	out := make([]templates.RegionItem, 0, len(regions))
	for _, rg := range regions {
		it := templates.RegionItem{ScopeID: rg.ScopeID, Path: rg.Path, NodeID: rg.NodeID, Name: names[rg.NodeID],
			Selection: rg.Selection, Ordering: rg.Ordering, Stopped: rg.Stopped, Router: rg.Router, Deciding: rg.Deciding}
		for _, o := range regions {
			if o.Path != rg.Path && strings.HasPrefix(rg.Path, strings.TrimSuffix(o.Path, "/")+"/") && len(o.Path) > len(it.Within) {
				it.Within = o.Path
			}
		}
		for _, c := range rg.Candidates {
			n := c.Name
			if n == "" {
				n = name(c.ActivityID)
			}
			it.Candidates = append(it.Candidates, templates.CandidateItem{ActivityID: c.ActivityID, Name: n})
		}
		running := map[string]int{}
		for _, id := range rg.Running {
			running[id]++
		}
		it.Running, it.RunningTotal = counts(running)
		it.Completed, it.CompletedTotal = counts(rg.Completed)
		out = append(out, it)
	}
	return out
}

// activate starts a candidate of a manual ad-hoc region for the acting
// user, through the same runtime command and authorization as the JSON API.
// A refusal shows the instance page again with the reason in plain words
// and the status the API would answer (403, 409, …).
func (h *handler) activate(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	id := runtime.InstanceID(chi.URLParam(r, "id"))
	scopeID := chi.URLParam(r, "scope")
	activity := strings.TrimSpace(r.PostFormValue("activity"))
	a := h.actor(r)
	if activity == "" {
		h.refuseActivation(w, r, id, http.StatusBadRequest, "Choose an activity to activate: the form named none.")
		return
	}
	before, err := h.svc.AdHocRegions(ctx, id)
	if err != nil {
		h.failErr(w, r, err)
		return
	}
	name := h.activityName(ctx, id, before, activity)
	reg, err := h.svc.ActivateAdHoc(ctx, id, scopeID, activity, a)
	if err != nil {
		h.refuseActivation(w, r, id, statusOf(err), h.activationRefusal(r, id, scopeID, name, a, err))
		return
	}
	msg := "You started " + name + "."
	if reg.NodeID == "" {
		msg += " The region had nothing more to do and finished."
	}
	h.done(w, r, templates.InstanceURL(string(id)), "ok", msg)
}

// activityName is how a refusal or an outcome names an activity: its name
// in quotes when known (from the regions' candidates, else the model), else
// its id.
func (h *handler) activityName(ctx context.Context, id runtime.InstanceID, regions []runtime.RegionView, activity string) string {
	for _, rg := range regions {
		for _, c := range rg.Candidates {
			if c.ActivityID == activity && c.Name != "" && c.Name != activity {
				return "“" + c.Name + "”"
			}
		}
	}
	if v, err := h.svc.Instance(ctx, id); err == nil {
		if o, err := h.svc.Outline(ctx, v.ProcessKey, v.ProcessVersion); err == nil {
			if n := o.Elements[activity].Name; n != "" {
				return "“" + n + "”"
			}
		}
	}
	return "activity " + activity
}

// activationRefusal says in plain words why an activation was refused,
// reading the region as it is now to tell the cases apart.
func (h *handler) activationRefusal(r *http.Request, id runtime.InstanceID, scopeID, name string, a runtime.Actor, err error) string {
	switch runtime.ErrorCode(err) {
	case runtime.EFORBIDDEN:
		if a.User == "" {
			return "Not allowed: choose who you are acting as (top right) before activating " + name + "; every activation is recorded with the person who made it."
		}
		return h.plain(r, err)
	case runtime.ECONFLICT:
	default:
		return h.plain(r, err)
	}
	upper := name
	if strings.HasPrefix(name, "activity ") {
		upper = "Activity" + strings.TrimPrefix(name, "activity")
	}
	regions, rerr := h.svc.AdHocRegions(r.Context(), id)
	if rerr != nil {
		return upper + " is no longer a candidate, so it was not started. Nothing changed."
	}
	var reg *runtime.RegionView
	for i := range regions {
		if regions[i].ScopeID == scopeID {
			reg = &regions[i]
		}
	}
	switch {
	case reg == nil:
		return upper + " was not started: its ad-hoc region has closed. Nothing changed."
	case reg.Stopped != "":
		return fmt.Sprintf("%s was not started: the region %s stopped (%s) and offers nothing more. Nothing changed.", upper, reg.NodeID, reg.Stopped)
	case reg.Ordering == "sequential" && len(reg.Running) > 0:
		return fmt.Sprintf("%s was not started: the region %s runs one activity at a time and %s is still running. Nothing changed; activate it once that is done.",
			upper, reg.NodeID, strings.Join(reg.Running, ", "))
	}
	return upper + " is no longer a candidate — someone may have activated it a moment ago, or the region moved on. Nothing changed; the current candidates are shown below."
}

// refuseActivation shows the instance page with the reason of a refused
// activation; the page keeps polling, and returning, to the instance's URL.
func (h *handler) refuseActivation(w http.ResponseWriter, r *http.Request, id runtime.InstanceID, status int, msg string) {
	p, err := h.instancePage(w, r, id)
	if err != nil {
		h.failErr(w, r, err)
		return
	}
	p.Here = templates.InstanceURL(string(id))
	p.Flash = templates.Flash{Kind: "error", Message: msg}
	h.render(w, r, status, templates.Instance(p))
}
