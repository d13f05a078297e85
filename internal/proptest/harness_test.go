package proptest

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	_ "modernc.org/sqlite" // the read-only accessor of the waits table

	"github.com/gobpm/gobpm/internal/clock"
	"github.com/gobpm/gobpm/internal/runtime"
	"github.com/gobpm/gobpm/internal/store/sqlite"
)

// t0 is the clock value every run starts at.
var t0 = time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)

// harness is one runtime over one real SQLite file, reused by every check of
// a test, plus a read-only connection to the same file for the waits table
// (the runtime has no API listing subscriptions).
type harness struct {
	path string
	clk  *clock.Manual
	db   *sqlite.DB
	rt   *runtime.Runtime
	ro   *sql.DB
	// held are the jobs the driver activated, by wait id: the key and lock
	// token it acts on them with (the store keeps the locks across a
	// restart, and the runtime's job-key secret with them).
	held map[string]runtime.JobView
}

func newHarness(t *testing.T) *harness {
	t.Helper()
	h := &harness{path: filepath.Join(t.TempDir(), "gobpm.db"), clk: clock.NewManual(t0), held: map[string]runtime.JobView{}}
	if err := h.open(); err != nil {
		t.Fatal(err)
	}
	ro, err := sql.Open("sqlite", "file:"+h.path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	h.ro = ro
	t.Cleanup(func() {
		h.close()
		h.ro.Close()
	})
	return h
}

// open opens the store and a runtime over it and resumes what is running.
// SQLite only (not testdb): the properties compare what the runtime says
// with the rows in the file, read through a connection of their own; the
// runtime's restart behaviour runs on both stores in its own suite.
func (h *harness) open() error {
	ctx := context.Background()
	db, err := sqlite.Open(ctx, h.path, sqlite.Options{Synchronous: "NORMAL"})
	if err != nil {
		return err
	}
	h.db, h.rt = db, runtime.New(db, runtime.Options{Now: h.clk.Now})
	if _, err := h.rt.Resume(ctx); err != nil {
		return err
	}
	return nil
}

func (h *harness) close() {
	if h.rt != nil {
		h.rt.Close()
		h.db.Close()
		h.rt, h.db = nil, nil
	}
}

// restart closes the runtime and the store and opens both again over the
// same file, as a process restart would.
func (h *harness) restart() error {
	h.close()
	return h.open()
}

// waitRow is what the driver reads of one wait.
type waitRow struct {
	ID             string
	Kind           string
	NodeID         string
	Name           string
	CorrelationKey string
	DueAt          time.Time // zero when unset
	Retries        int
}

// waits lists the wait rows of an instance, oldest first (the order in
// which CorrelateMessage picks among subscriptions).
func (h *harness) waits(ctx context.Context, id runtime.InstanceID) ([]waitRow, error) {
	rows, err := h.ro.QueryContext(ctx, `SELECT id, kind, node_id, name, correlation_key, due_at, retries
		FROM waits WHERE COALESCE(instance_id, substr(id, 1, 16)) = ? ORDER BY created_at, id`, storedID(string(id)))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []waitRow
	for rows.Next() {
		var w waitRow
		var ck sql.NullString
		var due, retries sql.NullInt64
		var wid any
		if err := rows.Scan(&wid, &w.Kind, &w.NodeID, &w.Name, &ck, &due, &retries); err != nil {
			return nil, err
		}
		w.ID = loadedID(wid)
		w.CorrelationKey = ck.String
		if due.Valid {
			w.DueAt = time.Unix(0, due.Int64).UTC()
		}
		w.Retries = int(retries.Int64)
		out = append(out, w)
	}
	return out, rows.Err()
}

// scopeRows counts the scope parts the store keeps for an instance.
func (h *harness) scopeRows(ctx context.Context, id runtime.InstanceID) (int, error) {
	var n int
	err := h.ro.QueryRowContext(ctx, `SELECT COUNT(*) FROM instance_parts p JOIN kinds k ON k.id = p.kind
		WHERE k.name = 'scope' AND p.instance_seq = (SELECT seq FROM instances WHERE id = ?)`, storedID(string(id))).Scan(&n)
	return n, err
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

// Action kinds the driver takes.
const (
	actTask       = "complete-task"
	actClaimTask  = "claim+complete-task"
	actJobDone    = "complete-job"
	actJobFail    = "fail-job"
	actJobError   = "throw-job-error"
	actMessage    = "correlate-message"
	actSignal     = "broadcast-signal"
	actTimer      = "fire-next-timer"
	actCancel     = "cancel"
	actRetry      = "retry-incident"
	actCancelIncd = "cancel-on-incident"
	actTrigger    = "trigger-wait"
)

// action is one recorded driver step. Target is a wait or incident id with
// the instance id prefix removed, so a recorded sequence replays on another
// instance of the same model.
type action struct {
	Kind   string
	Target string
	Name   string // message or signal name, error code
	// Outcome is the runtime's error code for the action ("" = success).
	Outcome string
}

func (a action) String() string {
	s := a.Kind
	if a.Target != "" {
		s += " " + a.Target
	}
	if a.Name != "" {
		s += " " + a.Name
	}
	if a.Outcome != "" {
		s += " → " + a.Outcome
	}
	return s
}

// run drives one instance through the harness.
type run struct {
	h  *harness
	id runtime.InstanceID
	// spawners are the model's non-interrupting message and signal
	// triggers (see emitter.spawners).
	spawners map[string]bool
}

func (r *run) local(id string) string  { return strings.TrimPrefix(id, string(r.id)+"-") }
func (r *run) global(id string) string { return string(r.id) + "-" + id }

// start creates the instance of key with {key: "k"} at t0.
func (r *run) start(ctx context.Context, key string) error {
	r.h.clk.Set(t0)
	v, err := r.h.rt.StartInstance(ctx, runtime.StartRequest{ProcessKey: key, Variables: map[string]any{"key": "k"}})
	if err != nil {
		return err
	}
	r.id = v.ID
	return nil
}

// enabled lists the actions open in the instance, in a deterministic order.
// In drain mode only actions that move the instance towards its end are
// offered: no failing jobs, no job errors, no message whose oldest
// subscription (the one it would go to) is a non-interrupting trigger, no
// signal that only such triggers wait for; incidents are retried when a job
// ran out of retries and cancelled otherwise.
func (r *run) enabled(ctx context.Context, drain bool) ([]action, error) {
	ws, err := r.h.waits(ctx, r.id)
	if err != nil {
		return nil, err
	}
	v, err := r.h.rt.Instance(ctx, r.id)
	if err != nil {
		return nil, err
	}
	var out []action
	msgs, sigs := map[string]bool{}, map[string]bool{}
	timers := false
	for _, w := range ws {
		switch w.Kind {
		case runtime.WaitTask:
			out = append(out, action{Kind: actTask, Target: r.local(w.ID)})
			if !drain {
				out = append(out, action{Kind: actClaimTask, Target: r.local(w.ID)})
			}
		case runtime.WaitJob:
			if w.Retries == 0 {
				continue // in an incident: retry or cancel it
			}
			out = append(out, action{Kind: actJobDone, Target: r.local(w.ID)})
			if !drain {
				out = append(out, action{Kind: actJobFail, Target: r.local(w.ID)})
				out = append(out, action{Kind: actJobError, Target: r.local(w.ID)}) // the driver draws the code
			}
		case runtime.WaitMessage:
			// A message goes to the oldest subscription of its name only.
			if _, seen := msgs[w.Name]; !seen {
				msgs[w.Name] = !drain || !r.spawners[w.NodeID]
			}
		case runtime.WaitSignal:
			sigs[w.Name] = sigs[w.Name] || !drain || !r.spawners[w.NodeID]
		case runtime.WaitTimer:
			timers = true
		case runtime.WaitTrigger:
			out = append(out, action{Kind: actTrigger, Target: r.local(w.ID)})
		}
	}
	for _, n := range sortedKeys(msgs) {
		out = append(out, action{Kind: actMessage, Name: n})
	}
	for _, n := range sortedKeys(sigs) {
		out = append(out, action{Kind: actSignal, Name: n})
	}
	if timers {
		out = append(out, action{Kind: actTimer})
	}
	for _, in := range v.Incidents {
		if !in.ResolvedAt.IsZero() {
			continue
		}
		if !drain || in.Kind == "job-failed" {
			out = append(out, action{Kind: actRetry, Target: r.local(in.ID)})
		}
		if !drain || in.Kind != "job-failed" {
			out = append(out, action{Kind: actCancelIncd, Target: r.local(in.ID)})
		}
	}
	return out, nil
}

// sortedKeys returns the keys of m that map to true, sorted.
func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k, ok := range m {
		if ok {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// advance moves the clock forward to at (never back) and fires what came
// due, so a runtime with a running scheduler and one without see the same
// timers fire at the same clock values.
func (r *run) advance(ctx context.Context, at time.Time) error {
	if at.After(r.h.clk.Now()) {
		r.h.clk.Set(at)
	}
	_, err := r.h.rt.FireDueTimers(ctx)
	return err
}

// do performs an action and returns the runtime's error code ("" on
// success). An error that is not a runtime error is returned as err.
func (r *run) do(ctx context.Context, a action, seq int) (string, error) {
	rt := r.h.rt
	vars := map[string]any{"last": a.Kind, fmt.Sprintf("a%d", seq%4): seq}
	var err error
	switch a.Kind {
	case actTask, actClaimTask:
		id := r.global(a.Target)
		actor := runtime.Actor{User: "u"}
		if a.Kind == actClaimTask {
			if _, err = rt.ClaimTask(ctx, id, actor); err != nil {
				break
			}
		}
		err = rt.CompleteTask(ctx, id, actor, vars)
	case actJobDone, actJobFail, actJobError:
		wait := r.global(a.Target)
		if err = r.activate(ctx, wait); err != nil {
			break
		}
		job, ok := r.h.held[wait]
		if !ok {
			return "", fmt.Errorf("%s: job %s was never activated", a, wait)
		}
		key, holder := job.Key, runtime.JobHolder{Token: job.LockToken}
		switch a.Kind {
		case actJobDone:
			err = rt.CompleteJob(ctx, key, holder, vars)
		case actJobFail:
			var ws []waitRow
			if ws, err = r.h.waits(ctx, r.id); err != nil {
				return "", err
			}
			retries := 0
			for _, w := range ws {
				if w.ID == wait {
					retries = max(w.Retries-1, 0)
				}
			}
			err = rt.FailJob(ctx, key, holder, runtime.FailRequest{Retries: &retries, RetryBackoff: time.Second, ErrorMessage: "boom"})
		default:
			err = rt.ThrowJobError(ctx, key, holder, a.Name, "thrown by the property test", vars)
		}
	case actMessage:
		_, err = rt.CorrelateMessage(ctx, a.Name, "k", vars)
	case actSignal:
		_, err = rt.BroadcastSignal(ctx, a.Name, vars)
	case actTimer:
		var ws []waitRow
		if ws, err = r.h.waits(ctx, r.id); err != nil {
			return "", err
		}
		var next time.Time
		for _, w := range ws {
			if w.Kind == runtime.WaitTimer && (next.IsZero() || w.DueAt.Before(next)) {
				next = w.DueAt
			}
		}
		err = r.advance(ctx, next)
	case actCancel, actCancelIncd:
		_, err = rt.Cancel(ctx, r.id)
	case actRetry:
		_, err = rt.RetryIncident(ctx, r.global(a.Target), 1)
	case actTrigger:
		_, err = rt.TriggerWait(ctx, r.id, r.global(a.Target), vars)
	default:
		return "", fmt.Errorf("unknown action %q", a.Kind)
	}
	if err == nil {
		return "", nil
	}
	var re *runtime.Error
	if !errors.As(err, &re) {
		return "", fmt.Errorf("%s: %w", a, err)
	}
	return r.anon(re.Code + ": " + re.Message), nil
}

// anon replaces the instance id in s by "I", so messages of two instances
// (and of two rapid checks) compare equal.
func (r *run) anon(s string) string { return strings.ReplaceAll(s, string(r.id), "I") }

// activate makes sure a job is activated by a worker before it is acted
// on: past its retry backoff (moving the clock, firing what comes due) and
// locked by this driver, which keeps the key and lock token of every job
// an activation hands out (held).
func (r *run) activate(ctx context.Context, key string) error {
	ws, err := r.h.waits(ctx, r.id)
	if err != nil {
		return err
	}
	for _, w := range ws {
		if w.ID != key {
			continue
		}
		if !w.DueAt.IsZero() {
			if err := r.advance(ctx, w.DueAt); err != nil {
				return err
			}
		}
		jobs, err := r.h.rt.ActivateJobs(ctx, runtime.ActivateRequest{Type: w.Name, Worker: "w", MaxJobs: 100, LockDuration: 10 * time.Minute})
		for _, j := range jobs {
			wait, _, _ := strings.Cut(j.Key, ".")
			r.h.held[wait] = j
		}
		return err
	}
	return nil
}

// summary is the part of a final instance that must not depend on a restart.
type summary struct {
	Status    string
	Variables map[string]any
	History   []string
}

// summarize reads the comparable final state of the instance.
func (r *run) summarize(ctx context.Context) (summary, error) {
	v, err := r.h.rt.Instance(ctx, r.id)
	if err != nil {
		return summary{}, err
	}
	facts, err := r.h.rt.History(ctx, r.id, 0, 0)
	if err != nil {
		return summary{}, err
	}
	s := summary{Status: v.Status, Variables: v.Variables}
	for _, f := range facts {
		s.History = append(s.History, f.Kind+" "+f.NodeID+" "+f.ScopePath)
	}
	return s, nil
}

// dump renders the instance view and its waits for a failure message.
func (r *run) dump(ctx context.Context) string {
	v, err := r.h.rt.Instance(ctx, r.id)
	if err != nil {
		return "instance: " + err.Error()
	}
	ws, _ := r.h.waits(ctx, r.id)
	facts, _ := r.h.rt.History(ctx, r.id, 0, 0)
	var sb strings.Builder
	fmt.Fprintf(&sb, "status %s, variables %v\n", v.Status, v.Variables)
	for _, s := range v.Scopes {
		fmt.Fprintf(&sb, "  scope %s parent=%q node=%s path=%s state=%s\n", s.ID, s.ParentID, s.NodeID, s.Path, s.State)
		for _, hd := range s.Handlers {
			fmt.Fprintf(&sb, "    handler %+v\n", hd)
		}
	}
	for _, t := range v.Tracks {
		fmt.Fprintf(&sb, "  track %+v\n", t)
	}
	for _, in := range v.Incidents {
		fmt.Fprintf(&sb, "  incident %s %s at %s: %s (resolved %v)\n", in.ID, in.Kind, in.NodeID, in.Message, !in.ResolvedAt.IsZero())
	}
	for _, w := range ws {
		fmt.Fprintf(&sb, "  wait %+v\n", w)
	}
	sb.WriteString("  history:\n")
	for _, f := range facts {
		detail := string(f.Detail)
		if f.Kind == "instance-started" {
			detail = "" // names the definition version, which differs per check
		}
		fmt.Fprintf(&sb, "    %d %s %s %s %s\n", f.Seq, f.Kind, f.NodeID, f.ScopePath, detail)
	}
	return r.anon(sb.String())
}

// jsonString renders v for an equality check and a readable diff.
func jsonString(v any) string {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Sprintf("%#v", v)
	}
	return string(b)
}

// cleanup cancels the instance if it still runs (after a failed check).
func (r *run) cleanup(ctx context.Context) {
	if r.id == "" || r.h.rt == nil {
		return
	}
	if v, err := r.h.rt.Instance(ctx, r.id); err == nil && v.Status != runtime.StatusCompleted && v.Status != runtime.StatusTerminated {
		_, _ = r.h.rt.Cancel(ctx, r.id)
	}
}
