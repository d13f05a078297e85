package engine

import (
	"slices"
	"strconv"

	"github.com/gobpm/gobpm/internal/bpmn"
	"github.com/gobpm/gobpm/internal/scope"
)

// Compensation (docs/scopes.md#tracks, its compensation paragraphs).
//
// Completing an activity that can be compensated — it has a compensation
// boundary event, or it is a sub-process with a compensation event
// sub-process or with compensable activities inside — records an Entry in
// the scope whose compensation covers it (the nearest enclosing
// sub-process, transaction, event sub-process or root scope; io scopes,
// loop bodies and iterations are skipped), with a snapshot of the local
// variables it completed with: once per completion, so every iteration of
// a loop or multi-instance activity has its own. A completed
// sub-process's entry owns the entries recorded inside it (Entry.Inner).
//
// An activity is compensable once it has completed as a whole: the entries
// of a loop's or multi-instance activity's iterations wait (Entry.Body)
// until the body completes, so a throw while the body still runs
// compensates none of them, as BPMN (10.7: an active activity is not
// compensated) and Camunda 7 say; a body cancelled takes them with it.
//
// A compensation throw claims the unclaimed entries of its scope (or of
// one activity, activityRef) and opens a compensation run scope
// (scopeKindCompensation) that runs their handlers one at a time, in
// reverse order of completion, each in a scopeKindCompensating scope whose
// variables are the snapshot: the handler activity of a compensation
// boundary event, a sub-process's compensation event sub-process, or a
// nested run over the sub-process's inner entries. A sub-process with a
// compensation boundary event and compensable activities inside records
// two entries (Entry.InnerOnly): compensating it runs its boundary handler
// first, then its inner activities, the latest first (Camunda 7 runs both;
// a compensation event sub-process instead compensates the inner
// activities itself, by its throws). A compensated entry is
// gone (each completion is compensated once). With waitForCompletion the
// throwing track waits in the run's host; the run, a child scope of the
// throw's scope, keeps that scope from draining either way.
//
// Entries are discarded with the scope that owns them when it is cancelled
// or closes without turning into an entry of its own (an event
// sub-process's handler scope, the root), so an error leaving a
// transaction compensates nothing.

// Scope kinds of compensation.
const (
	// scopeKindCompensation is a compensation run: the handlers of the
	// entries it claimed run in it one after another.
	scopeKindCompensation = "compensation"
	// scopeKindCompensating runs the handler of one entry; its variables
	// are the entry's snapshot.
	scopeKindCompensating = "compensating"
)

// PartEntry is a compensation entry; key: its id.
const PartEntry = "compensation"

// Entry is a completed activity that can still be compensated.
type Entry struct {
	ID string `json:"id"`
	// Owner is the scope whose compensation covers the entry (it may be
	// closed: a completed sub-process's scope owns its inner entries).
	Owner  scope.ID `json:"owner"`
	NodeID string   `json:"node"`
	// Vars is the snapshot of the local variables the activity completed
	// with (its io scope's, its iteration's, a sub-process's own).
	Vars map[string]any `json:"vars,omitempty"`
	// Inner is the closed scope of a completed sub-process, which owns the
	// entries recorded inside it.
	Inner scope.ID `json:"inner,omitempty"`
	// Run is the compensation run that claimed the entry; Handler the
	// scope running its handler (empty while it waits for its turn).
	Run     scope.ID `json:"run,omitempty"`
	Handler scope.ID `json:"handler,omitempty"`
	// Cause is the throw event (or cancel end event) that claimed it.
	Cause string `json:"cause,omitempty"`
	// Body is the loop or multi-instance body an iteration's entry waits
	// for: the entry can be compensated only once the body has completed
	// (it is cleared then), and goes when the body is cancelled.
	Body scope.ID `json:"body,omitempty"`
	// InnerOnly marks the entry of a sub-process that has a compensation
	// boundary event and compensable activities inside: it compensates the
	// inner entries only, and the boundary handler has an entry of its own,
	// recorded right after it (so, the later completion, it runs first).
	InnerOnly bool `json:"innerOnly,omitempty"`
	// then is an entry recorded right after this one (the boundary handler's
	// entry of an InnerOnly entry); only between prepareEntry and
	// recordEntry.
	then *Entry
}

func (e *Entry) clone() *Entry {
	c := *e
	c.Vars = scope.CloneVars(e.Vars)
	return &c
}

// entryNum reads the counter of an entry id "c<n>".
func entryNum(id string) int64 {
	if len(id) < 2 || id[0] != 'c' {
		return 0
	}
	n, err := strconv.ParseInt(id[1:], 10, 64)
	if err != nil {
		return 0
	}
	return n
}

// entry returns the entry with the given id, or nil.
func (s *State) entry(id string) *Entry {
	for _, e := range s.Entries {
		if e.ID == id {
			return e
		}
	}
	return nil
}

// markEntry records that an entry was created, changed or removed.
func (x *executor) markEntry(e *Entry) { x.changed.add(PartEntry, e.ID) }

// closedSub is a sub-process scope that just completed: its id and local
// variables, for the entry its host records.
type closedSub struct {
	id   scope.ID
	vars map[string]any
}

// compOwner returns the scope whose compensation covers an activity
// running in scope s: s, or above it past io scopes, bodies and iterations.
func (x *executor) compOwner(s scope.ID) scope.ID {
	for {
		sc := x.st.Scopes.Get(s)
		if sc == nil || s == scope.RootID {
			return s
		}
		switch sc.Kind {
		case scopeKindIO, scope.KindBody, scope.KindIteration:
			s = sc.Parent
		default:
			return s
		}
	}
}

// compTarget returns the owner of the entries a compensation thrown in
// scope s compensates: s's owner; for a throw inside an event sub-process,
// the scope that event sub-process belongs to; for a throw inside a
// compensation event sub-process, the completed sub-process it compensates.
func (x *executor) compTarget(s scope.ID) scope.ID {
	s = x.compOwner(s)
	sc := x.st.Scopes.Get(s)
	if sc == nil || s == scope.RootID {
		return s
	}
	switch {
	case sc.Kind == scopeKindCompensating:
		if e := x.entryByHandler(s); e != nil && e.Inner != "" {
			return e.Inner
		}
	case sc.Kind == "":
		if n := x.proc.Node(sc.NodeID); n != nil && n.TriggeredByEvent {
			return x.compOwner(sc.Parent)
		}
	}
	return s
}

// entryByHandler returns the entry whose handler runs in scope s, or nil.
func (x *executor) entryByHandler(s scope.ID) *Entry {
	for _, e := range x.st.Entries {
		if e.Handler == s {
			return e
		}
	}
	return nil
}

// owns reports whether any entry is owned by scope s.
func (x *executor) owns(s scope.ID) bool {
	return slices.ContainsFunc(x.st.Entries, func(e *Entry) bool { return e.Owner == s })
}

// prepareEntry builds the entry track t's completion of activity n
// records, or returns nil when n cannot be compensated. It runs before n's
// io scope closes, so the snapshot holds n's inputs; recordEntry adds it
// once the completion stands.
func (x *executor) prepareEntry(t *Track, n *bpmn.Node) *Entry {
	closed, hasClosed := x.closing[t.ID]
	delete(x.closing, t.ID)
	if x.skipEntry == t.ID {
		// A retry of what followed an activity's completion: its entry
		// was recorded then (an iteration records only past its
		// completion condition, so it records now).
		x.skipEntry = ""
		if !t.Inner || n.Loop == nil {
			return nil
		}
	}
	if len(x.st.Entries) == 0 && n.CompensatedBy == nil && n.CompensationSub == nil {
		return nil
	}
	if !n.IsActivity() || n.ForCompensation || n.TriggeredByEvent || (n.Loop != nil && !t.Inner) {
		return nil
	}
	inner := scope.ID("")
	if hasClosed && x.owns(closed.id) {
		inner = closed.id
	}
	if n.CompensatedBy == nil && n.CompensationSub == nil && inner == "" {
		return nil
	}
	owner := x.compOwner(t.Scope)
	var chain []*scope.Scope
	body := scope.ID("")
	for s := t.Scope; s != owner; {
		sc := x.st.Scopes.Get(s)
		if sc == nil {
			break
		}
		chain = append(chain, sc)
		if sc.Kind == scope.KindBody && body == "" {
			body = sc.ID
		}
		s = sc.Parent
	}
	vars := map[string]any{}
	for i := len(chain) - 1; i >= 0; i-- {
		for k, v := range chain[i].Vars {
			vars[k] = scope.CloneValue(v)
		}
	}
	if hasClosed {
		for k, v := range closed.vars {
			vars[k] = v
		}
	}
	if len(vars) == 0 {
		vars = nil
	}
	e := &Entry{Owner: owner, NodeID: n.ID, Vars: vars, Inner: inner, Body: body}
	if n.CompensatedBy != nil && inner != "" {
		// Compensating the sub-process runs its boundary handler and
		// compensates its inner activities, as Camunda 7 does: two entries.
		own := &Entry{Owner: owner, NodeID: n.ID, Vars: scope.CloneVars(vars), Body: body}
		e.InnerOnly, e.then = true, own
	}
	return e
}

// recordEntry adds a prepared entry to the state.
func (x *executor) recordEntry(e *Entry) {
	if e == nil {
		return
	}
	then := e.then
	e.then = nil
	x.st.NextEntry++
	e.ID = "c" + strconv.Itoa(x.st.NextEntry)
	x.st.Entries = append(x.st.Entries, e)
	x.markEntry(e)
	x.recordEntry(then)
}

// bodyCompleted makes the entries of body s's iterations compensable: the
// loop or multi-instance activity has completed as a whole.
func (x *executor) bodyCompleted(s scope.ID) {
	for _, e := range x.st.Entries {
		if e.Body == s {
			e.Body = ""
			x.markEntry(e)
		}
	}
}

// dropEntries discards the entries owned by scope s (or, s a body, those
// of its iterations still waiting for it), and the ones they own.
func (x *executor) dropEntries(s scope.ID) {
	if len(x.st.Entries) == 0 {
		return
	}
	var inner []scope.ID
	x.st.Entries = slices.DeleteFunc(x.st.Entries, func(e *Entry) bool {
		if e.Owner != s && e.Body != s {
			return false
		}
		x.markEntry(e)
		if e.Inner != "" {
			inner = append(inner, e.Inner)
		}
		return true
	})
	for _, in := range inner {
		x.dropEntries(in)
	}
}

// dropEntry discards one entry and the ones it owns.
func (x *executor) dropEntry(e *Entry) {
	x.st.Entries = slices.DeleteFunc(x.st.Entries, func(o *Entry) bool { return o == e })
	x.markEntry(e)
	if e.Inner != "" {
		x.dropEntries(e.Inner)
	}
}

// releaseEntries hands back the entries claimed by, or running their
// handler in, scope s (a run or handler scope being cancelled): they can be
// compensated again.
func (x *executor) releaseEntries(s scope.ID) {
	for _, e := range x.st.Entries {
		if e.Run == s || e.Handler == s {
			e.Run, e.Handler, e.Cause = "", "", ""
			x.markEntry(e)
		}
	}
}

// throwCompensation starts compensating for the compensation throw event
// n that track t reached. It reports whether t now waits for the handlers
// (waitForCompletion with something to compensate); the caller continues
// t otherwise.
func (x *executor) throwCompensation(t *Track, n *bpmn.Node) bool {
	target := x.compTarget(t.Scope)
	ref := ""
	if n.Event.Activity != nil {
		ref = n.Event.Activity.ID
	}
	claimed := x.claimable(target, ref)
	detail := map[string]any{"activities": entryNodes(claimed), "waitForCompletion": n.Event.WaitForCompletion}
	if ref != "" {
		detail["activityRef"] = ref
	}
	x.fact(FactCompensationThrown, n.ID, t.Scope, t.ID, detail)
	if len(claimed) == 0 {
		return false
	}
	run := x.openRun(t.Scope, n.ID, claimed, nil)
	if run == nil {
		x.incident(t, IncidentUnknownModel, "compensation run of "+n.ID+" could not open")
		return true
	}
	wait := n.Event.WaitForCompletion
	if wait {
		t.State, t.Child = TrackInScope, run.ID
		x.markTrack(t)
	}
	x.nextEntry(run.ID)
	return wait
}

// claimable returns the unclaimed entries owned by scope owner (of
// activity ref only, unless ref is ""), the latest completion first; an
// iteration's entry whose body still runs is not compensable yet.
func (x *executor) claimable(owner scope.ID, ref string) []*Entry {
	var out []*Entry
	for _, e := range x.st.Entries {
		if e.Owner == owner && e.Run == "" && e.Body == "" && (ref == "" || e.NodeID == ref) {
			out = append(out, e)
		}
	}
	slices.SortFunc(out, func(a, b *Entry) int { return int(entryNum(b.ID) - entryNum(a.ID)) })
	return out
}

// entryNodes lists the activities of entries, in order.
func entryNodes(es []*Entry) []any {
	out := make([]any, len(es))
	for i, e := range es {
		out[i] = e.NodeID
	}
	return out
}

// openRun opens a compensation run scope under parent for cause (a throw,
// a cancel end event, or a sub-process whose inner entries it
// compensates) and claims entries for it.
func (x *executor) openRun(parent scope.ID, cause string, entries []*Entry, vars map[string]any) *scope.Scope {
	run, err := x.st.Scopes.Open(parent, cause, nil)
	if err != nil {
		return nil
	}
	run.Kind = scopeKindCompensation
	if vars != nil {
		run.Vars = scope.CloneVars(vars)
	}
	for _, e := range entries {
		e.Run, e.Cause = run.ID, cause
		x.markEntry(e)
	}
	x.fact(FactScopeOpened, cause, run.ID, "", map[string]any{"compensation": true, "entries": len(entries)})
	return run
}

// nextEntry starts the handler of the latest claimed entry of run, or
// finishes the run when none is left and no handler runs. With
// Process.ConcurrentCompensation (Camunda's behaviour) it starts every
// claimed entry's handler at once, the latest first; otherwise one at a
// time, each once the previous one has completed.
func (x *executor) nextEntry(run scope.ID) {
	concurrent := x.proc.ConcurrentCompensation
	for {
		var next *Entry
		running := false
		for _, e := range x.st.Entries {
			if e.Run != run {
				continue
			}
			if e.Handler != "" {
				running = true
			} else if next == nil || entryNum(e.ID) > entryNum(next.ID) {
				next = e
			}
		}
		switch {
		case next == nil && !running:
			x.finishRun(run)
			return
		case next == nil, running && !concurrent:
			return
		}
		x.startEntry(run, next)
		if !concurrent || x.st.Scopes.Get(run) == nil {
			return // one at a time, or the run finished meanwhile
		}
	}
}

// startEntry starts the handler of claimed entry next of run.
func (x *executor) startEntry(run scope.ID, next *Entry) {
	n := x.proc.Node(next.NodeID)
	if n == nil {
		x.dropEntry(next) // not in this version's model: nothing can undo it
		x.nextEntry(run)
		return
	}
	detail := map[string]any{"entry": next.ID, "cause": next.Cause}
	switch {
	case n.CompensatedBy != nil && !next.InnerOnly:
		detail["handler"] = n.CompensatedBy.ID
		h := x.openHandler(run, n.CompensatedBy.ID, next)
		x.fact(FactCompensationStarted, n.ID, h.ID, "", detail)
		x.newTrack(h.ID, n.CompensatedBy.ID, "")
	case n.CompensationSub != nil && !next.InnerOnly:
		detail["handler"] = n.CompensationSub.ID
		h := x.openHandler(run, n.CompensationSub.ID, next)
		x.fact(FactCompensationStarted, n.ID, h.ID, "", detail)
		x.fact(FactScopeOpened, n.CompensationSub.ID, h.ID, "", map[string]any{"compensating": n.ID})
		x.newTrack(h.ID, n.CompensationSub.Trigger.ID, "")
	default:
		// A sub-process without handler of its own, or the inner part of
		// one with a boundary handler: its inner entries are compensated,
		// in a nested run that sees its snapshot.
		inner := x.claimable(next.Inner, "")
		r := x.openRun(run, n.ID, inner, next.Vars)
		if r == nil {
			x.dropEntry(next)
			x.nextEntry(run)
			return
		}
		next.Handler = r.ID
		x.markEntry(next)
		x.fact(FactCompensationStarted, n.ID, r.ID, "", detail)
		x.nextEntry(r.ID)
	}
}

// openHandler opens the scope running entry e's handler inside run, its
// variables the entry's snapshot.
func (x *executor) openHandler(run scope.ID, handler string, e *Entry) *scope.Scope {
	h, _ := x.st.Scopes.Open(run, handler, nil) // run is open: it cannot fail
	h.Kind = scopeKindCompensating
	if e.Vars != nil {
		h.Vars = scope.CloneVars(e.Vars)
	}
	e.Handler = h.ID
	x.markEntry(e)
	return h
}

// handlerDone closes the drained handler scope sc: its entry is
// compensated and gone, and its run goes on.
func (x *executor) handlerDone(sc *scope.Scope) {
	e := x.entryByHandler(sc.ID)
	x.fact(FactScopeClosed, sc.NodeID, sc.ID, "", nil)
	x.dropEntries(sc.ID)
	x.st.Scopes.Close(sc.ID)
	if e == nil {
		return
	}
	x.entryDone(e, sc.Parent)
}

// entryDone records that entry e's handler finished and starts the next
// one of run.
func (x *executor) entryDone(e *Entry, run scope.ID) {
	x.fact(FactCompensationCompleted, e.NodeID, run, "", map[string]any{"entry": e.ID, "cause": e.Cause})
	x.dropEntry(e)
	x.nextEntry(run)
}

// finishRun closes a run with nothing left to compensate. A nested run
// completes its sub-process's entry; a throw's run resumes its waiting
// throw (or lets its scope drain); a cancel end event's run leaves the
// transaction by its cancel boundary event.
func (x *executor) finishRun(run scope.ID) {
	sc := x.st.Scopes.Get(run)
	if sc == nil {
		return
	}
	x.fact(FactScopeClosed, sc.NodeID, run, "", map[string]any{"compensation": true})
	x.st.Scopes.Close(run)
	if e := x.entryByHandler(run); e != nil {
		x.entryDone(e, sc.Parent)
		return
	}
	n := x.proc.Node(sc.NodeID)
	if n != nil && n.Event != nil && n.Event.Kind == bpmn.TriggerCancel {
		x.leaveTransaction(sc.Parent, n)
		return
	}
	if host := x.hostOf(run); host != nil && n != nil {
		host.Child, host.State = "", TrackReady
		x.markTrack(host)
		if n.Kind == bpmn.KindEndEvent {
			x.fact(FactElementCompleted, n.ID, host.Scope, host.ID, nil)
			x.endTrack(host)
			return
		}
		x.complete(host, n)
		return
	}
	x.checkDrain(sc.Parent)
}

// cancelTransaction runs cancel end event n reached by track t (the
// compensation paragraphs of docs/scopes.md#tracks): every other track and nested scope of the transaction is
// cancelled, its completed activities are compensated, then it is left by
// its cancel boundary event.
func (x *executor) cancelTransaction(t *Track, n *bpmn.Node) {
	tx := x.flowScope(t)
	x.removeTrack(t)
	x.cancelInside(tx, "cancel end event "+n.ID)
	claimed := x.claimable(tx, "")
	x.fact(FactCompensationThrown, n.ID, tx, t.ID, map[string]any{"activities": entryNodes(claimed), "cancel": true})
	if len(claimed) == 0 {
		x.leaveTransaction(tx, n)
		return
	}
	run := x.openRun(tx, n.ID, claimed, nil)
	if run == nil {
		x.leaveTransaction(tx, n)
		return
	}
	x.nextEntry(run.ID)
}

// leaveTransaction fires the cancel boundary event of the transaction
// whose scope is tx, cancelled by cancel end event n: the transaction's
// scope is cancelled and its host leaves by the boundary event. For a
// multi-instance transaction, the boundary event guards the whole body.
func (x *executor) leaveTransaction(tx scope.ID, n *bpmn.Node) {
	host := x.hostOf(tx)
	if host != nil && host.Inner {
		if it := x.st.Scopes.Get(host.Scope); it != nil {
			host = x.hostOf(it.Parent)
		}
	}
	if host == nil {
		return
	}
	txNode := x.proc.Node(host.Node)
	var b *bpmn.Node
	if txNode != nil {
		for _, o := range txNode.Boundaries {
			if o.Event != nil && o.Event.Kind == bpmn.TriggerCancel {
				b = o
			}
		}
	}
	if b == nil {
		x.incident(host, IncidentUnknownModel, "transaction "+host.Node+" has no cancel boundary event for "+n.ID)
		return
	}
	x.interrupt(host, b)
	x.fact(FactElementActivated, b.ID, host.Scope, host.ID, map[string]any{"type": string(b.Kind)})
	x.runEvent(host, b, nil)
}

// entryPending reports whether track t, stopped by an incident after its
// element n completed, still has to record n's compensation entry: its
// output mappings failed (n's io scope, or a sub-process's scope, is still
// open), so the completion did not stand.
func (x *executor) entryPending(t *Track, n *bpmn.Node) bool {
	if io := x.ioScope(t); io != nil && io.NodeID == n.ID {
		return true
	}
	return n.Sub != nil && t.Child != "" && x.st.Scopes.Get(t.Child) != nil
}
