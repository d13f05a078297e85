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
	open, err := h.readableIncidents(r)
	if err != nil {
		h.failErr(w, r, err)
		return
	}
	p.Live.OpenIncidents = len(open.rows)
	// Stuck: the instances of each process with an open incident in
	// themselves or anywhere below them in their call tree — the
	// incident's instance and every caller above it, whatever the depth.
	stuck := map[string]map[runtime.InstanceID]bool{}
	for _, in := range open.rows {
		for _, at := range stuckBy(in, open.trees[in.InstanceID]) {
			if stuck[at.Key] == nil {
				stuck[at.Key] = map[runtime.InstanceID]bool{}
			}
			stuck[at.Key][at.ID] = true
		}
	}
	for i := range p.Live.Processes {
		p.Live.Processes[i].Stuck = len(stuck[p.Live.Processes[i].Key])
	}
	rows := open.rows
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].CreatedAt.Before(rows[j].CreatedAt) })
	latest := rows
	if len(latest) > dashboardIncidents {
		latest = latest[len(latest)-dashboardIncidents:]
	}
	for i := len(latest) - 1; i >= 0; i-- {
		p.Live.Incidents = append(p.Live.Incidents, h.incidentItem(r, latest[i], open.trees))
	}
	if err := h.nameIncidents(ctx, p.Live.Incidents); err != nil {
		h.failErr(w, r, err)
		return
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
		// Every task offered to the person, counted by the store.
		_, offered, err := h.svc.Tasks(ctx, runtime.TaskFilter{OfferedTo: &a, Limit: 1})
		if err != nil {
			h.failErr(w, r, err)
			return
		}
		p.Live.MyTasks = offered
	}
	h.render(w, r, http.StatusOK, templates.Dashboard(p))
}

// stuckBy returns the instances an open incident leaves stuck: its own
// and every caller above it (tree.Path; the instance alone when the
// incident was raised after its tree was read).
func stuckBy(in runtime.IncidentRow, tree runtime.IncidentTree) []runtime.TreeInstance {
	if len(tree.Path) == 0 {
		return []runtime.TreeInstance{{ID: in.InstanceID, Key: tree.ProcessKey}}
	}
	return tree.Path
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

// openIncidents is every open incident the person may read, with the
// call tree of each incident's instance.
type openIncidents struct {
	rows  []runtime.IncidentRow
	trees map[runtime.InstanceID]runtime.IncidentTree
}

// readableIncidents returns the open incidents of the instances whose
// process the person may read (every one without logins), each placed in
// its call tree: two queries, whatever the number of incidents.
func (h *handler) readableIncidents(r *http.Request) (openIncidents, error) {
	ctx := r.Context()
	trees, err := h.svc.IncidentTrees(ctx)
	if err != nil {
		return openIncidents{}, err
	}
	rows, err := h.svc.Incidents(ctx, "", true)
	if err != nil {
		return openIncidents{}, err
	}
	readable := h.readable(r)
	out := rows[:0]
	for _, in := range rows {
		t, ok := trees[in.InstanceID]
		if !ok {
			// Raised between the two reads: its instance is its own root
			// until the next refresh places it.
			key, err := h.svc.InstanceProcessKey(ctx, in.InstanceID)
			if runtime.ErrorCode(err) == runtime.ENOTFOUND {
				continue
			}
			if err != nil {
				return openIncidents{}, err
			}
			t = runtime.IncidentTree{ProcessKey: key, RootID: in.InstanceID, RootKey: key}
			trees[in.InstanceID] = t
		}
		if readable(t.ProcessKey) {
			out = append(out, in)
		}
	}
	return openIncidents{rows: out, trees: trees}, nil
}

// incidentItem maps an incident, naming its instance's process and the
// root of its call tree (when the person may read it), with a Retry
// button for those who may operate it.
func (h *handler) incidentItem(r *http.Request, in runtime.IncidentRow, trees map[runtime.InstanceID]runtime.IncidentTree) templates.IncidentItem {
	t := trees[in.InstanceID]
	it := templates.IncidentItem{ID: in.ID, InstanceID: string(in.InstanceID), ProcessKey: t.ProcessKey, NodeID: in.NodeID,
		Kind: in.Kind, Message: in.Message, CreatedAt: in.CreatedAt, Resolved: !in.ResolvedAt.IsZero(),
		CanRetry: t.ProcessKey != "" && h.may(r, auth.PermOperate, auth.KindProcess, t.ProcessKey)}
	if t.RootID != "" && t.RootID != in.InstanceID && h.readable(r)(t.RootKey) {
		it.RootID, it.RootKey = string(t.RootID), t.RootKey
	}
	return it
}

// nameIncidents names the element of each incident item from its
// instance's process version: one read of the instances, one definition
// per version met.
func (h *handler) nameIncidents(ctx context.Context, items []templates.IncidentItem) error {
	ids := make([]runtime.InstanceID, 0, len(items))
	for _, it := range items {
		ids = append(ids, runtime.InstanceID(it.InstanceID))
		if it.RootID != "" {
			ids = append(ids, runtime.InstanceID(it.RootID))
		}
	}
	rows, err := h.svc.InstanceRows(ctx, ids)
	if err != nil {
		return err
	}
	names := map[runtime.DefinitionRef]map[string]string{}
	for i := range items {
		row, ok := rows[runtime.InstanceID(items[i].InstanceID)]
		if !ok {
			continue
		}
		ref := runtime.DefinitionRef{Key: row.ProcessKey, Version: row.ProcessVersion}
		m, seen := names[ref]
		if !seen {
			o, err := h.outline(ctx, ref.Key, ref.Version)
			if err != nil {
				return err
			}
			m = o.Names()
			names[ref] = m
		}
		items[i].NodeName = m[items[i].NodeID]
		items[i].InstanceNumber = row.Number
		if items[i].RootID != "" {
			items[i].RootNumber = rows[runtime.InstanceID(items[i].RootID)].Number
		}
	}
	return nil
}
