package runtime

import (
	"context"
	"fmt"
	"sort"

	"github.com/gobpm/gobpm/internal/bpmn"
	"github.com/gobpm/gobpm/internal/engine"
	"github.com/gobpm/gobpm/internal/scope"
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

// CorrelateMatching delivers a message by Camunda 7's rule (MessageMatch)
// and returns what it reached. Without All, more than one match is
// ECONFLICT saying how many matched (nothing is delivered); no match at
// all is ENOTFOUND. It reads the open waits for the message, however many
// instances there are.
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
// instances m selects, oldest first. With an instance id it reads that
// instance's waits; with a business key or correlation keys it pages
// through the instances the indexed filters select (the business key
// column, the variable index) and reads their waits, never one state per
// waiting instance; with neither it pages through every open wait of the
// name (whatever its correlation key). No match is missed however many
// instances there are.
func (r *Runtime) matchingWaits(ctx context.Context, m MessageMatch) ([]WaitRow, error) {
	keys, err := valueKeys(m.CorrelationKeys, "correlation key")
	if err != nil {
		return nil, err
	}
	var out []WaitRow
	keep := func(waits []WaitRow) {
		for _, w := range waits {
			if w.Kind == WaitMessage && w.Name == m.Name {
				w.LockTokenHash = nil
				out = append(out, w)
			}
		}
	}
	switch {
	case m.InstanceID != "":
		if m.BusinessKey != "" || len(keys) > 0 {
			var businessKey *string
			if m.BusinessKey != "" {
				businessKey = &m.BusinessKey
			}
			if ok, err := r.instanceMatches(ctx, m.InstanceID, businessKey, keys); err != nil || !ok {
				return nil, err
			}
		}
		waits, err := r.store.InstanceWaits(ctx, m.InstanceID)
		if ErrorCode(err) == ENOTFOUND {
			return nil, nil
		}
		if err != nil {
			return nil, fmt.Errorf("runtime: waits of instance %s: %w", m.InstanceID, err)
		}
		keep(waits)
	case m.BusinessKey != "" || len(keys) > 0:
		f := InstanceFilter{BusinessKey: m.BusinessKey, Limit: matchPage}
		for name, key := range keys {
			f.Variables = append(f.Variables, VariableFilter{Name: name, Value: key})
		}
		sort.Slice(f.Variables, func(i, j int) bool { return f.Variables[i].Name < f.Variables[j].Name })
		for {
			rows, _, err := r.store.ListInstances(ctx, f)
			if err != nil {
				return nil, fmt.Errorf("runtime: instances for message %s: %w", m.Name, err)
			}
			for _, in := range rows {
				if !in.EndedAt.IsZero() {
					continue // an ended instance waits for nothing
				}
				waits, err := r.store.InstanceWaits(ctx, in.ID)
				if ErrorCode(err) == ENOTFOUND {
					continue // gone meanwhile
				}
				if err != nil {
					return nil, fmt.Errorf("runtime: waits of instance %s: %w", in.ID, err)
				}
				keep(waits)
			}
			if len(rows) < matchPage {
				break
			}
			f.After = rows[len(rows)-1].ID
		}
	default:
		page := WaitPageFilter{Kind: WaitMessage, Name: m.Name, Unheld: true} // a suspended instance's subscriptions are held
		for {
			waits, err := r.store.WaitsPage(ctx, page)
			if err != nil {
				return nil, fmt.Errorf("runtime: waits of message %s: %w", m.Name, err)
			}
			keep(waits)
			if len(waits) < MaxWaitsPage {
				break
			}
			page.After = CursorOf(waits[len(waits)-1])
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].CreatedAt.Before(out[j].CreatedAt) })
	return out, nil
}

// matchPage is the page of instances matchingWaits reads at a time (the
// stores' largest list page).
const matchPage = 500

// instanceMatches reports whether an instance has the business key (nil
// matches any) and top-level variables whose values have the given
// VariableValueKey keys; an instance that is gone matches nothing.
func (r *Runtime) instanceMatches(ctx context.Context, id InstanceID, businessKey *string, keys map[string]string) (bool, error) {
	if businessKey == nil && len(keys) == 0 {
		return true, nil
	}
	matches := true
	err := r.withState(ctx, id, func(inst InstanceRow, st *engine.State) error {
		if businessKey != nil && inst.BusinessKey != *businessKey {
			matches = false
			return nil
		}
		for name, want := range keys {
			v, ok := st.Scopes.Lookup(scope.RootID, name)
			if !ok {
				matches = false
				return nil
			}
			got, err := valueKey(v)
			if err != nil || got != want {
				matches = false
				return nil
			}
		}
		return nil
	})
	if ErrorCode(err) == ENOTFOUND {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("runtime: instance %s for a message: %w", id, err)
	}
	return matches, nil
}
