package cockpit

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/gobpm/gobpm/internal/auth"
	"github.com/gobpm/gobpm/internal/runtime"
	"github.com/gobpm/gobpm/web/templates"
)

// Limits of the instance pages.
const (
	// pageSize is the instance list's page size.
	pageSize = 50
	// maxPage caps the page number, so its offset stays far from overflow.
	maxPage = 1_000_000
	// historyLimit caps the facts the timeline shows.
	historyLimit = 500
	// maxTraceDepth caps the walk up the call chain (the engine's call-depth
	// guard is far below it).
	maxTraceDepth = 64
	// maxDescendants caps the called instances read below one instance.
	maxDescendants = 200
)

// listFilter reads the filters of the instance list from the query (not
// its page), narrowed to the processes the person may read: the form's
// values, the runtime's filter, and a problem sentence ("" when they are
// fine). The batch pages read the list's filter with it too.
func (h *handler) listFilter(r *http.Request) (templates.InstanceFilter, runtime.InstanceFilter, string) {
	q := r.URL.Query()
	f := templates.InstanceFilter{
		Process:     strings.TrimSpace(q.Get("process")),
		Version:     strings.TrimSpace(q.Get("version")),
		Status:      strings.TrimSpace(q.Get("status")),
		BusinessKey: strings.TrimSpace(q.Get("businessKey")),
		Parent:      strings.TrimSpace(q.Get("parent")),
		Number:      strings.TrimSpace(q.Get("number")),
	}
	v, ok := version(f.Version)
	if !ok {
		return f, runtime.InstanceFilter{}, "The version filter must be a positive whole number."
	}
	var number int64
	if f.Number != "" {
		key, n, ok := parseNumber(f.Number)
		if !ok || (key != "" && f.Process != "" && key != f.Process) {
			return f, runtime.InstanceFilter{}, `The number filter must be an instance number such as "#1042" or "order-approval #1042".`
		}
		number = n
		if key != "" {
			f.Process = key
		}
	}
	switch f.Status {
	case "", runtime.StatusRunning, runtime.StatusFailed, runtime.StatusCompleted, runtime.StatusTerminated:
	default:
		return f, runtime.InstanceFilter{}, "The status filter must be running, failed, completed or terminated."
	}
	rf := runtime.InstanceFilter{Number: number, ProcessKey: f.Process, ProcessVersion: v, Status: f.Status,
		BusinessKey: f.BusinessKey, ParentID: runtime.InstanceID(f.Parent), ProcessKeyPatterns: h.readPatterns(r)}
	if problem := readListFilters(q, &f, &rf); problem != "" {
		return f, rf, problem
	}
	return f, rf, ""
}

func (h *handler) instances(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	q := r.URL.Query()
	f, rf, problem := h.listFilter(r)
	if problem != "" {
		h.fail(w, r, http.StatusBadRequest, problem)
		return
	}
	page := 1
	if s := q.Get("page"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > maxPage {
			h.fail(w, r, http.StatusBadRequest, "The page must be a whole number from 1 to 1000000.")
			return
		}
		page = n
	}
	rf.Limit, rf.Offset = pageSize, (page-1)*pageSize
	p := templates.InstancesPage{Layout: h.layout(w, r, "Instances", templates.NavInstances), Filter: f,
		CanOperate: h.mayAny(r, auth.PermOperate, auth.KindProcess)}
	if err := h.savedFilters(r, &p); err != nil {
		h.failErr(w, r, err)
		return
	}
	defs, err := h.svc.Processes(ctx)
	if err != nil {
		h.failErr(w, r, err)
		return
	}
	readable := h.readable(r)
	for _, d := range defs {
		if readable(d.Key) {
			p.ProcessKeys = append(p.ProcessKeys, d.Key)
		}
	}
	rows, total, err := h.svc.ListInstances(ctx, rf)
	if err != nil {
		h.failErr(w, r, err)
		return
	}
	marks, err := h.incidentMarks(ctx, rows)
	if err != nil {
		h.failErr(w, r, err)
		return
	}
	// Offset paging by page number, also past a capped total: while pages
	// come back full there may be more, so "next" stays (see below).
	p.Live = templates.InstancesLive{Total: listTotal(total), Page: page, PageSize: pageSize}
	if !p.Live.Total.More {
		p.Live.Pages = (total + pageSize - 1) / pageSize
	}
	parents, err := h.parentRows(ctx, rows)
	if err != nil {
		h.failErr(w, r, err)
		return
	}
	for _, row := range rows {
		parent := parents[row.ParentID]
		if row.ParentID != "" && !readable(parent.ProcessKey) {
			// A caller the person may not read is not named, nor linked.
			row.ParentID, parent = "", runtime.InstanceRow{}
		}
		p.Live.Rows = append(p.Live.Rows, templates.InstanceItem{ID: string(row.ID), Number: row.Number, ProcessKey: row.ProcessKey, Version: row.ProcessVersion,
			Status: row.Status, BusinessKey: row.BusinessKey, ParentID: string(row.ParentID), ParentKey: parent.ProcessKey, ParentNumber: parent.Number,
			CreatedAt: row.CreatedAt, UpdatedAt: row.UpdatedAt, EndedAt: row.EndedAt, Incident: marks[row.ID].Own, IncidentsInTree: marks[row.ID].InTree})
	}
	if page > 1 {
		prev := f
		prev.Page = page - 1
		p.Live.PrevURL = templates.InstancesURL(prev)
	}
	if page < p.Live.Pages || (p.Live.Total.More && len(rows) == pageSize && page < maxPage) {
		next := f
		next.Page = page + 1
		p.Live.NextURL = templates.InstancesURL(next)
	}
	h.render(w, r, http.StatusOK, templates.Instances(p))
}

// parentRows reads the rows of the callers of rows, so the list names
// them ("order #12"): one read for the page.
func (h *handler) parentRows(ctx context.Context, rows []runtime.InstanceRow) (map[runtime.InstanceID]runtime.InstanceRow, error) {
	var ids []runtime.InstanceID
	for _, row := range rows {
		if row.ParentID != "" {
			ids = append(ids, row.ParentID)
		}
	}
	if len(ids) == 0 {
		return nil, nil
	}
	return h.svc.InstanceRows(ctx, ids)
}

// parseNumber reads what the number filter accepts: "#1042", "1042",
// "order-approval #1042" or "order-approval#1042" (the key, if any, and
// the number).
func parseNumber(s string) (key string, n int64, ok bool) {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '#'); i >= 0 {
		key, s = strings.TrimSpace(s[:i]), s[i+1:]
	}
	n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil || n < 1 || strings.ContainsAny(key, " \t") {
		return "", 0, false
	}
	return key, n, true
}

// incidentMarks says which rows have open incidents, themselves or below
// them in their call tree: one lookup for the page.
func (h *handler) incidentMarks(ctx context.Context, rows []runtime.InstanceRow) (map[runtime.InstanceID]runtime.IncidentMark, error) {
	ids := make([]runtime.InstanceID, len(rows))
	for i, row := range rows {
		ids[i] = row.ID
	}
	return h.svc.IncidentMarks(ctx, ids)
}

func (h *handler) instance(w http.ResponseWriter, r *http.Request) {
	p, err := h.instancePage(w, r, runtime.InstanceID(chi.URLParam(r, "id")))
	if err != nil {
		h.failErr(w, r, err)
		return
	}
	if q := r.URL.Query(); q.Get(templates.ParamVar) != "" {
		// An edit link: that variable's editor open.
		p.VarOpen = templates.VarForm{Scope: q.Get(templates.ParamVarScope), Name: q.Get(templates.ParamVar)}
	}
	h.render(w, r, http.StatusOK, templates.Instance(p))
}

func (h *handler) instancePage(w http.ResponseWriter, r *http.Request, id runtime.InstanceID) (templates.InstancePage, error) {
	ctx := r.Context()
	v, err := h.svc.Instance(ctx, id)
	if err != nil {
		return templates.InstancePage{}, err
	}
	p := templates.InstancePage{
		Layout:     h.layout(w, r, templates.InstanceLabel(v.ProcessKey, v.Number, string(v.ID)), templates.NavInstances),
		ID:         string(v.ID),
		Number:     v.Number,
		ProcessKey: v.ProcessKey,
		Version:    v.ProcessVersion,
		XMLURL:     templates.ProcessXMLURL(v.ProcessKey, v.ProcessVersion),
		CanOperate: h.may(r, auth.PermOperate, auth.KindProcess, v.ProcessKey),
		CanDelete: (v.Status == runtime.StatusCompleted || v.Status == runtime.StatusTerminated) &&
			h.may(r, auth.PermDelete, auth.KindProcess, v.ProcessKey),
	}
	deployed := false
	if def, err := h.svc.Definition(ctx, v.ProcessKey, v.ProcessVersion); err == nil {
		p.HasDiagram, deployed = hasDiagram(def.XML), true
	} else if runtime.ErrorCode(err) != runtime.ENOTFOUND {
		return p, err
	}
	model, err := h.outline(ctx, v.ProcessKey, v.ProcessVersion)
	if err != nil {
		return p, err
	}
	ended := v.Status == runtime.StatusCompleted || v.Status == runtime.StatusTerminated
	p.Live = templates.InstanceLive{Status: v.Status, BusinessKey: v.BusinessKey, CreatedAt: v.CreatedAt, EndedAt: v.EndedAt, Ended: ended}
	shown, err := h.shownPages(r, v)
	if err != nil {
		return p, err
	}
	p.Live.ScopePage, p.Live.TrackPage = shown.scopePage, shown.trackPage

	// Elements: tokens and own incidents per node.
	counts := map[string]*templates.ElementCount{}
	at := func(node string) *templates.ElementCount {
		c := counts[node]
		if c == nil {
			c = &templates.ElementCount{NodeID: node}
			counts[node] = c
		}
		return c
	}
	names := model.Names()
	for _, node := range tokenNodes(shown.tracks, append(v.Scopes[:len(v.Scopes):len(v.Scopes)], shown.scopes...)) {
		at(node).Active++
	}
	own := 0
	for _, in := range v.Incidents {
		p.Live.Incidents = append(p.Live.Incidents, templates.IncidentItem{ID: in.ID, InstanceID: string(in.InstanceID), InstanceNumber: v.Number, NodeID: in.NodeID, NodeName: names[in.NodeID],
			Kind: in.Kind, Message: in.Message, CreatedAt: in.CreatedAt, Resolved: !in.ResolvedAt.IsZero(), CanRetry: p.CanOperate})
		if in.ResolvedAt.IsZero() {
			at(in.NodeID).Incidents++
			own++
		}
	}

	// Below: called instances, their status and every open incident under them.
	below, err := h.descendants(ctx, v.ID, h.readable(r))
	if err != nil {
		return p, err
	}
	for _, c := range below.children {
		n := below.incidentsUnder[c.ID]
		p.Live.Children = append(p.Live.Children, templates.ChildItem{ID: string(c.ID), Number: c.Number, ProcessKey: c.ProcessKey, NodeID: c.ParentNodeID, NodeName: names[c.ParentNodeID], Status: c.Status, Incidents: n})
		if n > 0 {
			at(c.ParentNodeID).ChildIncidents += n
		}
	}
	p.Live.ChildIncidents = below.incidents

	// Above: the call trace from the root caller down to this instance.
	if p.Live.Trace, err = h.trace(ctx, v, own+len(below.incidents), h.readable(r)); err != nil {
		return p, err
	}

	p.Live.Scopes, p.ScopeOptions = scopeTree(shown.scopes, shown.tracks, v.Scopes, model.OfKind(runtime.ElementTransaction), names)
	if ended {
		// The scopes an ended instance keeps (its root, with the final
		// variables) are no longer active.
		endScopes(p.Live.Scopes)
	}
	if len(v.Scopes) > 0 && (len(shown.scopes) == 0 || shown.scopes[0].ID != v.Scopes[0].ID) {
		// A later page: the root stays a target of the variables form.
		root := v.Scopes[0]
		p.ScopeOptions = append([]templates.ScopeOption{{ID: root.ID, Label: root.Path}}, p.ScopeOptions...)
	}
	p.Live.Variables = editRows(v.Variables)
	if !ended && len(model.OfKind(runtime.ElementAdHocSubProcess)) > 0 {
		regions, err := h.svc.AdHocRegions(ctx, v.ID)
		if err != nil && runtime.ErrorCode(err) != runtime.ENOTFOUND {
			return p, err
		}
		p.Live.Regions = regionItems(regions, model.Names())
		for _, rg := range regions {
			if len(rg.Candidates) > 0 {
				at(rg.NodeID).Candidates += len(rg.Candidates)
			}
		}
	}
	if !ended {
		waits, _, err := h.svc.Waits(ctx, v.ID, "", runtime.ViewLimit)
		if err != nil && runtime.ErrorCode(err) != runtime.ENOTFOUND {
			return p, err
		}
		p.Live.WaitCount = max(v.WaitCount, len(waits))
		for _, wr := range waits {
			p.Live.Waits = append(p.Live.Waits, templates.WaitItem{ID: wr.ID, Kind: wr.Kind, NodeID: wr.NodeID, NodeName: names[wr.NodeID], Name: wr.Name,
				Assignee: wr.Assignee, DueAt: wr.DueAt, Retries: wr.Retries, Error: wr.ErrorMessage})
		}
	}
	facts, err := h.svc.History(ctx, v.ID, 0, historyLimit)
	if err != nil {
		return p, err
	}
	p.Live.History = historyItems(facts, names, model.Flows)
	p.Live.HistoryCut = len(facts) == historyLimit
	p.Live.Elements = sortedCounts(counts, names)
	p.Live.State = stateJSON(p.Live.Elements, p.Live.TrackPage.Partial(), pathOf(facts))
	if p.CanOperate && !ended && deployed {
		if err := h.modifyOptions(r, &p); err != nil {
			return p, err
		}
	}
	return p, nil
}

// shown is the page of scopes and the page of tokens an instance page
// shows.
type shown struct {
	scopes    []runtime.ScopeView
	tracks    []runtime.TrackView
	scopePage templates.Paging
	trackPage templates.Paging
}

// shownPages reads the pages of scopes and tokens the query asks for
// (templates.ParamScopes and ParamTracks, each the cursor its page starts
// after): the view's own first pages without one, else one page from the
// runtime. Whatever the instance's size, a page (and its 2-second refresh,
// which asks for the same URL) reads at most runtime.ViewLimit of each.
func (h *handler) shownPages(r *http.Request, v runtime.InstanceView) (shown, error) {
	q := r.URL.Query()
	scopesAfter, tracksAfter := q.Get(templates.ParamScopes), q.Get(templates.ParamTracks)
	s := shown{scopes: v.Scopes, tracks: v.Tracks}
	var scopeNext, trackNext string
	if n := len(v.Scopes); n > 0 && v.ScopeCount > n {
		scopeNext = v.Scopes[n-1].ID
	}
	if n := len(v.Tracks); n > 0 && v.TrackCount > n {
		trackNext = v.Tracks[n-1].ID
	}
	var err error
	if scopesAfter != "" {
		if s.scopes, scopeNext, err = h.svc.InstanceScopes(r.Context(), v.ID, scopesAfter, runtime.ViewLimit); err != nil {
			return s, err
		}
	}
	if tracksAfter != "" {
		if s.tracks, trackNext, err = h.svc.InstanceTracks(r.Context(), v.ID, tracksAfter, runtime.ViewLimit); err != nil {
			return s, err
		}
	}
	id := string(v.ID)
	s.scopePage = templates.Paging{Shown: len(s.scopes), Total: v.ScopeCount, After: scopesAfter}
	if scopesAfter != "" {
		s.scopePage.FirstURL = templates.InstancePageURL(id, "", tracksAfter)
	}
	if scopeNext != "" {
		s.scopePage.NextURL = templates.InstancePageURL(id, scopeNext, tracksAfter)
	}
	s.trackPage = templates.Paging{Shown: len(s.tracks), Total: v.TrackCount, After: tracksAfter}
	if tracksAfter != "" {
		s.trackPage.FirstURL = templates.InstancePageURL(id, scopesAfter, "")
	}
	if trackNext != "" {
		s.trackPage.NextURL = templates.InstancePageURL(id, scopesAfter, trackNext)
	}
	return s, nil
}

// below is what lies under an instance in the call hierarchy.
type below struct {
	// children are the instance's direct children.
	children []runtime.InstanceRow
	// incidentsUnder counts open incidents in each direct child and below it.
	incidentsUnder map[runtime.InstanceID]int
	// incidents are the open incidents of every descendant.
	incidents []templates.IncidentItem
}

// descendants walks the called instances below id breadth first (at most
// maxDescendants) and collects their open incidents, each also counted on
// the direct child it lies under. Instances of processes the person may
// not read are left out, with everything below them.
func (h *handler) descendants(ctx context.Context, id runtime.InstanceID, readable func(key string) bool) (below, error) {
	b := below{incidentsUnder: map[runtime.InstanceID]int{}}
	type item struct {
		row   runtime.InstanceRow
		under runtime.InstanceID // the direct child of id it lies under
	}
	var queue []item
	kids, _, err := h.svc.ListInstances(ctx, runtime.InstanceFilter{ParentID: id, Limit: maxDescendants})
	if err != nil {
		return b, err
	}
	for _, k := range kids {
		if readable(k.ProcessKey) {
			b.children = append(b.children, k)
			queue = append(queue, item{row: k, under: k.ID})
		}
	}
	for seen := 0; len(queue) > 0 && seen < maxDescendants; seen++ {
		it := queue[0]
		queue = queue[1:]
		if it.row.Status == runtime.StatusFailed || it.row.Status == runtime.StatusRunning {
			open, err := h.svc.Incidents(ctx, it.row.ID, true)
			if err != nil {
				return b, err
			}
			for _, in := range open {
				b.incidentsUnder[it.under]++
				b.incidents = append(b.incidents, templates.IncidentItem{ID: in.ID, InstanceID: string(in.InstanceID), InstanceNumber: it.row.Number, ProcessKey: it.row.ProcessKey,
					NodeID: in.NodeID, Kind: in.Kind, Message: in.Message, CreatedAt: in.CreatedAt})
			}
		}
		grand, _, err := h.svc.ListInstances(ctx, runtime.InstanceFilter{ParentID: it.row.ID, Limit: maxDescendants})
		if err != nil {
			return b, err
		}
		for _, g := range grand {
			if readable(g.ProcessKey) {
				queue = append(queue, item{row: g, under: it.under})
			}
		}
	}
	return b, nil
}

// trace walks up the callers of v to the root; each caller is flagged with
// the open incidents at and below it that lie on this path (the current
// instance's own and its descendants', counted in here). The walk stops
// below a caller whose process the person may not read.
func (h *handler) trace(ctx context.Context, v runtime.InstanceView, here int, readable func(key string) bool) ([]templates.TraceItem, error) {
	items := []templates.TraceItem{{ID: string(v.ID), Number: v.Number, ProcessKey: v.ProcessKey, Status: v.Status, Current: true, Incidents: here}}
	carried := here
	next := v.InstanceRow
	for depth := 0; next.ParentID != "" && depth < maxTraceDepth; depth++ {
		pv, err := h.svc.Instance(ctx, next.ParentID)
		if err != nil {
			if runtime.ErrorCode(err) == runtime.ENOTFOUND {
				break
			}
			return nil, err
		}
		if !readable(pv.ProcessKey) {
			break
		}
		for _, in := range pv.Incidents {
			if in.ResolvedAt.IsZero() {
				carried++
			}
		}
		o, err := h.outline(ctx, pv.ProcessKey, pv.ProcessVersion)
		if err != nil {
			return nil, err
		}
		callName := o.Elements[next.ParentNodeID].Name
		items = append(items, templates.TraceItem{ID: string(pv.ID), Number: pv.Number, ProcessKey: pv.ProcessKey, Status: pv.Status, CallNode: next.ParentNodeID,
			CallName: callName, Incidents: carried})
		next = pv.InstanceRow
	}
	// Root first.
	for i, j := 0, len(items)-1; i < j; i, j = i+1, j-1 {
		items[i], items[j] = items[j], items[i]
	}
	return items, nil
}

// scopeTree nests a page of open scopes with the tokens of a page of
// tracks, and lists them as targets of the variables form. A scope whose
// parent is not on the page sits at the top; its label still counts the
// iterations of a body among known (the view's first page of scopes).
//
// transactions are the ids of the model's transaction sub-processes, whose
// scopes are labelled so.
func scopeTree(scopes []runtime.ScopeView, tracks []runtime.TrackView, known []runtime.ScopeView, transactions map[string]bool, names map[string]string) ([]templates.ScopeNode, []templates.ScopeOption) {
	byParent := map[string][]runtime.ScopeView{}
	ids := map[string]bool{}
	byID := map[string]runtime.ScopeView{}
	for _, s := range known {
		byID[s.ID] = s
	}
	for _, s := range scopes {
		ids[s.ID] = true
		byID[s.ID] = s
	}
	var roots []runtime.ScopeView
	for _, s := range scopes {
		if s.ParentID == "" || !ids[s.ParentID] {
			roots = append(roots, s)
			continue
		}
		byParent[s.ParentID] = append(byParent[s.ParentID], s)
	}
	tokens := map[string][]templates.TrackItem{}
	for _, t := range tracks {
		tokens[t.ScopeID] = append(tokens[t.ScopeID], templates.TrackItem{ID: t.ID, NodeID: t.NodeID, Name: names[t.NodeID], State: t.State})
	}
	var opts []templates.ScopeOption
	var build func(s runtime.ScopeView) templates.ScopeNode
	build = func(s runtime.ScopeView) templates.ScopeNode {
		n := templates.ScopeNode{ID: s.ID, Path: s.Path, NodeID: s.NodeID, State: s.State, Variables: editRows(s.Variables), Tracks: tokens[s.ID],
			Kind: s.Kind, Index: s.Index, Root: s.ParentID == "" && len(known) > 0 && s.ID == known[0].ID}
		n.Label, n.Counters, n.LoopCounter = scopeLabel(s, byID[s.ParentID], transactions[s.NodeID])
		if name := names[s.NodeID]; name != "" && strings.HasPrefix(n.Label, s.NodeID) {
			n.Label = name + strings.TrimPrefix(n.Label, s.NodeID) // the element's name; its id on hover
		}
		label := s.Path
		if n.Label != "" {
			label += " (" + n.Label + ")"
		}
		opts = append(opts, templates.ScopeOption{ID: s.ID, Label: label})
		for _, hv := range s.Handlers {
			n.Handlers = append(n.Handlers, templates.HandlerItem{NodeID: hv.NodeID, NodeName: names[hv.NodeID], Kind: hv.Kind, Trigger: hv.Trigger, Name: hv.Name, Interrupting: hv.Interrupting})
		}
		for _, c := range byParent[s.ID] {
			n.Children = append(n.Children, build(c))
		}
		return n
	}
	var out []templates.ScopeNode
	for _, s := range roots {
		out = append(out, build(s))
	}
	return out, opts
}

// endScopes marks scopes, and the scopes in them, as ended.
func endScopes(nodes []templates.ScopeNode) {
	for i := range nodes {
		nodes[i].State = scopeStateEnded
		endScopes(nodes[i].Children)
	}
}

// scopeStateEnded is the state the scope tree shows for the scopes an ended
// instance keeps.
const scopeStateEnded = "ended"

// Multi-instance variables (docs/scopes.md#loops-and-multi-instance): the body's counters and an
// iteration's counter.
const (
	varInstances   = "nrOfInstances"
	varActive      = "nrOfActiveInstances"
	varCompleted   = "nrOfCompletedInstances"
	varTerminated  = "nrOfTerminatedInstances"
	varLoopCounter = "loopCounter"
)

// scopeLabel names a scope for people: its element, and for a loop or
// multi-instance body or iteration what it is, e.g. "approve · iteration 2
// of 3" (the count from the body's nrOfInstances; a standard loop has
// none). counters sums up a body's iterations; loopCounter is an
// iteration's loopCounter variable as JSON. A transaction's own scope
// (transaction: its node is one) reads "tx · transaction"; a compensation
// run is named after the event that threw it ("cancelled ·
// compensation"), a handler's scope after the handler ("undoHotel ·
// compensation handler").
func scopeLabel(s, parent runtime.ScopeView, transaction bool) (label, counters, loopCounter string) {
	label = s.NodeID
	switch s.Kind {
	case "":
		if transaction {
			label += " · transaction"
		}
	case "body":
		if n, ok := whole(s.Variables[varInstances]); ok {
			label += " · multi-instance body"
			counters = fmt.Sprintf("%d instances", n)
			var parts []string
			for _, c := range []struct{ name, what string }{{varActive, "active"}, {varCompleted, "completed"}, {varTerminated, "terminated"}} {
				if k, ok := whole(s.Variables[c.name]); ok {
					parts = append(parts, fmt.Sprintf("%d %s", k, c.what))
				}
			}
			if len(parts) > 0 {
				counters += ": " + strings.Join(parts, ", ")
			}
		} else {
			label += " · loop body"
			if k, ok := whole(s.Variables[varCompleted]); ok {
				counters = fmt.Sprintf("%d iterations completed", k)
			}
		}
	case "compensation":
		label += " · compensation"
	case "compensating":
		label += " · compensation handler"
	case "iteration":
		label += fmt.Sprintf(" · iteration %d", s.Index)
		if n, ok := whole(parent.Variables[varInstances]); ok && parent.Kind == "body" {
			label += fmt.Sprintf(" of %d", n)
		}
		if lc, ok := s.Variables[varLoopCounter]; ok {
			b, err := json.Marshal(lc)
			if err != nil {
				b = []byte(fmt.Sprint(lc))
			}
			loopCounter = string(b)
		}
	}
	return label, counters, loopCounter
}

// whole reads a variable holding a whole number.
func whole(v any) (int, bool) {
	switch n := v.(type) {
	case json.Number:
		i, err := n.Int64()
		return int(i), err == nil
	case float64:
		return int(n), n == float64(int(n))
	case int:
		return n, true
	case int64:
		return int(n), true
	}
	return 0, false
}

// varItems lists variables by name with their JSON values.
func varItems(vars map[string]any) []templates.VarItem {
	out := make([]templates.VarItem, 0, len(vars))
	for k, val := range vars {
		b, err := json.Marshal(val)
		if err != nil {
			b = []byte(fmt.Sprint(val))
		}
		out = append(out, templates.VarItem{Name: k, Value: string(b)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// factDetail renders the detail of a history fact: compensation facts in
// words (what is undone, by which handler, thrown by what: elements by
// their names), any other as its JSON.
func factDetail(kind string, raw json.RawMessage, names map[string]string) string {
	return compensationWords(kind, raw, decodeDetails(kind, raw), names)
}

// compensationWords is factDetail of a fact whose detail raw decoded as dd.
func compensationWords(kind string, raw json.RawMessage, dd details, names map[string]string) string {
	switch kind {
	case runtime.FactCompensationThrown, runtime.FactCompensationStarted, runtime.FactCompensationCompleted:
		if !dd.decoded {
			return detail(raw)
		}
	default:
		return detail(raw)
	}
	d := dd.Compensation
	var parts []string
	switch kind {
	case runtime.FactCompensationThrown:
		what := "nothing completed to undo"
		if len(d.Activities) > 0 {
			what = "undoes " + countedList(d.Activities, names) + ", the latest first"
		}
		parts = append(parts, what)
		if d.ActivityRef != "" {
			parts = append(parts, "only "+nameOf(d.ActivityRef, names))
		}
		if d.Cancel {
			parts = append(parts, "the transaction is cancelled")
		} else if d.Wait != nil && !*d.Wait {
			parts = append(parts, "the token goes on without waiting")
		}
	case runtime.FactCompensationStarted:
		if d.Handler != "" {
			parts = append(parts, "undone by "+nameOf(d.Handler, names))
		} else {
			parts = append(parts, "undone through its own activities")
		}
		if d.Cause != "" {
			parts = append(parts, "thrown by "+nameOf(d.Cause, names))
		}
	case runtime.FactCompensationCompleted:
		parts = append(parts, "done")
		if d.Cause != "" {
			parts = append(parts, "thrown by "+nameOf(d.Cause, names))
		}
	}
	return strings.Join(parts, "; ")
}

// countedList names activities in order (by name, else id), a run of the
// same one once with its count: "Charge the card, Book the hotel ×5,
// bookFlight".
func countedList(ids []string, names map[string]string) string {
	var out []string
	for i := 0; i < len(ids); {
		j := i
		for j < len(ids) && ids[j] == ids[i] {
			j++
		}
		if n := j - i; n > 1 {
			out = append(out, fmt.Sprintf("%s ×%d", nameOf(ids[i], names), n))
		} else {
			out = append(out, nameOf(ids[i], names))
		}
		i = j
	}
	return strings.Join(out, ", ")
}

// activatedBy names the decider of an ad-hoc activation fact (its
// detail decoded as d): the person, the router, or a router job with the
// worker that answered it.
func activatedBy(kind string, d details) string {
	if kind != runtime.FactAdHocActivated || !d.decoded {
		return ""
	}
	if d.AdHoc.Worker != "" {
		return d.AdHoc.By + " (worker " + d.AdHoc.Worker + ")"
	}
	return d.AdHoc.By
}

// detail shows a fact's detail compactly ("" for none).
func detail(raw json.RawMessage) string {
	s := strings.TrimSpace(string(raw))
	if s == "" || s == "null" || s == "{}" {
		return ""
	}
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}

// cancel terminates an instance after the confirmation step.
func (h *handler) cancel(w http.ResponseWriter, r *http.Request) {
	id := runtime.InstanceID(chi.URLParam(r, "id"))
	to := templates.InstanceURL(string(id))
	if _, err := h.svc.Cancel(r.Context(), id); err != nil {
		h.actFailed(w, r, to, err)
		return
	}
	h.done(w, r, to, "ok", "The instance was cancelled, with every instance it called.")
}

// deleteInstance deletes an ended instance after the confirmation step and
// returns to the instance list; a refusal (it runs again? its caller runs)
// returns to the instance with the reason.
func (h *handler) deleteInstance(w http.ResponseWriter, r *http.Request) {
	id := runtime.InstanceID(chi.URLParam(r, "id"))
	label := templates.ShortID(string(id))
	if rows, err := h.svc.InstanceRows(r.Context(), []runtime.InstanceID{id}); err == nil {
		if row, ok := rows[id]; ok {
			label = templates.InstanceLabel(row.ProcessKey, row.Number, string(id))
		}
	}
	if err := h.svc.DeleteInstance(r.Context(), id); err != nil {
		h.actFailed(w, r, templates.InstanceURL(string(id)), err)
		return
	}
	h.done(w, r, templates.RouteInstances, "ok", "The instance "+label+" and its history were deleted.")
}

// setVariables writes variables from the instance page's form; a refused
// write shows the form again with what was typed.
func (h *handler) setVariables(w http.ResponseWriter, r *http.Request) {
	if r.PostFormValue("mode") != "" {
		h.setVariable(w, r) // one variable's editor or the "add variable" form
		return
	}
	id := runtime.InstanceID(chi.URLParam(r, "id"))
	form := templates.VariablesForm{ScopeID: r.PostFormValue("scope"), JSON: r.PostFormValue("variables"), Local: r.PostFormValue("local") == "true"}
	refuse := func(status int, msg string) {
		p, err := h.instancePage(w, r, id)
		if err != nil {
			h.failErr(w, r, err)
			return
		}
		p.Variables = form
		p.Here = templates.InstanceURL(string(id))
		p.Flash = templates.Flash{Kind: "error", Message: msg}
		h.render(w, r, status, templates.Instance(p))
	}
	vars, err := parseVariables(form.JSON)
	if err != nil {
		refuse(http.StatusBadRequest, err.Error())
		return
	}
	if len(vars) == 0 {
		refuse(http.StatusBadRequest, "Type at least one variable, as a JSON object such as {\"approved\": true}.")
		return
	}
	scopeID := form.ScopeID
	if scopeID == "/" {
		scopeID = ""
	}
	if _, err := h.svc.SetVariables(r.Context(), id, scopeID, vars, form.Local); err != nil {
		if runtime.ErrorCode(err) == runtime.EINTERNAL {
			h.actFailed(w, r, templates.InstanceURL(string(id)), err)
			return
		}
		refuse(statusOf(err), h.plain(r, err))
		return
	}
	names := make([]string, 0, len(vars))
	for k := range vars {
		names = append(names, k)
	}
	sort.Strings(names)
	h.done(w, r, templates.InstanceURL(string(id)), "ok", "Set "+strings.Join(names, ", ")+".")
}
