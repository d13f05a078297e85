package runtime

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/gobpm/gobpm/internal/engine"
)

// The outbox makes a step's after-commit work durable (migration 0004): the
// signals it threw, the outcome an ended child hands to its caller, and the
// children whose call was withdrawn are rows written in the step's own
// transaction (record). After the commit, the same command performs them
// from those rows and deletes each row once its work succeeded or became
// moot (afterCommit). A row left behind, by a crash between the commit and
// the work or by work that failed, is performed again: Resume drains the
// whole outbox at start-up, and the scheduler retries what failed at
// runtime every few seconds (backing off while nothing succeeds).
//
// Delivery is at least once. A crash between the work and the delete of
// its row performs the work again after the restart: a signal may then
// reach its subscribers (and start its signal-start processes) twice.
// Cancelling a child and handing over a child's outcome are idempotent: the
// second attempt finds the child ended or the caller's call wait consumed
// (ECONFLICT / ENOTFOUND) and is dropped. A broadcast that failed for some
// subscribers is narrowed to those before it is retried, so a retry without
// a crash never reaches a subscriber twice.

// Defaults of the outbox retry.
const (
	// defaultOutboxRetry is the first delay before rows whose work failed
	// are tried again; it doubles while a pass makes no progress.
	defaultOutboxRetry = 2 * time.Second
	// maxOutboxRetry caps that delay.
	maxOutboxRetry = time.Minute
	// outboxBatch bounds the rows one drain pass reads.
	outboxBatch = 100
)

// signalPayload is an OutboxSignal row.
type signalPayload struct {
	Name      string         `json:"name"`
	Variables map[string]any `json:"variables,omitempty"`
	// Depth is the signal cascade depth of the step that threw it (0 for a
	// step of a command), so a cascade resumed from the outbox stays bounded.
	Depth int `json:"depth"`
	// Only narrows a retried broadcast to what an earlier attempt left
	// undone; nil means every subscriber and every signal start.
	Only *signalTargets `json:"only,omitempty"`
}

// signalTargets are the parts of a broadcast still to do.
type signalTargets struct {
	Instances []InstanceID `json:"instances,omitempty"`
	// Starts name signal start events as "key/node"; AllStarts means all.
	Starts    []string `json:"starts,omitempty"`
	AllStarts bool     `json:"allStarts,omitempty"`
}

// cancelChildPayload is an OutboxCancelChild row.
type cancelChildPayload struct {
	Child InstanceID `json:"child"`
}

// childEndedPayload is an OutboxChildEnded row: the engine.ChildEnded event
// under names of its own, so stored rows do not depend on the engine's.
type childEndedPayload struct {
	ParentID     string         `json:"parentId"`
	WaitID       string         `json:"waitId"`
	Status       string         `json:"status"`
	Outputs      map[string]any `json:"outputs,omitempty"`
	ErrorCode    string         `json:"errorCode,omitempty"`
	ErrorMessage string         `json:"errorMessage,omitempty"`
}

// outboxRows turns the after-commit effects of a step into outbox rows, in
// the order they are performed: withdrawn children, the outcome for the
// caller, thrown signals. ctx carries the signal cascade the step ran in.
func outboxRows(ctx context.Context, fx engine.Effects) ([]OutboxRow, error) {
	var rows []OutboxRow
	add := func(kind string, v any) error {
		b, err := json.Marshal(v)
		if err != nil {
			return fmt.Errorf("runtime: outbox %s: %w", kind, err)
		}
		rows = append(rows, OutboxRow{Kind: kind, Payload: b})
		return nil
	}
	for _, child := range fx.CancelChildren {
		if err := add(OutboxCancelChild, cancelChildPayload{Child: InstanceID(child)}); err != nil {
			return nil, err
		}
	}
	if n := fx.ParentNotice; n != nil {
		p := childEndedPayload{ParentID: n.ParentID, WaitID: n.WaitID, Status: n.Status, Outputs: n.Outputs,
			ErrorCode: n.ErrorCode, ErrorMessage: n.ErrorMessage}
		if err := add(OutboxChildEnded, p); err != nil {
			return nil, err
		}
	}
	depth := 0
	if c, ok := ctx.Value(signalCascadeKey{}).(signalCascade); ok {
		depth = c.depth
	}
	for _, s := range fx.Signals {
		if err := add(OutboxSignal, signalPayload{Name: s.Name, Variables: s.Variables, Depth: depth}); err != nil {
			return nil, err
		}
	}
	return rows, nil
}

// decode reads a payload as the engine reads checkpoints: numbers stay
// json.Number, so a handed-over output is the value a straight run hands.
func decode(payload json.RawMessage, v any) error {
	dec := json.NewDecoder(bytes.NewReader(payload))
	dec.UseNumber()
	return dec.Decode(v)
}

// outboxClaims keeps one process from performing a row twice at once: the
// command that committed it, or one drain pass, holds it while it works.
type outboxClaims struct {
	// gate is held shared while a batch with outbox rows commits and is
	// claimed, and exclusively while a drain reads the outbox: a drain never
	// sees a row committed but not yet claimed by its command.
	gate sync.RWMutex
	mu   sync.Mutex
	busy map[int64]bool
}

func newOutboxClaims() *outboxClaims { return &outboxClaims{busy: map[int64]bool{}} }

// claimCommitted marks every outbox row of committed records as held.
func (c *outboxClaims) claimCommitted(recs []StepRecord) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, rec := range recs {
		for _, o := range rec.Outbox {
			c.busy[o.ID] = true
		}
	}
}

// claimFree marks the rows nobody holds as held and returns them.
func (c *outboxClaims) claimFree(rows []OutboxRow) []OutboxRow {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []OutboxRow
	for _, o := range rows {
		if !c.busy[o.ID] {
			c.busy[o.ID] = true
			out = append(out, o)
		}
	}
	return out
}

func (c *outboxClaims) release(id int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.busy, id)
}

// hasOutbox reports whether any record writes outbox rows.
func hasOutbox(recs []StepRecord) bool {
	for _, rec := range recs {
		if len(rec.Outbox) > 0 {
			return true
		}
	}
	return false
}

// performOutbox performs one held row, deletes it if its work is done and
// releases it. It reports whether the row is done; a row that is not stays
// for a retry, and the scheduler is asked to retry it.
func (r *Runtime) performOutbox(ctx context.Context, row OutboxRow) bool {
	defer r.outbox.release(row.ID)
	done := r.perform(ctx, row)
	if done {
		if err := r.store.DeleteOutbox(ctx, row.ID); err != nil {
			// The work is done; it is done again later (at least once).
			r.log.Error("deleting a performed outbox row failed", "outbox_id", row.ID, "kind", row.Kind, "error", err)
			done = false
		}
	}
	if !done {
		r.outboxRetry.Store(true)
		r.wakeScheduler()
	}
	return done
}

// moot reports whether err means the work has nothing left to do: the
// instance is gone, ended, or no longer waits for it.
func moot(err error) bool {
	if errors.Is(err, ErrSuspended) {
		return false // the instance takes it once resumed: retried until then
	}
	return err == nil || ErrorCode(err) == ENOTFOUND || ErrorCode(err) == ECONFLICT
}

// perform does the work of one row and reports whether it is done.
func (r *Runtime) perform(ctx context.Context, row OutboxRow) bool {
	switch row.Kind {
	case OutboxCancelChild:
		var p cancelChildPayload
		if err := decode(row.Payload, &p); err != nil {
			break
		}
		_, err := r.step(ctx, p.Child, engine.Cancel{Reason: "the calling activity was cancelled"}, nil)
		if !moot(err) {
			r.log.Error("cancel cascade failed", "instance_id", p.Child, "outbox_id", row.ID, "error", err)
		}
		return moot(err)
	case OutboxChildEnded:
		var p childEndedPayload
		if err := decode(row.Payload, &p); err != nil {
			break
		}
		n := engine.ChildEnded{ParentID: p.ParentID, WaitID: p.WaitID, Status: p.Status, Outputs: p.Outputs,
			ErrorCode: p.ErrorCode, ErrorMessage: p.ErrorMessage}
		_, err := r.step(ctx, InstanceID(n.ParentID), n, nil)
		if !moot(err) {
			r.log.Error("handing a child's outcome to its caller failed", "instance_id", n.ParentID, "child_id", row.InstanceID, "outbox_id", row.ID, "error", err)
		}
		return moot(err)
	case OutboxSignal:
		var p signalPayload
		if err := decode(row.Payload, &p); err != nil {
			break
		}
		return r.performSignal(ctx, row, p)
	}
	r.log.Error("unreadable outbox row; kept", "outbox_id", row.ID, "kind", row.Kind, "instance_id", row.InstanceID, "payload", string(row.Payload))
	return false
}

// performSignal broadcasts a thrown signal within the signal cascade of
// ctx (a new one if it has none) at the depth the row carries. A signal
// past the depth or the cascade's budget is dropped, as a warning.
func (r *Runtime) performSignal(ctx context.Context, row OutboxRow, p signalPayload) bool {
	ctx, c := withCascade(ctx)
	if p.Depth >= maxSignalDepth {
		r.log.Warn("signal chain too deep; not broadcasting", "signal", p.Name, "depth", p.Depth)
		return true
	}
	if c.budget.Add(-1) < 0 {
		r.log.Warn("signal cascade exceeded its budget; not broadcasting", "signal", p.Name, "broadcasts", maxSignalBroadcasts)
		return true
	}
	ctx = context.WithValue(ctx, signalCascadeKey{}, signalCascade{depth: p.Depth + 1, budget: c.budget})
	_, rest, err := r.broadcast(ctx, p.Name, p.Variables, p.Only)
	if err == nil {
		return true
	}
	if errors.Is(err, errClosed) {
		r.log.Warn("signal broadcast stopped by shutdown; it resumes after the restart", "signal", p.Name, "outbox_id", row.ID)
	} else {
		r.log.Error("signal broadcast failed", "signal", p.Name, "outbox_id", row.ID, "error", err)
	}
	if rest != nil {
		p.Only = rest
		b, merr := json.Marshal(p)
		if merr == nil {
			merr = r.store.UpdateOutbox(ctx, row.ID, b)
		}
		if merr != nil {
			// The retry reaches every subscriber again (at least once).
			r.log.Error("narrowing a signal's outbox row failed", "signal", p.Name, "outbox_id", row.ID, "error", merr)
		}
	}
	return false
}

// drainOutbox performs, oldest first, the outbox rows of one page of at
// most limit that nobody in this process holds and that are not in tried
// (which it extends, when not nil). It returns how many rows it took and
// how many of them are left (their work failed).
func (r *Runtime) drainOutbox(ctx context.Context, limit int, tried map[int64]bool) (taken, left int, err error) {
	r.outbox.gate.Lock()
	rows, err := r.outboxPage(ctx, limit)
	var fresh []OutboxRow
	for _, o := range rows {
		if !tried[o.ID] {
			fresh = append(fresh, o)
		}
	}
	rows = r.outbox.claimFree(fresh)
	r.outbox.gate.Unlock()
	if err != nil {
		return 0, 0, fmt.Errorf("runtime: read outbox: %w", err)
	}
	// Each row's signals start their own cascade at the depth they carry.
	ctx = context.WithoutCancel(ctx)
	for i, row := range rows {
		if r.stopping() { // Close is waiting: the rest wait for the restart
			for _, o := range rows[i:] {
				r.outbox.release(o.ID)
			}
			return i, left, nil
		}
		if tried != nil {
			tried[row.ID] = true
		}
		if !r.performOutbox(ctx, row) {
			left++
		}
	}
	return len(rows), left, nil
}

// DrainOutbox performs every outbox row nobody in this process is
// performing, oldest first, each at most once per call, page by page. Resume
// calls it at start-up; rows whose work fails are left for the scheduler's
// retry. It returns how many rows were done.
func (r *Runtime) DrainOutbox(ctx context.Context) (int, error) {
	done := 0
	tried := map[int64]bool{}
	for {
		taken, left, err := r.drainOutbox(ctx, outboxBatch, tried)
		done += taken - left
		if err != nil || taken == 0 {
			return done, err
		}
	}
}
