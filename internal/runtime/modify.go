package runtime

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/gobpm/gobpm/internal/bpmn"
	"github.com/gobpm/gobpm/internal/engine"
	"github.com/gobpm/gobpm/internal/scope"
)

// Modification is one instruction of ModifyInstance: exactly one of Cancel
// and Activate.
type Modification struct {
	Cancel   *CancelElement
	Activate *ActivateElement
}

// CancelElement names what a modification cancels: exactly one of a track
// (one element instance), a scope instance (with the activity hosting it)
// or an element (every instance of it).
type CancelElement struct {
	TrackID string
	ScopeID string
	NodeID  string
}

// ActivateElement names an element a modification starts: in scope ScopeID
// when given, else in the one open instance of its container (opened when
// there is none); Variables are set in that scope.
type ActivateElement struct {
	NodeID    string
	ScopeID   string
	Variables map[string]any
}

// ModifyInstance applies the instructions to a running or failed instance
// in one step, in order, recorded in its history with the acting user, and
// returns the instance as Instance shows it. EINVALID names an
// instruction that fits nothing in the instance, ECONFLICT an ambiguous
// container or an ended instance; nothing changes then.
func (r *Runtime) ModifyInstance(ctx context.Context, id InstanceID, instructions []Modification) (InstanceView, error) {
	ev := engine.Modify{By: ActingUser(ctx), Instructions: make([]engine.Instruction, len(instructions))}
	for i, in := range instructions {
		if in.Cancel != nil {
			c := in.Cancel
			ev.Instructions[i].Cancel = &engine.CancelTarget{TrackID: c.TrackID, ScopeID: scope.ID(c.ScopeID), NodeID: c.NodeID}
		}
		if in.Activate != nil {
			a := in.Activate
			ev.Instructions[i].Activate = &engine.ActivateTarget{NodeID: a.NodeID, ScopeID: scope.ID(a.ScopeID), Variables: a.Variables}
		}
	}
	if _, err := r.step(ctx, id, ev, nil); err != nil {
		return InstanceView{}, modifyError(id, err)
	}
	return r.Instance(ctx, id)
}

// modifyError maps the engine's refusals of a modification to codes.
func modifyError(id InstanceID, err error) error {
	var code string
	switch {
	case errors.Is(err, engine.ErrInvalidModification):
		code = EINVALID
	case errors.Is(err, engine.ErrAmbiguousScope):
		code = ECONFLICT
	default:
		return err
	}
	return &Error{Code: code, Message: fmt.Sprintf("modify instance %s: %s", id, modificationText(err)), Err: err}
}

// modificationText is the engine's refusal from the instruction it names
// on ("instruction 2: activate: process p has no element \"x\""), without
// the sentinel.
func modificationText(err error) string {
	msg := err.Error()
	if i := strings.Index(msg, "instruction "); i >= 0 {
		msg = msg[i:]
	} else if i := strings.LastIndex(msg, "engine: "); i >= 0 {
		msg = msg[i+len("engine: "):]
	}
	for _, sentinel := range []error{engine.ErrInvalidModification, engine.ErrAmbiguousScope} {
		msg = strings.TrimSuffix(msg, ": "+sentinel.Error())
	}
	return msg
}

// ElementView is one flow element of a process version, for choosing what
// a modification starts or cancels.
type ElementView struct {
	ID   string
	Name string // "" when the model names none
	Kind string
	// Container is the id of the sub-process the element sits in ("" for
	// the process level).
	Container string
	// NotStartable says why a modification cannot start the element (""
	// when it can).
	NotStartable string
}

// Elements returns every flow element of a process version (0 = latest),
// containers before what they contain, in document order; ENOTFOUND for
// an unknown version.
func (r *Runtime) Elements(ctx context.Context, key string, version int) ([]ElementView, error) {
	proc, _, err := r.process(ctx, key, version)
	if err != nil {
		return nil, err
	}
	var out []ElementView
	var walk func(g *bpmn.Graph)
	walk = func(g *bpmn.Graph) {
		for _, n := range g.Nodes {
			e := ElementView{ID: n.ID, Name: n.Name, Kind: string(n.Kind)}
			if g.Owner != nil {
				e.Container = g.Owner.ID
			}
			if err := engine.Startable(n); err != nil {
				e.NotStartable = strings.TrimPrefix(modificationText(err), "activate: ")
			}
			out = append(out, e)
			if n.Sub != nil {
				walk(n.Sub)
			}
		}
	}
	walk(proc.Graph)
	return out, nil
}
