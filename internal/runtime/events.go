package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/gobpm/gobpm/internal/bpmn"
	"github.com/gobpm/gobpm/internal/engine"
)

// eventStart is a process-level start event of the latest version of a key.
type eventStart struct {
	proc *bpmn.Process
	ref  DefinitionRef
	node string
}

// eventStarts lists the message or signal start events with a name among
// the latest version of every process.
func (r *Runtime) eventStarts(ctx context.Context, kind bpmn.TriggerKind, name string) ([]eventStart, error) {
	latest, err := r.store.LatestDefinitions(ctx)
	if err != nil {
		return nil, err
	}
	var out []eventStart
	for _, d := range latest {
		proc, ref, err := r.process(ctx, d.Key, d.Version)
		if err != nil {
			return nil, unreadableDefinition(d.Key, d.Version, err)
		}
		for _, n := range proc.EventStarts {
			for _, ev := range n.Event.Triggers() { // a multiple start: any of its definitions
				if (kind == bpmn.TriggerMessage && ev.Kind == kind && ev.MessageName == name) || (kind == bpmn.TriggerSignal && ev.Kind == kind && ev.SignalName == name) {
					out = append(out, eventStart{proc: proc, ref: ref, node: n.ID})
					break
				}
			}
		}
	}
	return out, nil
}

// CorrelateMessage delivers a message to the oldest subscription waiting for
// its name and correlation key; with none, it starts an instance at every
// message start event of that name (latest versions, the correlation key as
// business key). Nothing waiting → ENOTFOUND. It returns how many
// subscriptions or starts took the message.
func (r *Runtime) CorrelateMessage(ctx context.Context, name, correlationKey string, vars map[string]any) (int, error) {
	if strings.TrimSpace(name) == "" {
		return 0, &Error{Code: EINVALID, Message: "name is required", Field: "name"}
	}
	var scoped string
	var hash [32]byte
	if claimOf(ctx) != nil {
		var err error
		if hash, err = requestHash("message", name, correlationKey, vars); err != nil {
			return 0, err
		}
		if n, ok, err := r.replayMessage(ctx, hash); ok || err != nil {
			return n, err
		}
		if scoped, err = r.prepareClaim(ctx, "message", hash, messageAnswer{Correlated: 1}); err != nil {
			return 0, err
		}
	}
	for attempt := 0; attempt < 8; attempt++ {
		subs, err := r.store.MessageSubscriptions(ctx, name, correlationKey, 1)
		if err != nil {
			return 0, fmt.Errorf("runtime: correlate %s: %w", name, err)
		}
		if len(subs) == 0 {
			break
		}
		_, err = r.step(ctx, subs[0].InstanceID, engine.MessageDelivered{WaitID: subs[0].ID, Variables: vars}, nil)
		if scoped != "" && ErrorCode(err) == ECONFLICT {
			// Perhaps a request with the same key delivered it meanwhile.
			if n, ok, rerr := r.replayMessage(ctx, hash); ok || rerr != nil {
				return n, rerr
			}
		}
		if ErrorCode(err) == ENOTFOUND || ErrorCode(err) == ECONFLICT {
			continue // taken by someone else meanwhile: look again
		}
		if err != nil {
			return 0, err
		}
		return 1, nil
	}
	starts, err := r.eventStarts(ctx, bpmn.TriggerMessage, name)
	if err != nil {
		return 0, fmt.Errorf("runtime: message starts for %s: %w", name, err)
	}
	if scoped != "" && len(starts) > 0 {
		// The key goes with the first start: a retry after a crash between
		// two starts replays instead of starting the first again.
		if _, err := r.prepareClaim(ctx, "message", hash, messageAnswer{Correlated: len(starts)}); err != nil {
			return 0, err
		}
	}
	for _, s := range starts {
		if _, err := r.startAt(ctx, s.proc, s.ref, correlationKey, s.node, vars, nil, nil); err != nil {
			return 0, err
		}
	}
	if len(starts) == 0 {
		return 0, &Error{Code: ENOTFOUND, Message: fmt.Sprintf("nothing waits for message %q with correlation key %q", name, correlationKey)}
	}
	return len(starts), nil
}

// messageAnswer is what a message retried with its idempotency key replays.
type messageAnswer struct {
	Correlated int `json:"correlated"`
}

// replayMessage answers a message retried with a recorded idempotency key.
func (r *Runtime) replayMessage(ctx context.Context, hash [32]byte) (int, bool, error) {
	row, ok, err := r.replayable(ctx, "message "+claimOf(ctx).key, hash)
	if err != nil || !ok {
		return 0, false, err
	}
	var a messageAnswer
	if err := json.Unmarshal(row.Answer, &a); err != nil {
		return 0, false, fmt.Errorf("runtime: idempotent answer of %s: %w", row.Key, err)
	}
	return a.Correlated, true, nil
}

// BroadcastSignal fires every signal subscription with the name in every
// instance and starts an instance at every signal start event of that name.
// It returns how many subscriptions and starts were triggered.
func (r *Runtime) BroadcastSignal(ctx context.Context, name string, vars map[string]any) (int, error) {
	if strings.TrimSpace(name) == "" {
		return 0, &Error{Code: EINVALID, Message: "name is required", Field: "name"}
	}
	c := claimOf(ctx)
	if c == nil {
		n, _, err := r.broadcast(ctx, name, vars, nil)
		return n, err
	}
	// With an idempotency key: a recorded broadcast replays its answer. A
	// broadcast cut short by a crash is finished by the retry: the catch
	// events it reached are no longer waiting, and each signal start it
	// made recorded the key in its own transaction, so neither is
	// triggered twice.
	hash, err := requestHash("signal", name, vars)
	if err != nil {
		return 0, err
	}
	scoped := "signal " + c.key
	if row, ok, err := r.replayable(ctx, scoped, hash); err != nil {
		return 0, err
	} else if ok {
		var a signalAnswer
		if err := json.Unmarshal(row.Answer, &a); err != nil {
			return 0, fmt.Errorf("runtime: idempotent answer of %s: %w", row.Key, err)
		}
		return a.Signalled, nil
	}
	n, _, err := r.broadcast(context.WithValue(ctx, signalKeyKey{}, signalKey{key: c.key, hash: hash}), name, vars, nil)
	if err != nil {
		return n, err
	}
	answer, err := json.Marshal(signalAnswer{Signalled: n})
	if err != nil {
		return n, fmt.Errorf("runtime: encode the idempotent answer: %w", err)
	}
	now := r.now().UTC()
	row := IdempotencyRow{Key: scoped, RequestHash: hash, Answer: answer, CreatedAt: now, ExpiredBefore: now.Add(-r.idempotencyWindow)}
	if err := r.store.RecordIdempotency(ctx, row); err != nil && ErrorCode(err) != ECONFLICT {
		return n, fmt.Errorf("runtime: record signal %s: %w", name, err)
	}
	return n, nil
}

// signalAnswer is what a signal retried with its idempotency key replays.
type signalAnswer struct {
	Signalled int `json:"signalled"`
}

// signalKeyKey carries the idempotency key of an external broadcast to its
// signal starts (not to the broadcasts its subscribers throw in turn).
type signalKeyKey struct{}

type signalKey struct {
	key  string
	hash [32]byte
}

// broadcast delivers a signal to its subscribers and signal starts, or only
// to the targets in only when it is not nil (a retry). On an error, rest
// lists what is left undone (failed, or not tried because the runtime is
// closing), when that is known; nil means all of it.
func (r *Runtime) broadcast(ctx context.Context, name string, vars map[string]any, only *signalTargets) (triggered int, rest *signalTargets, err error) {
	var ids []InstanceID
	if only == nil {
		if ids, err = r.store.SignalSubscriptions(ctx, name); err != nil {
			return 0, nil, fmt.Errorf("runtime: signal %s: %w", name, err)
		}
	} else {
		ids = only.Instances
	}
	allStarts := only == nil || only.AllStarts
	// Once begun, a broadcast reaches every subscriber: neither a client
	// that goes away nor one subscriber whose step fails keeps it from the
	// others. Failures are reported together at the end.
	ctx = context.WithoutCancel(ctx)
	ctx, _ = withCascade(ctx) // what the subscribers throw in turn shares one budget
	left := &signalTargets{}
	var errs []error
	for i, id := range ids {
		fx, err := r.step(ctx, id, engine.SignalDelivered{Name: name, Variables: vars}, nil)
		if ErrorCode(err) == ENOTFOUND || ErrorCode(err) == ECONFLICT {
			continue // ended meanwhile
		}
		if errors.Is(err, errClosed) {
			left.Instances = append(left.Instances, ids[i:]...)
			left.AllStarts = allStarts
			if only != nil {
				left.Starts = only.Starts
			}
			return triggered, left, err
		}
		if err != nil {
			left.Instances = append(left.Instances, id)
			errs = append(errs, err)
			continue
		}
		triggered += fx.Fired
	}
	if !allStarts && len(only.Starts) == 0 {
		return triggered, left, errors.Join(errs...)
	}
	starts, err := r.eventStarts(ctx, bpmn.TriggerSignal, name)
	if err != nil {
		errs = append(errs, fmt.Errorf("runtime: signal starts for %s: %w", name, err))
		left.AllStarts = allStarts
		if only != nil {
			left.Starts = only.Starts
		}
		return triggered, left, errors.Join(errs...)
	}
	for i, s := range starts {
		target := s.ref.Key + "/" + s.node
		if !allStarts && !slices.Contains(only.Starts, target) {
			continue
		}
		sctx := ctx
		if k, ok := ctx.Value(signalKeyKey{}).(signalKey); ok {
			// One record per start: a retried broadcast skips the starts
			// its first attempt committed.
			scope := "signal-start:" + name + "/" + target
			if _, done, err := r.store.Idempotency(ctx, scope+" "+k.key, r.now().UTC().Add(-r.idempotencyWindow)); err != nil {
				errs = append(errs, err)
				continue
			} else if done {
				triggered++
				continue
			}
			sctx = context.WithValue(WithIdempotencyKey(ctx, k.key), signalKeyKey{}, nil)
			if _, err := r.prepareClaim(sctx, scope, k.hash, nil); err != nil {
				errs = append(errs, err)
				continue
			}
		}
		if _, err := r.startAt(sctx, s.proc, s.ref, "", s.node, vars, nil, nil); err != nil {
			if errors.Is(err, ErrSuspended) {
				continue // a suspended version starts nothing: not retried
			}
			left.Starts = append(left.Starts, target)
			if errors.Is(err, errClosed) {
				for _, s := range starts[i+1:] {
					if t := s.ref.Key + "/" + s.node; allStarts || slices.Contains(only.Starts, t) {
						left.Starts = append(left.Starts, t)
					}
				}
				return triggered, left, err
			}
			errs = append(errs, err)
			continue
		}
		triggered++
	}
	return triggered, left, errors.Join(errs...)
}

// RetryIncident resolves an open incident after the cause was fixed: a job
// gets `retries` again (at least 1) and becomes activatable; a stopped
// element runs again. ENOTFOUND for an unknown id, ECONFLICT when resolved.
func (r *Runtime) RetryIncident(ctx context.Context, id string, retries int) (IncidentRow, error) {
	if retries < 1 {
		return IncidentRow{}, &Error{Code: EINVALID, Message: "retries must be at least 1", Field: "retries"}
	}
	in, err := r.incident(ctx, id)
	if err != nil {
		return IncidentRow{}, err
	}
	if !in.ResolvedAt.IsZero() {
		return IncidentRow{}, &Error{Code: ECONFLICT, Message: fmt.Sprintf("incident %s is already resolved", id)}
	}
	if _, err := r.step(ctx, in.InstanceID, engine.IncidentRetried{IncidentID: id, Retries: retries, By: ActingUser(ctx)}, nil); err != nil {
		return IncidentRow{}, err
	}
	return r.incident(ctx, id)
}

// incident finds an incident by id; its id names its instance ("<instance>-i<n>").
func (r *Runtime) incident(ctx context.Context, id string) (IncidentRow, error) {
	notFound := &Error{Code: ENOTFOUND, Message: fmt.Sprintf("incident %s not found", id)}
	i := strings.LastIndex(id, "-i")
	if i <= 0 {
		return IncidentRow{}, notFound
	}
	rows, err := r.store.Incidents(ctx, InstanceID(id[:i]), false)
	if err != nil {
		if ErrorCode(err) == ENOTFOUND {
			return IncidentRow{}, notFound
		}
		return IncidentRow{}, err
	}
	for _, in := range rows {
		if in.ID == id {
			return in, nil
		}
	}
	return IncidentRow{}, notFound
}
