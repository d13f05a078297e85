package cockpit

import (
	"context"
	"net/http"
	"sort"

	"github.com/gobpm/gobpm/internal/auth"
	"github.com/gobpm/gobpm/internal/runtime"
	"github.com/gobpm/gobpm/web/templates"
)

// waitOffer is the wait kind of a manual ad-hoc region waiting for a person
// to pick an activity (the runtime's WaitCounts key).
const waitOffer = "offer"

// dashboardIncidents is how many of the latest open incidents the dashboard lists.
const dashboardIncidents = 5

func (h *handler) dashboard(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	p := templates.DashboardPage{Layout: h.layout(w, r, "Dashboard", templates.NavDashboard)}
	defs, err := h.svc.Processes(ctx)
	if err != nil {
		h.failErr(w, r, err)
		return
	}
	readable := h.readable(r)
	for _, d := range defs {
		if !readable(d.Key) {
			continue
		}
		s := templates.ProcessStatus{Key: d.Key, Name: d.Name, Latest: d.Version}
		for status, n := range map[string]*templates.Total{runtime.StatusRunning: &s.Running, runtime.StatusFailed: &s.Failed,
			runtime.StatusCompleted: &s.Completed, runtime.StatusTerminated: &s.Terminated} {
			if *n, err = h.countInstances(ctx, runtime.InstanceFilter{ProcessKey: d.Key, Status: status}); err != nil {
				h.failErr(w, r, err)
				return
			}
		}
		p.Live.Processes = append(p.Live.Processes, s)
	}
	keys := map[runtime.InstanceID]string{}
	open, err := h.readableIncidents(r, keys)
	if err != nil {
		h.failErr(w, r, err)
		return
	}
	p.Live.OpenIncidents = len(open)
	sort.SliceStable(open, func(i, j int) bool { return open[i].CreatedAt.Before(open[j].CreatedAt) })
	latest := open
	if len(latest) > dashboardIncidents {
		latest = latest[len(latest)-dashboardIncidents:]
	}
	for i := len(latest) - 1; i >= 0; i-- {
		p.Live.Incidents = append(p.Live.Incidents, h.incidentItem(r, latest[i], keys))
	}
	// Server-wide counts only for those who may see every process.
	if p.Live.Restricted = !h.readsAll(r); !p.Live.Restricted {
		if _, p.Live.OpenTasks, err = h.svc.Tasks(ctx, runtime.TaskFilter{Limit: 1}); err != nil {
			h.failErr(w, r, err)
			return
		}
		waits, err := h.svc.WaitCounts(ctx)
		if err != nil {
			h.failErr(w, r, err)
			return
		}
		p.Live.OpenOffers = waits[waitOffer]
		nodes, err := h.svc.Nodes(ctx)
		if err != nil {
			h.failErr(w, r, err)
			return
		}
		self := h.svc.NodeID()
		for _, n := range nodes {
			p.Live.Nodes = append(p.Live.Nodes, templates.NodeItem{ID: n.ID, Address: n.Address, Version: n.Version,
				StartedAt: n.StartedAt, HeartbeatAt: n.HeartbeatAt, Self: n.ID == self})
		}
	}
	if a := h.actor(r); a.User != "" {
		inbox, err := h.inbox(ctx, a)
		if err != nil {
			h.failErr(w, r, err)
			return
		}
		p.Live.MyTasks = len(inbox.Assigned) + len(inbox.Claimable)
	}
	h.render(w, r, http.StatusOK, templates.Dashboard(p))
}

// maxListTotal is where ListInstances stops counting: a total of
// maxListTotal+1 means "more than maxListTotal".
const maxListTotal = runtime.MaxListTotal

// listTotal is a ListInstances total as the pages show it, "10,000+" when
// the count stopped.
func listTotal(n int) templates.Total {
	if n > maxListTotal {
		return templates.Total{N: maxListTotal, More: true}
	}
	return templates.Total{N: n}
}

// addTotals adds two totals; the sum is a lower bound when either is.
func addTotals(a, b templates.Total) templates.Total {
	return templates.Total{N: a.N + b.N, More: a.More || b.More}
}

// countInstances returns how many instances match f.
func (h *handler) countInstances(ctx context.Context, f runtime.InstanceFilter) (templates.Total, error) {
	f.Limit = 1
	_, total, err := h.svc.ListInstances(ctx, f)
	return listTotal(total), err
}

// processKey returns the process key of an instance, looked up once per
// instance through keys ("" for an instance that is gone).
func (h *handler) processKey(ctx context.Context, id runtime.InstanceID, keys map[runtime.InstanceID]string) (string, error) {
	if key, ok := keys[id]; ok {
		return key, nil
	}
	key, err := h.svc.InstanceProcessKey(ctx, id)
	if err != nil && runtime.ErrorCode(err) != runtime.ENOTFOUND {
		return "", err
	}
	keys[id] = key
	return key, nil
}

// readableIncidents returns the open incidents of the instances whose
// process the person may read (every one without logins), learning their
// process keys into keys.
func (h *handler) readableIncidents(r *http.Request, keys map[runtime.InstanceID]string) ([]runtime.IncidentRow, error) {
	open, err := h.svc.Incidents(r.Context(), "", true)
	if err != nil || h.readsAll(r) {
		return open, err
	}
	readable := h.readable(r)
	out := open[:0]
	for _, in := range open {
		key, err := h.processKey(r.Context(), in.InstanceID, keys)
		if err != nil {
			return nil, err
		}
		if key != "" && readable(key) {
			out = append(out, in)
		}
	}
	return out, nil
}

// incidentItem maps an incident, naming its instance's process (looked up
// once per instance through keys), with a Retry button for those who may
// operate it.
func (h *handler) incidentItem(r *http.Request, in runtime.IncidentRow, keys map[runtime.InstanceID]string) templates.IncidentItem {
	key, _ := h.processKey(r.Context(), in.InstanceID, keys)
	return templates.IncidentItem{ID: in.ID, InstanceID: string(in.InstanceID), ProcessKey: key, NodeID: in.NodeID,
		Kind: in.Kind, Message: in.Message, CreatedAt: in.CreatedAt, Resolved: !in.ResolvedAt.IsZero(),
		CanRetry: key != "" && h.may(r, auth.PermOperate, auth.KindProcess, key)}
}
