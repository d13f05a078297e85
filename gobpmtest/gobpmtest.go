package gobpmtest

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gobpm/gobpm/internal/clock"
	"github.com/gobpm/gobpm/internal/runtime"
	"github.com/gobpm/gobpm/internal/store/sqlite"
)

// Epoch is where every harness clock starts.
var Epoch = time.Date(2025, 1, 1, 9, 0, 0, 0, time.UTC)

// Clock is the harness's manual clock: it only moves when told to
// (Harness.Advance moves it and fires the timers then due).
type Clock = clock.Manual

// Harness is one engine under test. Its methods fail the test on any
// error; they are meant for one test goroutine.
type Harness struct {
	tb    testing.TB
	ctx   context.Context
	rt    *runtime.Runtime
	Clock *Clock
	// names maps "key@version" to element id → name, read from the XML.
	names map[string]map[string]string
	// held are jobs activated for other instances than the one asked
	// for, by instance id and job type, until their own CompleteJob.
	held map[string][]runtime.JobView
}

// Instance is a started process instance.
type Instance struct {
	// ID is the instance id.
	ID string
	h  *Harness
}

// New starts a runtime on SQLite in tb.TempDir() with a manual clock at
// Epoch; it closes when the test ends.
func New(tb testing.TB) *Harness {
	tb.Helper()
	ctx := context.Background()
	db, err := sqlite.Open(ctx, filepath.Join(tb.TempDir(), "gobpm.db"), sqlite.Options{})
	if err != nil {
		tb.Fatalf("gobpmtest: open store: %v", err)
	}
	clk := clock.NewManual(Epoch)
	rt := runtime.New(db, runtime.Options{Now: clk.Now})
	// Close the runtime before the database (cleanups run last-in first).
	tb.Cleanup(func() { _ = db.Close() })
	tb.Cleanup(func() { _ = rt.Close() })
	return &Harness{tb: tb, ctx: ctx, rt: rt, Clock: clk, names: map[string]map[string]string{}, held: map[string][]runtime.JobView{}}
}

// Deploy deploys BPMN and DMN files, read from paths, in one deployment.
func (h *Harness) Deploy(paths ...string) {
	h.tb.Helper()
	files := make([]runtime.File, 0, len(paths))
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			h.tb.Fatalf("gobpmtest: deploy: %v", err)
		}
		files = append(files, runtime.File{Name: filepath.Base(p), Content: b})
	}
	if _, err := h.rt.Deploy(h.ctx, files); err != nil {
		h.tb.Fatalf("gobpmtest: deploy %s: %v", strings.Join(paths, ", "), err)
	}
}

// Start starts the latest version of the process key with vars.
func (h *Harness) Start(key string, vars map[string]any) *Instance {
	h.tb.Helper()
	v, err := h.rt.StartInstance(h.ctx, runtime.StartRequest{ProcessKey: key, Variables: vars})
	if err != nil {
		h.tb.Fatalf("gobpmtest: start %s: %v", key, err)
	}
	return &Instance{ID: string(v.ID), h: h}
}

// Child returns the instance a call activity of inst started (by the call
// activity's id or name); the test fails when there is none. With several
// (a multi-instance call activity) it returns the first.
func (inst *Instance) Child(callActivity string) *Instance {
	h := inst.h
	h.tb.Helper()
	s := inst.snapshot()
	for _, c := range s.view.Children {
		if s.is(c.NodeID, callActivity) {
			return &Instance{ID: string(c.InstanceID), h: h}
		}
	}
	h.tb.Fatalf("gobpmtest: instance %s has no child called by %q; %s", inst.ID, callActivity, s)
	return nil
}

// CompleteJob activates the instance's job of jobType and completes it
// with vars, as a worker would. Jobs of the type that belong to other
// instances are released unchanged.
func (h *Harness) CompleteJob(inst *Instance, jobType string, vars map[string]any) {
	h.tb.Helper()
	job := h.activate(inst, jobType)
	if err := h.rt.CompleteJob(h.ctx, job.Key, runtime.JobHolder{Token: job.LockToken}, vars); err != nil {
		h.tb.Fatalf("gobpmtest: complete job %s: %v\n%s", jobType, err, inst.where())
	}
}

// FailJob activates the instance's job of jobType and fails it with
// retries left (0 raises an incident).
func (h *Harness) FailJob(inst *Instance, jobType string, retries int, message string) {
	h.tb.Helper()
	job := h.activate(inst, jobType)
	if err := h.rt.FailJob(h.ctx, job.Key, runtime.JobHolder{Token: job.LockToken}, runtime.FailRequest{Retries: &retries, ErrorMessage: message}); err != nil {
		h.tb.Fatalf("gobpmtest: fail job %s: %v\n%s", jobType, err, inst.where())
	}
}

// ThrowError activates the instance's job of jobType and throws the BPMN
// error code at its task.
func (h *Harness) ThrowError(inst *Instance, jobType, code string, vars map[string]any) {
	h.tb.Helper()
	job := h.activate(inst, jobType)
	if err := h.rt.ThrowJobError(h.ctx, job.Key, runtime.JobHolder{Token: job.LockToken}, code, "", vars); err != nil {
		h.tb.Fatalf("gobpmtest: throw %s at job %s: %v\n%s", code, jobType, err, inst.where())
	}
}

// activate returns a locked job of jobType for inst. Activation is by
// type across instances, so the jobs of other instances it returns are kept
// (locked) for their own CompleteJob: the runtime has no way to release a
// lock without counting a failure.
func (h *Harness) activate(inst *Instance, jobType string) runtime.JobView {
	h.tb.Helper()
	k := inst.ID + "\x00" + jobType
	for len(h.held[k]) > 0 {
		j := h.held[k][0]
		h.held[k] = h.held[k][1:]
		if j.Deadline.After(h.Clock.Now()) {
			return j
		}
	}
	jobs, err := h.rt.ActivateJobs(h.ctx, runtime.ActivateRequest{Type: jobType, Worker: "gobpmtest", MaxJobs: 1000, LockDuration: time.Hour})
	if err != nil {
		h.tb.Fatalf("gobpmtest: activate %s: %v", jobType, err)
	}
	var mine *runtime.JobView
	for i, j := range jobs {
		if string(j.InstanceID) == inst.ID && mine == nil {
			mine = &jobs[i]
			continue
		}
		ok := string(j.InstanceID) + "\x00" + jobType
		h.held[ok] = append(h.held[ok], j)
	}
	if mine == nil {
		h.tb.Fatalf("gobpmtest: no %s job to activate for instance %s\n%s", jobType, inst.ID, inst.where())
	}
	return *mine
}

// CompleteTask completes the instance's open user task named task (its
// name or element id) as user, claiming it first. The harness acts as a
// member of the task's candidate groups.
func (h *Harness) CompleteTask(inst *Instance, task, user string, vars map[string]any) {
	h.tb.Helper()
	tasks, _, err := h.rt.Tasks(h.ctx, runtime.TaskFilter{InstanceID: runtime.InstanceID(inst.ID), Limit: 500})
	if err != nil {
		h.tb.Fatalf("gobpmtest: tasks: %v", err)
	}
	for _, t := range tasks {
		if t.NodeID != task && t.Name != task {
			continue
		}
		a := runtime.Actor{User: user, Groups: t.CandidateGroups}
		if t.Assignee != user {
			if _, err := h.rt.ClaimTask(h.ctx, t.ID, a); err != nil {
				h.tb.Fatalf("gobpmtest: claim %q as %s: %v\n%s", task, user, err, inst.where())
			}
		}
		if err := h.rt.CompleteTask(h.ctx, t.ID, a, vars); err != nil {
			h.tb.Fatalf("gobpmtest: complete %q as %s: %v\n%s", task, user, err, inst.where())
		}
		return
	}
	h.tb.Fatalf("gobpmtest: no open task %q\n%s", task, inst.where())
}

// Correlate delivers message name with a correlation key and returns how
// many waits it reached.
func (h *Harness) Correlate(name, key string, vars map[string]any) int {
	h.tb.Helper()
	n, err := h.rt.CorrelateMessage(h.ctx, name, key, vars)
	if err != nil {
		h.tb.Fatalf("gobpmtest: correlate %s/%s: %v", name, key, err)
	}
	return n
}

// Signal broadcasts signal name and returns how many waits it triggered.
func (h *Harness) Signal(name string, vars map[string]any) int {
	h.tb.Helper()
	n, err := h.rt.BroadcastSignal(h.ctx, name, vars)
	if err != nil {
		h.tb.Fatalf("gobpmtest: signal %s: %v", name, err)
	}
	return n
}

// Advance moves the clock by d and fires every timer then due (and any a
// fired timer makes due at once). It returns how many fired.
func (h *Harness) Advance(d time.Duration) int {
	h.tb.Helper()
	h.Clock.Advance(d)
	total := 0
	for range 1000 {
		n, err := h.rt.FireDueTimers(h.ctx)
		if err != nil {
			h.tb.Fatalf("gobpmtest: fire timers: %v", err)
		}
		if n == 0 {
			return total
		}
		total += n
	}
	h.tb.Fatalf("gobpmtest: timers keep firing after Advance(%s)", d)
	return total
}

// Variables returns the instance's root variables.
func (inst *Instance) Variables() map[string]any {
	v, err := inst.h.rt.Instance(inst.h.ctx, runtime.InstanceID(inst.ID))
	if err != nil {
		inst.h.tb.Fatalf("gobpmtest: instance %s: %v", inst.ID, err)
	}
	return v.Variables
}

// AssertWaitingAt fails tb unless the instance waits at the element named
// element (id or name).
func AssertWaitingAt(tb testing.TB, inst *Instance, element string) {
	tb.Helper()
	s := inst.snapshot()
	for _, w := range s.waits {
		if s.is(w.NodeID, element) {
			return
		}
	}
	tb.Errorf("instance is not waiting at %q\n%s", element, s)
}

// AssertCompleted fails tb unless the instance has completed.
func AssertCompleted(tb testing.TB, inst *Instance) {
	tb.Helper()
	if s := inst.snapshot(); s.view.Status != runtime.StatusCompleted {
		tb.Errorf("instance has not completed\n%s", s)
	}
}

// AssertPassed fails tb unless the instance's history shows it reached
// every one of elements (ids or names).
func AssertPassed(tb testing.TB, inst *Instance, elements ...string) {
	tb.Helper()
	s := inst.snapshot()
	for _, e := range elements {
		if !slices.ContainsFunc(s.facts, func(f runtime.FactRow) bool { return f.NodeID != "" && s.is(f.NodeID, e) }) {
			tb.Errorf("instance did not pass %q\n%s", e, s)
		}
	}
}

// AssertNotPassed fails tb if the instance's history shows any of elements.
func AssertNotPassed(tb testing.TB, inst *Instance, elements ...string) {
	tb.Helper()
	s := inst.snapshot()
	for _, e := range elements {
		if slices.ContainsFunc(s.facts, func(f runtime.FactRow) bool { return f.NodeID != "" && s.is(f.NodeID, e) }) {
			tb.Errorf("instance passed %q\n%s", e, s)
		}
	}
}

// AssertVariable fails tb unless the instance's root variable name equals
// want, compared as JSON values (so 3 and 3.0 are equal).
func AssertVariable(tb testing.TB, inst *Instance, name string, want any) {
	tb.Helper()
	s := inst.snapshot()
	got, ok := s.view.Variables[name]
	if !ok {
		tb.Errorf("instance has no variable %q\n%s", name, s)
		return
	}
	if !jsonEqual(got, want) {
		tb.Errorf("variable %q = %s, want %s\n%s", name, show(got), show(want), s)
	}
}

// snapshot is what an assertion reads and prints.
type snapshot struct {
	view  runtime.InstanceView
	waits []runtime.WaitRow
	facts []runtime.FactRow
	names map[string]string
}

func (inst *Instance) snapshot() snapshot {
	h := inst.h
	h.tb.Helper()
	id := runtime.InstanceID(inst.ID)
	v, err := h.rt.Instance(h.ctx, id)
	if err != nil {
		h.tb.Fatalf("gobpmtest: instance %s: %v", inst.ID, err)
	}
	s := snapshot{view: v, names: h.elementNames(v.ProcessKey, v.ProcessVersion)}
	for after := ""; ; {
		ws, next, err := h.rt.Waits(h.ctx, id, after, 500)
		if err != nil {
			h.tb.Fatalf("gobpmtest: waits of %s: %v", inst.ID, err)
		}
		s.waits = append(s.waits, ws...)
		if next == "" {
			break
		}
		after = next
	}
	for after := int64(0); ; {
		fs, err := h.rt.History(h.ctx, id, after, 500)
		if err != nil {
			h.tb.Fatalf("gobpmtest: history of %s: %v", inst.ID, err)
		}
		s.facts = append(s.facts, fs...)
		if len(fs) < 500 {
			break
		}
		after = fs[len(fs)-1].Seq
	}
	return s
}

func (inst *Instance) where() string {
	return inst.snapshot().String()
}

// is reports whether node is the element e (by id or name).
func (s snapshot) is(node, e string) bool {
	return node == e || s.names[node] == e
}

func (s snapshot) label(node string) string {
	if n := s.names[node]; n != "" {
		return fmt.Sprintf("%q (%s)", n, node)
	}
	return node
}

// String shows where the instance is: status, waits, incidents, the path
// it took and its variables.
func (s snapshot) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "  instance %s of %s v%d is %s\n", s.view.ID, s.view.ProcessKey, s.view.ProcessVersion, s.view.Status)
	if len(s.waits) == 0 {
		b.WriteString("  waiting at: nothing\n")
	}
	for _, w := range s.waits {
		fmt.Fprintf(&b, "  waiting at: %s, a %s wait %q\n", s.label(w.NodeID), w.Kind, w.Name)
	}
	for _, inc := range s.view.Incidents {
		if inc.ResolvedAt.IsZero() {
			fmt.Fprintf(&b, "  incident at %s: %s\n", s.label(inc.NodeID), inc.Message)
		}
	}
	var path []string
	for _, f := range s.facts {
		if f.NodeID != "" && (len(path) == 0 || path[len(path)-1] != f.NodeID) {
			path = append(path, f.NodeID)
		}
	}
	fmt.Fprintf(&b, "  passed: %s\n", strings.Join(path, " → "))
	fmt.Fprintf(&b, "  variables: %s", show(s.view.Variables))
	return b.String()
}

// elementNames reads id → name of every named element of a process
// version from its deployed XML (cached).
func (h *Harness) elementNames(key string, version int) map[string]string {
	k := fmt.Sprintf("%s@%d", key, version)
	if m, ok := h.names[k]; ok {
		return m
	}
	m := map[string]string{}
	if def, err := h.rt.Definition(h.ctx, key, version); err == nil {
		dec := xml.NewDecoder(bytes.NewReader(def.XML))
		for {
			tok, err := dec.Token()
			if err != nil {
				break
			}
			if se, ok := tok.(xml.StartElement); ok {
				var id, name string
				for _, a := range se.Attr {
					switch a.Name.Local {
					case "id":
						id = a.Value
					case "name":
						name = a.Value
					}
				}
				if id != "" && name != "" {
					m[id] = name
				}
			}
		}
	}
	h.names[k] = m
	return m
}

func jsonEqual(a, b any) bool {
	var x, y any
	if normalize(a, &x) != nil || normalize(b, &y) != nil {
		return reflect.DeepEqual(a, b)
	}
	return reflect.DeepEqual(x, y)
}

func normalize(v any, out *any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return json.Unmarshal(data, out)
}

func show(v any) string {
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(data)
}
