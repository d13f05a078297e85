package runtime

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
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
//   - At publication it goes to the oldest waiting subscription of each
//     process key that waits for its name and correlation key, each in a
//     step of its own that records the take (the first of them also
//     stores the message); with none, to every message start event of its
//     name, as without a time to live; with neither, it is only stored.
//     Then, whichever way it went, the publication offers it again to the
//     process keys that have a subscription open now and no take of it
//     (offerBuffered): one that opened while it was being published.
//   - A step that opens a message subscription (a catch event, receive
//     task, boundary or event sub-process start) looks up, by name and
//     correlation key on an index, the oldest live buffered message its
//     process key has not taken, and the engine receives it in that same
//     step (settleBuffered): the take and the step commit in one
//     transaction. A take the store refuses (the message expired, was
//     swept, or another instance of the process key took it first) re-runs
//     the step (runStep). A subscription for which the step found nothing
//     is looked up again once the step committed (recheckBuffered) and
//     gets a message stored meanwhile in a follow-up step. So each side
//     writes before it reads the other, and a subscription and a message
//     that overlap in time always meet: a crash loses or repeats neither,
//     since every delivery and its take commit together.
//   - A message correlates at most once per process key, across versions
//     and instances (Zeebe's rule), so an instance gets a given message
//     once. A buffered message never starts an instance later: as in
//     Zeebe, message start events only see a message at its publication.
//   - A message id makes a publication idempotent: while a message with
//     the same name, correlation key and message id is buffered, another
//     is refused (ErrDuplicateMessage, ECONFLICT: Zeebe's ALREADY_EXISTS);
//     once it expired the id is free again.
//   - With an idempotency key, the answer is fixed before the first write
//     and recorded by it (the first delivery step, the first start, or the
//     message's own transaction): a retry replays it and offers the
//     recorded message again, so a publication a crash cut short is
//     finished by its retry and nothing is delivered twice.
//   - The history cleaner's pass also sweeps expired messages
//     (SweepMessages); an expired message is never delivered, swept or not.
//   - On a single node the runtime remembers when the store was last seen
//     without buffered messages (bufferState): until the next publication
//     no step reads the buffer.

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

// Bounds of a buffered message's strings, in bytes, so that its index rows
// fit every store (a PostgreSQL B-tree row holds about 2.7 KB).
const (
	// MaxMessageNameLen bounds Publication.Name.
	MaxMessageNameLen = 255
	// MaxCorrelationKeyLen bounds Publication.CorrelationKey.
	MaxCorrelationKeyLen = 1024
	// MaxMessageIDLen bounds Publication.MessageID.
	MaxMessageIDLen = 255
)

// bufferedCandidates is how many buffered messages a subscription's
// look-up reads beyond those the same command took already.
const bufferedCandidates = 8

// maxBufferedRounds bounds the buffered messages one step takes itself; a
// subscription it opens beyond them is served after the commit, by
// recheckBuffered's follow-up steps.
const maxBufferedRounds = 1024

// maxOfferRounds bounds how often offerBuffered looks for subscriptions
// again after deliveries that found their wait gone.
const maxOfferRounds = 8

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
	// Correlated counts, when the publication began, the process keys
	// with a waiting subscription (each got the message), else the
	// message starts it started.
	Correlated int `json:"correlated"`
	// Buffered reports that the message is kept until ExpiresAt; Key is
	// its key then.
	Buffered  bool      `json:"buffered,omitempty"`
	Key       string    `json:"key,omitempty"`
	ExpiresAt time.Time `json:"expiresAt,omitzero"`
}

// PublishMessage publishes a message. Without a time to live it is
// CorrelateMessage. With one, it correlates as described above and is
// buffered whatever it reached: a duplicate message id is
// ErrDuplicateMessage (ECONFLICT); a name over MaxMessageNameLen bytes, a
// correlation key over MaxCorrelationKeyLen or a message id over
// MaxMessageIDLen is EINVALID. With an idempotency key, the answer is
// recorded with the publication's first write; a retry (or a concurrent
// request with the same key) replays it.
func (r *Runtime) PublishMessage(ctx context.Context, p Publication) (PublishResult, error) {
	if p.TimeToLive == 0 {
		n, err := r.CorrelateMessage(ctx, p.Name, p.CorrelationKey, p.Variables)
		return PublishResult{Correlated: n}, err
	}
	if err := checkPublication(p); err != nil {
		return PublishResult{}, err
	}
	if p.Variables == nil {
		p.Variables = map[string]any{}
	}
	vars, err := json.Marshal(p.Variables)
	if err != nil {
		return PublishResult{}, &Error{Code: EINVALID, Message: "variables must be a JSON object", Field: "variables", Err: err}
	}
	pub := publication{r: r, vars: p.Variables}
	if claimOf(ctx) != nil {
		if pub.hash, err = requestHash("publish", p.Name, p.CorrelationKey, p.Variables, p.TimeToLive, p.MessageID); err != nil {
			return PublishResult{}, err
		}
		pub.keyed = true
		if a, ok, err := pub.replay(ctx); ok || err != nil {
			return a, err
		}
	}
	now := r.now().UTC()
	pub.m = BufferedMessage{ID: r.newID(), Name: p.Name, CorrelationKey: p.CorrelationKey, MessageID: p.MessageID,
		Variables: vars, PublishedAt: now, ExpiresAt: now.Add(p.TimeToLive)}
	r.buffer.published()
	res, err := pub.publish(ctx)
	if err != nil && pub.keyed && ErrorCode(err) == ECONFLICT {
		// Perhaps a request with the same key published it meanwhile.
		if a, ok, rerr := pub.replay(ctx); ok || rerr != nil {
			return a, rerr
		}
	}
	if errors.Is(err, ErrDuplicateMessage) {
		return PublishResult{}, &Error{Code: ECONFLICT, Field: "messageId", Err: err,
			Message: fmt.Sprintf("a message %q with correlation key %q and message id %q is already buffered", p.Name, p.CorrelationKey, p.MessageID)}
	}
	return res, err
}

// checkPublication checks a buffered publication's name, time to live and
// string lengths.
func checkPublication(p Publication) error {
	switch {
	case strings.TrimSpace(p.Name) == "":
		return &Error{Code: EINVALID, Message: "name is required", Field: "name"}
	case p.TimeToLive < 0 || p.TimeToLive > MaxMessageTTL:
		return &Error{Code: EINVALID, Message: fmt.Sprintf("timeToLive must be from 0 to %d ms", MaxMessageTTL.Milliseconds()), Field: "timeToLive"}
	case len(p.Name) > MaxMessageNameLen:
		return &Error{Code: EINVALID, Message: fmt.Sprintf("a buffered message's name has at most %d bytes", MaxMessageNameLen), Field: "name"}
	case len(p.CorrelationKey) > MaxCorrelationKeyLen:
		return &Error{Code: EINVALID, Message: fmt.Sprintf("a buffered message's correlation key has at most %d bytes", MaxCorrelationKeyLen), Field: "correlationKey"}
	case len(p.MessageID) > MaxMessageIDLen:
		return &Error{Code: EINVALID, Message: fmt.Sprintf("a message id has at most %d bytes", MaxMessageIDLen), Field: "messageId"}
	}
	return nil
}

// publication is one PublishMessage with a time to live on its way.
type publication struct {
	r    *Runtime
	m    BufferedMessage
	vars map[string]any
	// keyed reports an idempotency key in the request's context; hash is
	// the request's then.
	keyed bool
	hash  [32]byte
}

// publishScope is the idempotency scope of publications.
const publishScope = "publish"

// replay answers a publication retried with a recorded idempotency key,
// after offering the recorded message again (offerBuffered) while it is
// live: what a crash kept the first request from delivering is delivered
// now, and nothing twice (takes are once per process key).
func (p *publication) replay(ctx context.Context) (PublishResult, bool, error) {
	row, ok, err := p.r.replayable(ctx, publishScope+" "+claimOf(ctx).key, p.hash)
	if err != nil || !ok {
		return PublishResult{}, false, err
	}
	var a PublishResult
	if err := json.Unmarshal(row.Answer, &a); err != nil {
		return PublishResult{}, false, fmt.Errorf("runtime: idempotent answer of %s: %w", row.Key, err)
	}
	if a.Key == "" {
		return a, true, nil
	}
	m, err := p.r.store.BufferedMessage(ctx, a.Key)
	if ErrorCode(err) == ENOTFOUND {
		return a, true, nil // swept
	}
	if err != nil {
		return PublishResult{}, false, fmt.Errorf("runtime: replay message %s: %w", a.Key, err)
	}
	if m.ExpiresAt.After(p.r.now().UTC()) {
		vars, err := decodeMessageVariables(m.Variables)
		if err != nil {
			return PublishResult{}, false, fmt.Errorf("runtime: buffered message %s: %w", m.ID, err)
		}
		taken := map[string]bool{}
		for _, k := range m.TakenBy {
			taken[k] = true
		}
		p.r.offerBuffered(ctx, m, vars, taken)
	}
	return a, true, nil
}

// arm fixes the answer the publication's first write records with the
// request's idempotency key (none without one).
func (p *publication) arm(ctx context.Context, res PublishResult) error {
	if !p.keyed {
		return nil
	}
	_, err := p.r.prepareClaim(ctx, publishScope, p.hash, res)
	return err
}

// publish delivers m at publication and buffers it (see above), then
// offers it to the subscriptions that opened meanwhile.
func (p *publication) publish(ctx context.Context) (PublishResult, error) {
	r, m := p.r, p.m
	res := PublishResult{Buffered: true, Key: m.ID, ExpiresAt: m.ExpiresAt}
	subs, err := r.store.MessageSubscribers(ctx, m.Name, m.CorrelationKey)
	if err != nil {
		return PublishResult{}, fmt.Errorf("runtime: publish %s: %w", m.Name, err)
	}
	stored := false
	taken := map[string]bool{}
	if len(subs) > 0 {
		res.Correlated = len(subs)
		if err := p.arm(ctx, res); err != nil {
			return PublishResult{}, err
		}
		for _, sub := range subs {
			d, err := r.deliverBuffered(ctx, sub, m, p.vars, !stored)
			if err != nil {
				if !stored {
					return PublishResult{}, err
				}
				return res, err
			}
			if d == delivered {
				stored, taken[sub.ProcessKey] = true, true
			}
		}
	}
	if !stored {
		if res, err = p.startOrStore(ctx, res, taken); err != nil {
			return PublishResult{}, err
		}
	}
	r.offerBuffered(ctx, m, p.vars, taken)
	return res, nil
}

// startOrStore stores m when no subscription took it: in the first
// message start's step (with a take for each start's process key), else on
// its own, each with the request's idempotency record. The starts'
// process keys go to taken.
func (p *publication) startOrStore(ctx context.Context, res PublishResult, taken map[string]bool) (PublishResult, error) {
	r, m := p.r, p.m
	starts, err := r.eventStarts(ctx, bpmn.TriggerMessage, m.Name)
	if err != nil {
		return res, fmt.Errorf("runtime: message starts for %s: %w", m.Name, err)
	}
	res.Correlated = len(starts)
	if err := p.arm(ctx, res); err != nil {
		return res, err
	}
	if len(starts) == 0 {
		claim := takeClaim(ctx, "")
		if err := r.store.BufferMessage(ctx, m, nil, claim); err != nil {
			if claim != nil {
				returnClaim(ctx)
			}
			return res, fmt.Errorf("runtime: buffer message %s: %w", m.Name, err)
		}
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
		if _, err := r.startAt(ctx, s.proc, s.ref, m.CorrelationKey, s.node, p.vars, extra, nil); err != nil {
			return res, err
		}
	}
	for _, s := range starts {
		taken[s.ref.Key] = true
	}
	return res, nil
}

// delivery is what deliverBuffered did.
type delivery int

const (
	// delivered: the step committed with its take.
	delivered delivery = iota
	// keyHasIt: the store refused the take (the process key took the
	// message meanwhile, or it expired or was swept).
	keyHasIt
	// waitGone: the wait was not open any more.
	waitGone
)

// deliverBuffered delivers m to the message wait sub in a step that takes
// m for sub's process key and, with keep set, stores m.
func (r *Runtime) deliverBuffered(ctx context.Context, sub WaitRow, m BufferedMessage, vars map[string]any, keep bool) (delivery, error) {
	_, err := r.runStep(ctx, stepSpec{id: sub.InstanceID, ev: engine.MessageDelivered{WaitID: sub.ID, Variables: vars},
		extra: func(rec *StepRecord) {
			if keep {
				msg := m
				rec.BufferMessage = &msg
			}
			rec.MessageTakes = append(rec.MessageTakes, MessageTake{MessageID: m.ID, ProcessKey: rec.Instance.ProcessKey, InstanceID: rec.Instance.ID, At: rec.Instance.UpdatedAt})
		}})
	switch {
	case err == nil:
		return delivered, nil
	case errors.Is(err, ErrDuplicateMessage):
		return waitGone, err
	case errors.Is(err, ErrMessageTaken):
		return keyHasIt, nil
	case errors.Is(err, ErrConflict) && claimOf(ctx) != nil && keep:
		return waitGone, err // perhaps the idempotency key: the caller replays
	case ErrorCode(err) == ENOTFOUND || ErrorCode(err) == ECONFLICT:
		return waitGone, nil // delivered to someone else meanwhile
	default:
		return waitGone, err
	}
}

// offerBuffered closes the race between a publication and a subscription
// whose step looked for buffered messages before the publication's
// commit: for each process key with a message wait open now that has not
// taken m (taken lists those known to have), it delivers m to that key's
// oldest wait in a step that takes m, and looks again while a delivery
// found its wait gone. A failure leaves m buffered, which is what the
// publication promised; it is logged.
func (r *Runtime) offerBuffered(ctx context.Context, m BufferedMessage, vars map[string]any, taken map[string]bool) {
	for round := 0; round < maxOfferRounds; round++ {
		subs, err := r.store.MessageSubscribers(ctx, m.Name, m.CorrelationKey)
		if err != nil {
			r.log.Error("buffered message not offered", "message", m.Name, "error", err)
			return
		}
		again := false
		for _, sub := range subs {
			if taken[sub.ProcessKey] {
				continue
			}
			if !m.ExpiresAt.After(r.now().UTC()) {
				return
			}
			d, err := r.deliverBuffered(ctx, sub, m, vars, false)
			if err != nil {
				r.log.Error("buffered message not offered", "message", m.Name, "instance_id", sub.InstanceID, "error", err)
				return
			}
			if d == waitGone {
				again = true // the key's next oldest wait, if any
				continue
			}
			taken[sub.ProcessKey] = true
		}
		if !again {
			return
		}
	}
}

// bufferRecheck is a message wait a step opened and found no buffered
// message for: recheckBuffered looks again once the step committed.
type bufferRecheck struct {
	instance   InstanceID
	wait       string
	name, key  string
	processKey string
}

// recheckBuffered looks up, after w's commit, the buffered messages of the
// message waits its steps opened without finding one, and delivers each
// wait the oldest live message its process key has not taken, in a
// follow-up step that takes it (a wait gone meanwhile is passed over):
// one read per name, correlation key and process key that has none. A
// failure is logged: the message stays buffered.
func (r *Runtime) recheckBuffered(ctx context.Context, w *work) {
	if len(w.rechecks) == 0 || !r.buffer.mayHold(ctx, r) {
		return
	}
	none := map[[3]string]bool{} // pairs of a process key found without a message: one read each
	for _, c := range w.rechecks {
		pair := [3]string{c.name, c.key, c.processKey}
		if none[pair] {
			continue
		}
		msgs, err := r.store.BufferedMessages(ctx, c.name, c.key, c.processKey, r.now().UTC(), bufferedCandidates)
		if err != nil {
			r.log.Error("buffered messages not looked up", "message", c.name, "instance_id", c.instance, "error", err)
			continue
		}
		none[pair] = len(msgs) == 0
		for _, m := range msgs {
			vars, err := decodeMessageVariables(m.Variables)
			if err != nil {
				r.log.Error("buffered message not delivered", "message", c.name, "instance_id", c.instance, "error", err)
				break
			}
			d, err := r.deliverBuffered(ctx, WaitRow{ID: c.wait, InstanceID: c.instance}, m, vars, false)
			if err != nil {
				r.log.Error("buffered message not delivered", "message", c.name, "instance_id", c.instance, "error", err)
			}
			if d != keyHasIt || err != nil {
				break // delivered, or the wait is gone
			}
		}
	}
}

// settleBuffered delivers buffered messages to the message subscriptions
// st's step opened (waits numbered after before): for each, in creation
// order, the oldest live message of its name and correlation key that the
// process key has not taken (neither committed nor in this command),
// applied as an engine.MessageDelivered in the same step; then what that
// delivery asked of the registry is settled too. The takes go to w for the
// step's record; a subscription it found nothing for, or beyond
// maxBufferedRounds deliveries, goes to w's rechecks. Only the pipeline
// calls it, after settle.
func (r *Runtime) settleBuffered(ctx context.Context, w *work, proc *bpmn.Process, businessKey string, st *engine.State, fx engine.Effects, now time.Time, before int) (*engine.State, engine.Effects, error) {
	checked := map[string]bool{}
	next := func() *engine.Wait {
		for i := range fx.Waits {
			wt := &fx.Waits[i]
			if wt.Kind == engine.WaitMessage && !checked[wt.ID] && waitNumber(wt.ID) > before && st.Wait(wt.ID) != nil {
				checked[wt.ID] = true
				return wt
			}
		}
		return nil
	}
	open := next()
	if open == nil {
		return st, fx, nil
	}
	recheck := func(wt *engine.Wait) {
		w.rechecks = append(w.rechecks, bufferRecheck{instance: InstanceID(st.InstanceID), wait: wt.ID, name: wt.Name, key: wt.CorrelationKey, processKey: st.ProcessKey})
	}
	look := r.buffer.mayHold(ctx, r)
	cands := bufferCandidates{}
	for taken := 0; open != nil; open = next() {
		if !look || taken >= maxBufferedRounds {
			recheck(open)
			continue
		}
		pending := 1
		for i := range fx.Waits {
			if wt := &fx.Waits[i]; wt.Kind == engine.WaitMessage && !checked[wt.ID] && wt.Name == open.Name && wt.CorrelationKey == open.CorrelationKey {
				pending++
			}
		}
		m, err := cands.pick(func(limit int) ([]BufferedMessage, error) {
			return r.store.BufferedMessages(ctx, open.Name, open.CorrelationKey, st.ProcessKey, now, limit)
		}, w, open.Name, open.CorrelationKey, st.ProcessKey, pending)
		if err != nil {
			return nil, fx, fmt.Errorf("runtime: buffered messages for %s in %s: %w", open.Name, st.InstanceID, err)
		}
		if m == nil {
			recheck(open)
			continue
		}
		vars, err := decodeMessageVariables(m.Variables)
		if err != nil {
			return nil, fx, fmt.Errorf("runtime: buffered message %s: %w", m.ID, err)
		}
		after, more, err := engine.Apply(proc, st, engine.MessageDelivered{WaitID: open.ID, Variables: vars}, now, r.engine)
		if err != nil {
			return nil, fx, fmt.Errorf("runtime: deliver buffered message %s in %s: %w", m.ID, st.InstanceID, err)
		}
		st, fx = after, mergeEffects(fx, more)
		w.takeMessage(MessageTake{MessageID: m.ID, ProcessKey: st.ProcessKey, InstanceID: InstanceID(st.InstanceID), At: now})
		taken++
		if st, fx, err = r.settle(ctx, w, proc, businessKey, st, fx, now); err != nil {
			return nil, fx, err
		}
	}
	return st, fx, nil
}

// bufferCandidates keeps, for one step's look-ups, the buffered messages
// read per name and correlation key, so that the subscriptions a step
// opens for one pair share a store read.
type bufferCandidates map[[2]string]*candidateList

// candidateList is the messages one read returned; complete reports that
// the read returned fewer than it asked for (there are no more).
type candidateList struct {
	msgs     []BufferedMessage
	complete bool
}

// pick returns the oldest candidate of name and key that w has not taken
// for processKey, reading (with read) when the pair was not read yet or
// its list ran out: enough for pending subscriptions beyond the command's
// takes. nil means there is none.
func (c bufferCandidates) pick(read func(limit int) ([]BufferedMessage, error), w *work, name, key, processKey string, pending int) (*BufferedMessage, error) {
	p := [2]string{name, key}
	for fresh := false; ; fresh = true {
		if l := c[p]; l != nil {
			for i := range l.msgs {
				if !w.tookMessage(l.msgs[i].ID, processKey) {
					return &l.msgs[i], nil
				}
			}
			if l.complete || fresh {
				return nil, nil
			}
		}
		limit := bufferedCandidates + w.tookCount(processKey) + pending
		msgs, err := read(limit)
		if err != nil {
			return nil, err
		}
		c[p] = &candidateList{msgs: msgs, complete: len(msgs) < limit}
	}
}

// bufferState lets a single node skip the buffer's look-ups while the
// store is known to hold no buffered message. Known empty means: the last
// look (AnyBufferedMessages, the first time a step asks and after each
// sweep) found none, and no publication began on this node since it
// started looking. A publication counts itself (published) before its
// first write, so a step that checks after its own commit sees it; on a
// store several nodes share the buffer is never known empty.
type bufferState struct {
	// learned is set once the first look was asked for.
	learned atomic.Bool
	// gen counts the publications begun; emptyAt is 1 + the gen at which
	// the store was last seen empty (0: never).
	gen     atomic.Int64
	emptyAt atomic.Int64
}

// published counts a publication that is about to write.
func (b *bufferState) published() { b.gen.Add(1) }

// mayHold reports whether the buffer may hold a message (false only when
// it is known empty).
func (b *bufferState) mayHold(ctx context.Context, r *Runtime) bool {
	if r.cluster != nil {
		return true
	}
	if !b.learned.Swap(true) {
		b.look(ctx, r)
	}
	return b.emptyAt.Load() != b.gen.Load()+1
}

// look asks the store whether it holds a buffered message and, when it
// holds none, marks the buffer empty as of the publications counted
// before the question.
func (b *bufferState) look(ctx context.Context, r *Runtime) {
	if r.cluster != nil {
		return
	}
	g := b.gen.Load()
	found, err := r.store.AnyBufferedMessages(ctx)
	if err != nil {
		r.log.Warn("buffered messages not counted", "error", err)
		return
	}
	if found {
		return
	}
	for {
		cur := b.emptyAt.Load()
		if cur >= g+1 || b.emptyAt.CompareAndSwap(cur, g+1) {
			return
		}
	}
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

// tookCount is how many takes of the command are for processKey.
func (w *work) tookCount(processKey string) int {
	n := 0
	for _, ts := range w.takes {
		for _, t := range ts {
			if t.ProcessKey == processKey {
				n++
			}
		}
	}
	return n
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
	r.buffer.look(ctx, r)
	return swept, nil
}

// BufferedMessage returns a buffered message by key, with the process
// keys that took it, until it is swept; ENOTFOUND otherwise.
func (r *Runtime) BufferedMessage(ctx context.Context, key string) (BufferedMessage, error) {
	return r.store.BufferedMessage(ctx, key)
}
