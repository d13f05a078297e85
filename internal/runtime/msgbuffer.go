package runtime

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/gobpm/gobpm/internal/bpmn"
	"github.com/gobpm/gobpm/internal/engine"
	"github.com/gobpm/gobpm/internal/store"
)

// Buffered messages: Camunda 8's message time to live.
//
// A message published with a time to live (Publication.TimeToLive > 0) is
// kept in the store until it expires, at the runtime's clock:
//
//   - At publication it goes, as without one, to the oldest subscription
//     waiting for its name and correlation key, else to every message
//     start event of its name; then it stays buffered for the others.
//   - A step that opens a message subscription (a catch event, receive
//     task, boundary or event sub-process start) looks up, by name and
//     correlation key on an index, the oldest live buffered message its
//     process key has not taken, and the engine receives it in that same
//     step (settleBuffered): the take and the step commit in one
//     transaction, so a crash loses or repeats neither. A take the store
//     refuses (the message expired, was swept, or another instance of the
//     process key took it first) re-runs the step (runStep).
//   - A message correlates at most once per process key, across versions
//     and instances (Zeebe's rule), so an instance gets a given message
//     once. A buffered message never starts an instance later: as in
//     Zeebe, message start events only see a message at its publication.
//   - A message id makes a publication idempotent: while a message with
//     the same name, correlation key and message id is buffered, another
//     is refused (ErrDuplicateMessage, ECONFLICT: Zeebe's ALREADY_EXISTS);
//     once it expired the id is free again.
//   - The history cleaner's pass also sweeps expired messages
//     (SweepMessages); an expired message is never delivered, swept or not.

// Aliases of the store's buffered-message records.
type (
	// BufferedMessage is store.BufferedMessage.
	BufferedMessage = store.BufferedMessage
	// MessageTake is store.MessageTake.
	MessageTake = store.MessageTake
)

var (
	// ErrDuplicateMessage is store.ErrDuplicateMessage.
	ErrDuplicateMessage = store.ErrDuplicateMessage
	// ErrMessageTaken is store.ErrMessageTaken.
	ErrMessageTaken = store.ErrMessageTaken
)

// MaxMessageTTL bounds Publication.TimeToLive.
const MaxMessageTTL = 366 * 24 * time.Hour

// bufferedCandidates is how many buffered messages a subscription's
// look-up reads: enough to pass over those the same command took already.
const bufferedCandidates = 8

// maxBufferedRounds bounds the buffered messages one step takes.
const maxBufferedRounds = 64

// Publication is a message to publish (PublishMessage).
type Publication struct {
	Name           string
	CorrelationKey string
	Variables      map[string]any
	// TimeToLive, when positive, buffers the message that long; 0 is
	// CorrelateMessage's behaviour (nothing waiting → ENOTFOUND).
	TimeToLive time.Duration
	// MessageID, with a TimeToLive, makes the publication unique among
	// the live buffered messages of its name and correlation key.
	MessageID string
}

// PublishResult is what a publication did.
type PublishResult struct {
	// Correlated counts the subscriptions or message starts the message
	// reached at publication.
	Correlated int `json:"correlated"`
	// Buffered reports that the message is kept until ExpiresAt; Key is
	// its key then.
	Buffered  bool      `json:"buffered,omitempty"`
	Key       string    `json:"key,omitempty"`
	ExpiresAt time.Time `json:"expiresAt,omitzero"`
}

// PublishMessage publishes a message. Without a time to live it is
// CorrelateMessage. With one, it correlates as CorrelateMessage does and
// is buffered whatever it reached (see above): a duplicate message id is
// ErrDuplicateMessage (ECONFLICT). With an idempotency key, a retry
// replays the recorded answer; the answer is recorded once the
// publication is done.
func (r *Runtime) PublishMessage(ctx context.Context, p Publication) (PublishResult, error) {
	if p.TimeToLive == 0 {
		n, err := r.CorrelateMessage(ctx, p.Name, p.CorrelationKey, p.Variables)
		return PublishResult{Correlated: n}, err
	}
	if strings.TrimSpace(p.Name) == "" {
		return PublishResult{}, &Error{Code: EINVALID, Message: "name is required", Field: "name"}
	}
	if p.TimeToLive < 0 || p.TimeToLive > MaxMessageTTL {
		return PublishResult{}, &Error{Code: EINVALID, Message: fmt.Sprintf("timeToLive must be from 0 to %d ms", MaxMessageTTL.Milliseconds()), Field: "timeToLive"}
	}
	if p.Variables == nil {
		p.Variables = map[string]any{}
	}
	vars, err := json.Marshal(p.Variables)
	if err != nil {
		return PublishResult{}, &Error{Code: EINVALID, Message: "variables must be a JSON object", Field: "variables", Err: err}
	}
	var (
		scoped string
		hash   [32]byte
	)
	if c := claimOf(ctx); c != nil {
		if hash, err = requestHash("publish", p.Name, p.CorrelationKey, p.Variables, p.TimeToLive, p.MessageID); err != nil {
			return PublishResult{}, err
		}
		scoped = "publish " + c.key
		if row, ok, err := r.replayable(ctx, scoped, hash); err != nil {
			return PublishResult{}, err
		} else if ok {
			var a PublishResult
			if err := json.Unmarshal(row.Answer, &a); err != nil {
				return PublishResult{}, fmt.Errorf("runtime: idempotent answer of %s: %w", row.Key, err)
			}
			return a, nil
		}
	}
	now := r.now().UTC()
	m := BufferedMessage{ID: r.newID(), Name: p.Name, CorrelationKey: p.CorrelationKey, MessageID: p.MessageID,
		Variables: vars, PublishedAt: now, ExpiresAt: now.Add(p.TimeToLive)}
	res, err := r.publishBuffered(ctx, m, p.Variables)
	if err != nil {
		if errors.Is(err, ErrDuplicateMessage) {
			return PublishResult{}, &Error{Code: ECONFLICT, Field: "messageId", Err: err,
				Message: fmt.Sprintf("a message %q with correlation key %q and message id %q is already buffered", p.Name, p.CorrelationKey, p.MessageID)}
		}
		return PublishResult{}, err
	}
	if scoped != "" {
		answer, err := json.Marshal(res)
		if err != nil {
			return res, fmt.Errorf("runtime: encode the idempotent answer: %w", err)
		}
		at := r.now().UTC()
		row := IdempotencyRow{Key: scoped, RequestHash: hash, Answer: answer, CreatedAt: at, ExpiredBefore: at.Add(-r.idempotencyWindow)}
		if err := r.store.RecordIdempotency(ctx, row); err != nil && ErrorCode(err) != ECONFLICT {
			return res, fmt.Errorf("runtime: record message %s: %w", p.Name, err)
		}
	}
	return res, nil
}

// publishBuffered delivers m at publication and buffers it: in the step
// that delivers it to the oldest waiting subscription, else in the first
// message start's step (with a take for each start's process key), else
// on its own — and then offers it to a subscription that opened while it
// was being stored (offerBuffered).
func (r *Runtime) publishBuffered(ctx context.Context, m BufferedMessage, vars map[string]any) (PublishResult, error) {
	res := PublishResult{Buffered: true, Key: m.ID, ExpiresAt: m.ExpiresAt}
	buffer := func(rec *StepRecord) {
		msg := m
		rec.BufferMessage = &msg
		rec.MessageTakes = append(rec.MessageTakes, MessageTake{MessageID: m.ID, ProcessKey: rec.Instance.ProcessKey, InstanceID: rec.Instance.ID, At: m.PublishedAt})
	}
	for attempt := 0; attempt < 8; attempt++ {
		subs, err := r.store.MessageSubscriptions(ctx, m.Name, m.CorrelationKey, 1)
		if err != nil {
			return PublishResult{}, fmt.Errorf("runtime: publish %s: %w", m.Name, err)
		}
		if len(subs) == 0 {
			break
		}
		_, err = r.runStep(ctx, stepSpec{id: subs[0].InstanceID, ev: engine.MessageDelivered{WaitID: subs[0].ID, Variables: vars}, extra: buffer})
		if errors.Is(err, ErrDuplicateMessage) {
			return PublishResult{}, err
		}
		if ErrorCode(err) == ENOTFOUND || ErrorCode(err) == ECONFLICT {
			continue // taken by someone else meanwhile: look again
		}
		if err != nil {
			return PublishResult{}, err
		}
		res.Correlated = 1
		return res, nil
	}
	starts, err := r.eventStarts(ctx, bpmn.TriggerMessage, m.Name)
	if err != nil {
		return PublishResult{}, fmt.Errorf("runtime: message starts for %s: %w", m.Name, err)
	}
	if len(starts) == 0 {
		if err := r.store.BufferMessage(ctx, m, nil); err != nil {
			return PublishResult{}, err
		}
		r.offerBuffered(ctx, m, vars)
		return res, nil
	}
	for i, s := range starts {
		var extra func(*StepRecord)
		if i == 0 {
			extra = func(rec *StepRecord) {
				msg := m
				rec.BufferMessage = &msg
				for _, o := range starts {
					t := MessageTake{MessageID: m.ID, ProcessKey: o.ref.Key, At: m.PublishedAt}
					if o.ref.Key == rec.Instance.ProcessKey {
						t.InstanceID = rec.Instance.ID
					}
					rec.MessageTakes = append(rec.MessageTakes, t)
				}
			}
		}
		if _, err := r.startAt(ctx, s.proc, s.ref, m.CorrelationKey, s.node, vars, extra, nil); err != nil {
			if i == 0 {
				return PublishResult{}, err
			}
			return res, err
		}
		res.Correlated++
	}
	return res, nil
}

// offerBuffered closes the race between a publication that found no
// subscription and a subscription whose step looked for buffered messages
// before the publication's commit: it delivers m to the oldest
// subscription waiting now, in a step that takes m (refused when that
// process key took it meanwhile). A failure leaves m buffered, which is
// what the publication promised; it is logged.
func (r *Runtime) offerBuffered(ctx context.Context, m BufferedMessage, vars map[string]any) {
	subs, err := r.store.MessageSubscriptions(ctx, m.Name, m.CorrelationKey, bufferedCandidates)
	if err != nil {
		r.log.Error("buffered message not offered", "message", m.Name, "error", err)
		return
	}
	for _, sub := range subs {
		_, err := r.runStep(ctx, stepSpec{id: sub.InstanceID, ev: engine.MessageDelivered{WaitID: sub.ID, Variables: vars},
			extra: func(rec *StepRecord) {
				rec.MessageTakes = append(rec.MessageTakes, MessageTake{MessageID: m.ID, ProcessKey: rec.Instance.ProcessKey, InstanceID: rec.Instance.ID, At: rec.Instance.UpdatedAt})
			}})
		switch {
		case err == nil:
			return
		case errors.Is(err, ErrMessageTaken), ErrorCode(err) == ENOTFOUND, ErrorCode(err) == ECONFLICT:
			continue
		default:
			r.log.Error("buffered message not offered", "message", m.Name, "instance_id", sub.InstanceID, "error", err)
			return
		}
	}
}

// settleBuffered delivers buffered messages to the message subscriptions
// st's step opened (waits numbered after before): for each, in creation
// order, the oldest live message of its name and correlation key that the
// process key has not taken, applied as an engine.MessageDelivered in
// the same step; then what that delivery asked of the registry is settled
// too. The takes go to w for the step's record. Only the pipeline calls
// it, after settle.
func (r *Runtime) settleBuffered(ctx context.Context, w *work, proc *bpmn.Process, businessKey string, st *engine.State, fx engine.Effects, now time.Time, before int) (*engine.State, engine.Effects, error) {
	checked := map[string]bool{}
	for round := 0; round < maxBufferedRounds; round++ {
		var open *engine.Wait
		for i := range fx.Waits {
			wt := &fx.Waits[i]
			if wt.Kind == engine.WaitMessage && !checked[wt.ID] && waitNumber(wt.ID) > before && st.Wait(wt.ID) != nil {
				open = wt
				break
			}
		}
		if open == nil {
			return st, fx, nil
		}
		checked[open.ID] = true
		msgs, err := r.store.BufferedMessages(ctx, open.Name, open.CorrelationKey, st.ProcessKey, now, bufferedCandidates)
		if err != nil {
			return nil, fx, fmt.Errorf("runtime: buffered messages for %s in %s: %w", open.Name, st.InstanceID, err)
		}
		var m *BufferedMessage
		for i := range msgs {
			if !w.tookMessage(msgs[i].ID, st.ProcessKey) {
				m = &msgs[i]
				break
			}
		}
		if m == nil {
			continue
		}
		vars, err := decodeMessageVariables(m.Variables)
		if err != nil {
			return nil, fx, fmt.Errorf("runtime: buffered message %s: %w", m.ID, err)
		}
		next, more, err := engine.Apply(proc, st, engine.MessageDelivered{WaitID: open.ID, Variables: vars}, now, r.engine)
		if err != nil {
			return nil, fx, fmt.Errorf("runtime: deliver buffered message %s in %s: %w", m.ID, st.InstanceID, err)
		}
		st, fx = next, mergeEffects(fx, more)
		w.takeMessage(MessageTake{MessageID: m.ID, ProcessKey: st.ProcessKey, InstanceID: InstanceID(st.InstanceID), At: now})
		if st, fx, err = r.settle(ctx, w, proc, businessKey, st, fx, now); err != nil {
			return nil, fx, err
		}
	}
	return st, fx, nil
}

// waitNumber is the counter a wait id ends in ("…-w000012" → 12), 0 for
// an id without one.
func waitNumber(id string) int {
	i := strings.LastIndex(id, "-w")
	if i < 0 {
		return 0
	}
	n, err := strconv.Atoi(id[i+2:])
	if err != nil {
		return 0
	}
	return n
}

// decodeMessageVariables decodes a buffered message's variables as the API
// decodes a request's (numbers stay json.Number).
func decodeMessageVariables(raw json.RawMessage) (map[string]any, error) {
	vars := map[string]any{}
	if len(raw) == 0 {
		return vars, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&vars); err != nil {
		return nil, err
	}
	return vars, nil
}

// messageTakes is the buffered messages a command took, per instance
// (work.takes).
type messageTakes map[InstanceID][]MessageTake

// takeMessage records a take of the command.
func (w *work) takeMessage(t MessageTake) {
	if w.takes == nil {
		w.takes = messageTakes{}
	}
	w.takes[t.InstanceID] = append(w.takes[t.InstanceID], t)
}

// tookMessage reports whether the command took message id for processKey.
func (w *work) tookMessage(id, processKey string) bool {
	for _, ts := range w.takes {
		for _, t := range ts {
			if t.MessageID == id && t.ProcessKey == processKey {
				return true
			}
		}
	}
	return false
}

// SweepMessages deletes the buffered messages expired at the runtime's
// clock, a batch per transaction, and returns how many. The history
// cleaner calls it on each pass; tests and tools may too.
func (r *Runtime) SweepMessages(ctx context.Context) (int, error) {
	now := r.now().UTC()
	swept := 0
	for !r.stopping() {
		n, err := r.store.SweepMessages(ctx, now, r.retention.Batch)
		if err != nil {
			return swept, fmt.Errorf("runtime: sweep buffered messages: %w", err)
		}
		swept += n
		if n < r.retention.Batch {
			break
		}
	}
	if swept > 0 {
		r.log.Info("buffered messages swept", "swept", swept)
	}
	return swept, nil
}

// BufferedMessage returns a buffered message by key, with the process
// keys that took it, until it is swept; ENOTFOUND otherwise.
func (r *Runtime) BufferedMessage(ctx context.Context, key string) (BufferedMessage, error) {
	return r.store.BufferedMessage(ctx, key)
}
