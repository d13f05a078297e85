package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/gobpm/gobpm/internal/bpmn"
	"github.com/gobpm/gobpm/internal/engine"
)

// MessageMatch selects what a message reaches by Camunda 7's correlation
// rule: the message waits of that name in the instances the filters
// select (business key, instance id, top-level variables equal to the
// correlation keys), else — with neither an instance id nor correlation
// keys — the message start events of that name.
type MessageMatch struct {
	Name string
	// BusinessKey, InstanceID and CorrelationKeys narrow the instances
	// ("" and nil: any). A message start event starts its instance with
	// BusinessKey.
	BusinessKey     string
	InstanceID      InstanceID
	CorrelationKeys map[string]any
	// Variables are delivered with the message.
	Variables map[string]any
	// All delivers to every match; without it exactly one must match.
	All bool
}

// MessageDelivery is one wait or start a message reached.
type MessageDelivery struct {
	InstanceID InstanceID
	// Started is set when a message start event started the instance.
	Started bool
}

// maxMessageMatchScan bounds the instances a match walks.
const maxMessageMatchScan = 1000

// CorrelateMatching delivers a message by Camunda 7's rule (MessageMatch)
// and returns what it reached. Without All, more than one match is
// ECONFLICT saying how many matched (nothing is delivered); no match at
// all is ENOTFOUND. It walks at most 1000 running or failed instances.
func (r *Runtime) CorrelateMatching(ctx context.Context, m MessageMatch) ([]MessageDelivery, error) {
	if m.Name == "" {
		return nil, &Error{Code: EINVALID, Message: "the message name is required", Field: "messageName"}
	}
	waits, err := r.matchingWaits(ctx, m)
	if err != nil {
		return nil, err
	}
	var starts []eventStart
	if len(waits) == 0 && m.InstanceID == "" && len(m.CorrelationKeys) == 0 {
		if starts, err = r.eventStarts(ctx, bpmn.TriggerMessage, m.Name); err != nil {
			return nil, fmt.Errorf("runtime: message starts for %s: %w", m.Name, err)
		}
	}
	n := len(waits) + len(starts)
	switch {
	case n == 0:
		return nil, &Error{Code: ENOTFOUND, Message: fmt.Sprintf("Cannot correlate message '%s': No process definition or execution matches the parameters", m.Name)}
	case n > 1 && !m.All:
		return nil, &Error{Code: ECONFLICT, Message: fmt.Sprintf("Cannot correlate message '%s': %d executions match the correlation keys", m.Name, n)}
	}
	var out []MessageDelivery
	for _, w := range waits {
		_, err := r.step(ctx, w.InstanceID, engine.MessageDelivered{WaitID: w.ID, Variables: m.Variables}, nil)
		if ErrorCode(err) == ENOTFOUND || ErrorCode(err) == ECONFLICT {
			continue // taken meanwhile
		}
		if err != nil {
			return out, err
		}
		out = append(out, MessageDelivery{InstanceID: w.InstanceID})
	}
	for _, s := range starts {
		id, err := r.startAt(ctx, s.proc, s.ref, m.BusinessKey, s.node, m.Variables, nil, nil)
		if err != nil {
			return out, err
		}
		out = append(out, MessageDelivery{InstanceID: id, Started: true})
	}
	if len(out) == 0 {
		return nil, &Error{Code: ENOTFOUND, Message: fmt.Sprintf("Cannot correlate message '%s': the matching execution took another message meanwhile", m.Name)}
	}
	return out, nil
}

// matchingWaits lists the open message waits of m's name in the
// instances m selects, oldest first.
func (r *Runtime) matchingWaits(ctx context.Context, m MessageMatch) ([]WaitRow, error) {
	var ids []InstanceID
	if m.InstanceID != "" {
		ids = []InstanceID{m.InstanceID}
	} else {
		f := InstanceFilter{BusinessKey: m.BusinessKey, Limit: maxMessageMatchScan}
		for name, v := range m.CorrelationKeys {
			raw, err := json.Marshal(v)
			if err != nil {
				return nil, &Error{Code: EINVALID, Message: fmt.Sprintf("correlation key %s: %v", name, err)}
			}
			key, err := VariableValueKey(raw)
			if err != nil {
				return nil, &Error{Code: EINVALID, Message: fmt.Sprintf("correlation key %s: %v", name, err)}
			}
			f.Variables = append(f.Variables, VariableFilter{Name: name, Value: key})
		}
		for _, status := range []string{StatusRunning, StatusFailed} {
			f.Status = status
			rows, _, err := r.ListInstances(ctx, f)
			if err != nil {
				return nil, fmt.Errorf("runtime: list instances for message %s: %w", m.Name, err)
			}
			for _, row := range rows {
				ids = append(ids, row.ID)
			}
		}
	}
	var out []WaitRow
	for _, id := range ids {
		waits, err := r.store.InstanceWaits(ctx, id)
		if ErrorCode(err) == ENOTFOUND {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("runtime: waits of instance %s: %w", id, err)
		}
		if m.InstanceID != "" && m.BusinessKey != "" {
			row, err := r.Instance(ctx, id)
			if err != nil || row.BusinessKey != m.BusinessKey {
				continue
			}
		}
		for _, w := range waits {
			if w.Kind == WaitMessage && w.Name == m.Name {
				w.LockTokenHash = nil
				out = append(out, w)
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].CreatedAt.Before(out[j].CreatedAt) })
	return out, nil
}
