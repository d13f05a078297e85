package conformance

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	_ "modernc.org/sqlite" // the "sqlite" driver, for the read-only view of the waits table

	"github.com/gobpm/gobpm/internal/clock"
	"github.com/gobpm/gobpm/internal/engine"
	"github.com/gobpm/gobpm/internal/runtime"
	"github.com/gobpm/gobpm/internal/store/sqlite"
	"github.com/gobpm/gobpm/internal/timer"
)

// conformanceDir finds shared/conformance next to the repository root by
// walking up from the package directory. It skips the test when the folder
// is absent, unless CI=true, where absence fails.
func conformanceDir(tb testing.TB) string {
	tb.Helper()
	if dir := locateConformance(); dir != "" {
		return dir
	}
	if os.Getenv("CI") == "true" {
		tb.Fatal("shared/conformance not found next to the repository (required when CI=true)")
	}
	tb.Skip("shared/conformance not found; skipping the execution scenarios")
	return ""
}

// locateConformance returns shared/conformance next to the repository
// root, found by walking up from the package directory, or "" when absent.
func locateConformance() string {
	dir, err := filepath.Abs(".")
	if err != nil {
		return ""
	}
	for {
		cand := filepath.Join(dir, "shared", "conformance")
		if st, err := os.Stat(cand); err == nil && st.IsDir() {
			return cand
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// epoch is where every run's clock starts: a whole hour, so cron cycles
// such as "every 5 minutes at second 0" are due exactly 5 minutes later.
var epoch = time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)

// actor completes user tasks; the scenario models have no assignees or
// candidates, so anyone may.
var actor = runtime.Actor{User: "conformance"}

// runner replays the steps of one run against a fresh runtime over a fresh
// SQLite file.
type runner struct {
	t     *testing.T
	label string // "row 3 run (a)"
	ctx   context.Context
	clk   *clock.Manual
	rt    *runtime.Runtime
	// waits is a read-only connection to the same SQLite file: the runtime
	// has no method listing an instance's waits, so subscriptions and timers
	// are read from the waits table.
	waits *sql.DB
	// inst is the instance of the last start.
	inst runtime.InstanceID
	// timers are the timer waits (id → due time) seen at the last timers step.
	timers map[string]time.Time
	// logs collects the runtime's warnings and errors (a failing due
	// timer is only logged), shown with the observed state.
	logs *syncBuffer
}

// syncBuffer is a bytes.Buffer safe for the runtime's concurrent logging.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// newRunner opens the store and the runtime and deploys files.
func newRunner(t *testing.T, label string, files []runtime.File) *runner {
	t.Helper()
	r := openRunner(t, label)
	if _, err := r.rt.Deploy(r.ctx, files); err != nil {
		t.Fatalf("%s: deploy: %v", label, err)
	}
	return r
}

// openRunner opens the store and the runtime, with nothing deployed.
// SQLite only (not testdb): the harness reads the instance's waits from the
// file through a connection of its own, which the PostgreSQL store offers no
// equivalent of; the store behaviour the scenarios rely on is covered on
// both stores by internal/store/storetest and the runtime's suite.
func openRunner(t *testing.T, label string) *runner {
	t.Helper()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "gobpm.db")
	db, err := sqlite.Open(ctx, path, sqlite.Options{Synchronous: "NORMAL"})
	if err != nil {
		t.Fatalf("%s: open store: %v", label, err)
	}
	clk := clock.NewManual(epoch)
	logs := &syncBuffer{}
	logger := slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelWarn}))
	rt := runtime.New(db, runtime.Options{Now: clk.Now, Logger: logger})
	q := url.Values{}
	q.Add("_pragma", "busy_timeout(5000)")
	q.Add("_pragma", "query_only(ON)")
	waits, err := sql.Open("sqlite", "file:"+(&url.URL{Path: path}).EscapedPath()+"?"+q.Encode())
	if err != nil {
		t.Fatalf("%s: open waits reader: %v", label, err)
	}
	t.Cleanup(func() {
		waits.Close()
		rt.Close()
		db.Close()
	})
	return &runner{t: t, label: label, ctx: ctx, clk: clk, rt: rt, waits: waits, logs: logs}
}

// observation is what the harness can see of the current instance.
type observation struct {
	status    string
	revision  int64
	tasks     []string // open user tasks by element id, sorted, incl. called children
	subs      []string // open message/signal subscriptions by name, sorted
	timers    []string // pending timer wait ids, sorted
	timerDue  map[string]time.Time
	tree      string // canonical scope tree
	scopes    []runtime.ScopeView
	children  []runtime.ChildView
	incidents []runtime.IncidentRow // open incidents
	// regions are the open ad-hoc regions; enabled their candidates, sorted.
	regions []runtime.RegionView
	enabled []string
	errs    []string // what could not be read
}

// String is the observed state for failure messages.
func (o observation) String() string {
	var b strings.Builder
	timers := make([]string, len(o.timers))
	for i, id := range o.timers {
		timers[i] = id + " due " + o.timerDue[id].Format(time.RFC3339)
	}
	fmt.Fprintf(&b, "status=%s revision=%d\n  open user tasks {%s}\n  subscriptions {%s}\n  timers %d [%s]\n  scope tree %s",
		o.status, o.revision, strings.Join(o.tasks, ", "), strings.Join(o.subs, ", "), len(o.timers), strings.Join(timers, ", "), o.tree)
	for _, rg := range o.regions {
		fmt.Fprintf(&b, "\n  ad-hoc region %s (%s, %s): candidates {%s} running {%s} completed %v stopped %q",
			rg.NodeID, rg.Selection, rg.Ordering, strings.Join(candidateIDs(rg), ", "), strings.Join(rg.Running, ", "), rg.Completed, rg.Stopped)
	}
	for _, in := range o.incidents {
		fmt.Fprintf(&b, "\n  incident %s at %s: %s", in.Kind, in.NodeID, in.Message)
	}
	for _, c := range o.children {
		fmt.Fprintf(&b, "\n  child %s at %s: %s", c.InstanceID, c.NodeID, c.Status)
	}
	for _, e := range o.errs {
		fmt.Fprintf(&b, "\n  (could not read: %s)", e)
	}
	return b.String()
}

// fingerprint is the part of an observation a rejected call must not change.
func (o observation) fingerprint() string {
	return fmt.Sprintf("%s|%d|%v|%v|%v|%s|%d|%v", o.status, o.revision, o.tasks, o.subs, o.timerDue, o.tree, len(o.incidents), o.enabled)
}

// observe reads the current instance. It never fails the test: what cannot
// be read is listed in errs.
func (r *runner) observe() observation {
	o := observation{tasks: []string{}, subs: []string{}, timers: []string{}, timerDue: map[string]time.Time{}, enabled: []string{}}
	if r.inst == "" {
		o.status = "(no instance started)"
		return o
	}
	v, err := r.rt.Instance(r.ctx, r.inst)
	if err != nil {
		o.errs = append(o.errs, "instance: "+err.Error())
		return o
	}
	o.status, o.revision, o.scopes, o.children = v.Status, v.Revision, v.Scopes, v.Children
	o.tree = scopeTree(v)
	for _, in := range v.Incidents {
		if in.ResolvedAt.IsZero() {
			o.incidents = append(o.incidents, in)
		}
	}
	tasks, err := r.openTasks()
	if err != nil {
		o.errs = append(o.errs, "tasks: "+err.Error())
	}
	if o.regions, err = r.rt.AdHocRegions(r.ctx, r.inst); err != nil {
		o.errs = append(o.errs, "ad-hoc regions: "+err.Error())
	}
	for _, rg := range o.regions {
		o.enabled = append(o.enabled, candidateIDs(rg)...)
	}
	slices.Sort(o.enabled)
	for _, tk := range tasks {
		o.tasks = append(o.tasks, tk.NodeID)
	}
	slices.Sort(o.tasks)
	rows, err := r.waits.QueryContext(r.ctx,
		`SELECT id, kind, name, COALESCE(due_at, 0) FROM waits WHERE COALESCE(instance_id, substr(id, 1, 16)) = ? AND kind IN ('message', 'signal', 'timer')`, storedID(string(r.inst)))
	if err != nil {
		o.errs = append(o.errs, "waits: "+err.Error())
		return o
	}
	defer rows.Close()
	for rows.Next() {
		var (
			rawID      any
			kind, name string
			due        int64
		)
		if err := rows.Scan(&rawID, &kind, &name, &due); err != nil {
			o.errs = append(o.errs, "waits: "+err.Error())
			return o
		}
		id := loadedID(rawID)
		if kind == runtime.WaitTimer {
			o.timers = append(o.timers, id)
			o.timerDue[id] = time.Unix(0, due).UTC()
		} else {
			o.subs = append(o.subs, name)
		}
	}
	if err := rows.Err(); err != nil {
		o.errs = append(o.errs, "waits: "+err.Error())
	}
	slices.Sort(o.subs)
	slices.Sort(o.timers)
	return o
}

// openTasks lists the open user tasks of the instance and of its called
// children, recursively.
func (r *runner) openTasks() ([]runtime.TaskView, error) {
	var out []runtime.TaskView
	seen := map[runtime.InstanceID]bool{}
	var walk func(id runtime.InstanceID) error
	walk = func(id runtime.InstanceID) error {
		if seen[id] {
			return nil
		}
		seen[id] = true
		tasks, _, err := r.rt.Tasks(r.ctx, runtime.TaskFilter{InstanceID: id, Limit: 1000})
		if err != nil {
			return err
		}
		out = append(out, tasks...)
		v, err := r.rt.Instance(r.ctx, id)
		if err != nil {
			return err
		}
		for _, c := range v.Children {
			if err := walk(c.InstanceID); err != nil {
				return err
			}
		}
		return nil
	}
	return out, walk(r.inst)
}

// scopeTree renders the open scopes of v with the elements their tracks
// stand at: the root scope shows as "process", a nested scope by its
// element id. A track that only hosts a nested scope (state in-scope) is
// shown through that scope.
func scopeTree(v runtime.InstanceView) string {
	nodes := map[string]*treeNode{}
	var roots []*treeNode
	for _, s := range v.Scopes {
		name := s.NodeID
		if s.ParentID == "" {
			name = "process"
		}
		nodes[s.ID] = &treeNode{name: name}
	}
	for _, s := range v.Scopes {
		n := nodes[s.ID]
		if p, ok := nodes[s.ParentID]; ok && s.ParentID != "" {
			p.kids = append(p.kids, n)
		} else {
			roots = append(roots, n)
		}
	}
	for _, tr := range v.Tracks {
		if tr.State == "in-scope" {
			continue
		}
		leaf := &treeNode{name: tr.NodeID}
		if p, ok := nodes[tr.ScopeID]; ok {
			p.kids = append(p.kids, leaf)
		} else {
			roots = append(roots, &treeNode{name: "?" + tr.ScopeID, kids: []*treeNode{leaf}})
		}
	}
	switch len(roots) {
	case 0:
		return "(empty)"
	case 1:
		return roots[0].String()
	}
	return (&treeNode{name: "(several roots)", kids: roots}).String()
}

// fail stops the run with the row, run, step and the observed state.
func (r *runner) fail(s step, format string, args ...any) {
	r.t.Helper()
	msg := fmt.Sprintf("%s, step %q: %s\nobserved:\n  %s", r.label, s.text, fmt.Sprintf(format, args...), r.observe())
	if logs := strings.TrimSpace(r.logs.String()); logs != "" {
		msg += "\nruntime log:\n  " + strings.ReplaceAll(logs, "\n", "\n  ")
	}
	r.t.Fatal(msg)
}

// run replays steps in order.
func (r *runner) run(steps []step) {
	r.t.Helper()
	for _, s := range steps {
		if s.rejected {
			r.rejected(s)
			continue
		}
		r.do(s)
	}
}

// rejected runs an action that must fail and change nothing.
func (r *runner) rejected(s step) {
	r.t.Helper()
	before := r.observe()
	err := r.act(s)
	if err == nil {
		r.fail(s, "the call succeeded; want it rejected")
	}
	after := r.observe()
	if before.fingerprint() != after.fingerprint() {
		r.fail(s, "the call was rejected (%v) but changed the instance; before:\n  %s", err, before)
	}
	r.t.Logf("%s, step %q: rejected as expected: %v", r.label, s.text, err)
}

// act performs an action step and returns its error. A broadcast that
// reaches no subscription counts as refused: gobpm has no per-instance
// signal delivery, so "deliver signal S to this instance" is a broadcast
// that must find nobody.
func (r *runner) act(s step) error {
	switch s.kind {
	case stStart:
		v, err := r.rt.StartInstance(r.ctx, runtime.StartRequest{ProcessKey: s.arg, Variables: s.vars})
		if err == nil {
			r.inst, r.timers = v.ID, nil
		}
		return err
	case stComplete:
		tasks, err := r.openTasks()
		if err != nil {
			return err
		}
		var ids []string
		for _, tk := range tasks {
			if tk.NodeID == s.arg {
				ids = append(ids, tk.ID)
			}
		}
		if len(ids) != 1 {
			return fmt.Errorf("want exactly one open user task %s, found %d", s.arg, len(ids))
		}
		return r.rt.CompleteTask(r.ctx, ids[0], actor, s.vars)
	case stCorrelate:
		n, err := r.rt.CorrelateMessage(r.ctx, s.arg, "", nil)
		if err == nil && n != 1 {
			return fmt.Errorf("message %s taken %d times, want once", s.arg, n)
		}
		return err
	case stBroadcast:
		n, err := r.rt.BroadcastSignal(r.ctx, s.arg, nil)
		if err == nil && n == 0 {
			return fmt.Errorf("signal %s reached no subscription", s.arg)
		}
		return err
	case stCancel:
		_, err := r.rt.Cancel(r.ctx, r.inst)
		return err
	case stActivate:
		// The Flowable models have one ad-hoc region; activation goes to
		// the open region (gobpm addresses it by scope id).
		regions, err := r.rt.AdHocRegions(r.ctx, r.inst)
		if err != nil {
			return err
		}
		if len(regions) != 1 {
			return fmt.Errorf("want exactly one open ad-hoc region to activate %s in, found %d", s.arg, len(regions))
		}
		_, err = r.rt.ActivateAdHoc(r.ctx, r.inst, regions[0].ScopeID, s.arg, actor)
		return err
	case stFinishAdhoc:
		// Flowable's completeAdhocSubProcess: POST …/adhoc/{scopeId}/complete.
		regions, err := r.rt.AdHocRegions(r.ctx, r.inst)
		if err != nil {
			return err
		}
		i := slices.IndexFunc(regions, func(v runtime.RegionView) bool { return v.NodeID == s.arg })
		if i < 0 {
			return fmt.Errorf("no open ad-hoc region %s to finish", s.arg)
		}
		_, err = r.rt.CompleteAdHoc(r.ctx, r.inst, regions[i].ScopeID, actor)
		return err
	}
	return fmt.Errorf("step kind %d is not an action", s.kind)
}

// do runs a step that must succeed.
func (r *runner) do(s step) {
	r.t.Helper()
	if actions[s.kind] {
		if s.kind == stCorrelate {
			// The message is for this instance: it must be waiting for it.
			if o := r.observe(); !slices.Contains(o.subs, s.arg) {
				r.fail(s, "the instance has no subscription for message %s", s.arg)
			}
		}
		if err := r.act(s); err != nil {
			r.fail(s, "%v", err)
		}
		return
	}
	switch s.kind {
	case stAdvance:
		spec, err := timer.Parse(timer.KindDuration, s.arg)
		if err != nil {
			r.fail(s, "%v", err)
		}
		due, _ := spec.First(r.clk.Now())
		r.clk.Set(due)
		if _, err := r.rt.FireDueTimers(r.ctx); err != nil {
			r.fail(s, "firing due timers: %v", err)
		}
		return
	}
	o := r.observe()
	if len(o.errs) > 0 {
		r.fail(s, "cannot read the instance")
	}
	switch s.kind {
	case stExpectTasks:
		if !slices.Equal(o.tasks, s.set) {
			r.fail(s, "open user tasks {%s}, want {%s}", strings.Join(o.tasks, ", "), strings.Join(s.set, ", "))
		}
	case stExpectSubs:
		if !slices.Equal(o.subs, s.set) {
			r.fail(s, "subscriptions {%s}, want {%s}", strings.Join(o.subs, ", "), strings.Join(s.set, ", "))
		}
	case stExpectTimers:
		if len(o.timers) != s.n {
			r.fail(s, "%d pending timers, want %d", len(o.timers), s.n)
		}
		r.timers = o.timerDue
	case stExpectNewTimers:
		if len(o.timers) != s.n {
			r.fail(s, "%d pending timers, want %d", len(o.timers), s.n)
		}
		// gobpm re-arms a cycle by moving its wait (same id) to the next
		// occurrence; upstream creates a new job. Either counts as new.
		for id, due := range o.timerDue {
			if before, seen := r.timers[id]; seen && !due.After(before) {
				r.fail(s, "timer %s is still the one seen before, due %s; want a re-armed one", id, due.Format(time.RFC3339))
			}
		}
		r.timers = o.timerDue
	case stExpectTree:
		if o.tree != s.tree {
			r.fail(s, "scope tree %s, want %s", o.tree, s.tree)
		}
	case stExpectEnded:
		if o.status != runtime.StatusCompleted && o.status != runtime.StatusTerminated {
			r.fail(s, "status %s, want completed or terminated", o.status)
		}
	case stExpectNotEnded:
		if o.status == runtime.StatusCompleted || o.status == runtime.StatusTerminated {
			r.fail(s, "status %s, want the instance still running", o.status)
		}
	case stExpectFailed:
		if o.status != runtime.StatusFailed || len(o.incidents) == 0 {
			r.fail(s, "status %s with %d open incidents, want failed with an incident", o.status, len(o.incidents))
		}
	case stExpectIncident:
		found := false
		for _, in := range o.incidents {
			found = found || strings.Contains(in.Message, s.arg)
		}
		if !found {
			r.fail(s, "no open incident mentions %q", s.arg)
		}
	case stExpectScopes:
		n := 0
		for _, sc := range o.scopes {
			if sc.NodeID == s.arg && sc.ParentID != "" {
				n++
			}
		}
		if n != s.n {
			r.fail(s, "%d open scopes of %s, want %d", n, s.arg, s.n)
		}
	case stExpectEnabled:
		// The candidates of the open ad-hoc regions (none open → {}).
		if !slices.Equal(o.enabled, s.set) {
			r.fail(s, "enabled {%s}, want {%s}", strings.Join(o.enabled, ", "), strings.Join(s.set, ", "))
		}
	case stExpectRegions:
		if len(o.regions) != s.n {
			r.fail(s, "%d open ad-hoc regions, want %d", len(o.regions), s.n)
		}
	case stExpectCompletedTasks:
		got, err := r.completedTasks()
		if err != nil {
			r.fail(s, "history: %v", err)
		}
		if !slices.Equal(got, s.set) {
			r.fail(s, "completed user tasks in history {%s}, want {%s}", strings.Join(got, ", "), strings.Join(s.set, ", "))
		}
	case stExpectStopReason:
		got, err := r.stopReasons()
		if err != nil {
			r.fail(s, "history: %v", err)
		}
		if len(got) != 1 || got[0] != s.arg {
			r.fail(s, "ad-hoc regions stopped with reasons %q, want exactly [%q]", got, s.arg)
		}
	case stExpectChildren:
		n := 0
		for _, c := range o.children {
			if c.Status == runtime.StatusRunning {
				n++
			}
		}
		if n != s.n {
			r.fail(s, "%d running child instances, want %d", n, s.n)
		}
	default:
		r.fail(s, "step kind %d not handled", s.kind)
	}
}

// candidateIDs are the activity ids a region offers.
func candidateIDs(rg runtime.RegionView) []string {
	out := make([]string, len(rg.Candidates))
	for i, c := range rg.Candidates {
		out[i] = c.ActivityID
	}
	return out
}

// completedTasks reads the instance's history: the element ids of the user
// tasks (elements with a task-created fact) that completed, sorted, once
// per completion.
func (r *runner) completedTasks() ([]string, error) {
	facts, err := r.rt.History(r.ctx, r.inst, 0, 100000)
	if err != nil {
		return nil, err
	}
	userTasks := map[string]bool{}
	for _, f := range facts {
		if f.Kind == engine.FactTaskCreated {
			userTasks[f.NodeID] = true
		}
	}
	out := []string{}
	for _, f := range facts {
		if f.Kind == engine.FactElementCompleted && userTasks[f.NodeID] {
			out = append(out, f.NodeID)
		}
	}
	slices.Sort(out)
	return out, nil
}

// stopReasons reads the reasons of the instance's ad-hoc-region-stopped
// facts, in order.
func (r *runner) stopReasons() ([]string, error) {
	facts, err := r.rt.History(r.ctx, r.inst, 0, 100000)
	if err != nil {
		return nil, err
	}
	out := []string{}
	for _, f := range facts {
		if f.Kind != engine.FactRegionStopped {
			continue
		}
		var d struct {
			Reason string `json:"reason"`
		}
		if err := json.Unmarshal(f.Detail, &d); err != nil {
			return nil, fmt.Errorf("fact %d: %w", f.Seq, err)
		}
		out = append(out, d.Reason)
	}
	return out, nil
}

// storedID is an id as the store keeps it in an id column (migration
// 0005; sqlite.EncodeID).
func storedID(id string) any { return sqlite.EncodeID(id) }

// loadedID decodes an id column read as any (sqlite.DecodeID).
func loadedID(v any) string {
	id, err := sqlite.DecodeID(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return id
}
