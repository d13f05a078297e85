package engine

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/gobpm/gobpm/internal/bpmn"
	"github.com/gobpm/gobpm/internal/expr"
	"github.com/gobpm/gobpm/internal/scope"
)

// applyRunning writes an operator's variables into a scope: by the
// write rule from it, or into it alone when Local.
func (e VariablesSet) applyRunning(x *executor) error {
	s := scope.ID(e.ScopeID)
	if s == "" {
		s = scope.RootID
	}
	sc := x.st.Scopes.Get(s)
	if sc == nil {
		return fmt.Errorf("engine: set variables in scope %s: %w", s, scope.ErrUnknownScope)
	}
	names := make([]string, 0, len(e.Variables))
	for k := range e.Variables {
		names = append(names, k)
	}
	slices.Sort(names)
	for _, k := range names {
		at := s
		if e.Local {
			sc.Vars[k] = scope.CloneValue(e.Variables[k])
			x.st.Scopes.Touch(sc.ID)
		} else if at, _ = x.st.Scopes.Set(s, k, scope.CloneValue(e.Variables[k])); at == "" {
			continue
		}
		by := e.By
		if by == "" {
			by = "operator"
		}
		x.fact(FactVariableSet, sc.NodeID, at, "", map[string]any{"name": k, "by": by})
	}
	return nil
}

func (x *executor) setVar(t *Track, name string, v any) {
	at, err := x.st.Scopes.Set(t.Scope, name, v)
	if err != nil {
		x.incident(t, IncidentUnknownModel, err.Error())
		return
	}
	x.fact(FactVariableSet, t.Node, at, t.ID, map[string]any{"name": name})
}

// mergeVars writes variables by the write rule (docs/scopes.md#variables)
// from t's scope.
func (x *executor) mergeVars(t *Track, vars map[string]any) {
	names := make([]string, 0, len(vars))
	for k := range vars {
		names = append(names, k)
	}
	slices.Sort(names) // deterministic fact order
	for _, k := range names {
		x.setVar(t, k, vars[k])
	}
}

// view is the read-only expression view of the variables visible from a
// scope, at the step's time.
func (x *executor) view(s scope.ID) expr.Scope { return x.viewAt(s) }

// viewAt is view as its concrete type.
func (x *executor) viewAt(s scope.ID) scopeView {
	return scopeView{tree: x.st.Scopes, id: s, now: x.now, instanceID: x.st.InstanceID, businessKey: x.st.BusinessKey, limits: x.opts.Eval}
}

// scopeView is an expression scope over the scope tree. It is a
// feel.Clock: FEEL's now() and today() read the step's time, never the
// wall clock, so evaluation stays deterministic.
type scopeView struct {
	tree *scope.Tree
	id   scope.ID
	now  time.Time
	// instanceID and businessKey answer Camunda 7's execution object.
	instanceID, businessKey string
	limits                  expr.Limits
}

// EvalLimits returns the limits of the evaluations against the view
// (feel.Limited): the engine's Options.Eval.
func (v scopeView) EvalLimits() expr.Limits { return v.limits }

// Execution returns the instance's id and business key (juel.Execution).
func (v scopeView) Execution() (processInstanceID, businessKey string) {
	return v.instanceID, v.businessKey
}

func (v scopeView) Lookup(name string) (any, bool) { return v.tree.Lookup(v.id, name) }

// Now returns the time of the step the view belongs to.
func (v scopeView) Now() time.Time { return v.now }

// bindingText evaluates a literal-or-expression attribute to text.
func (x *executor) bindingText(t *Track, b *bpmn.Binding) (string, error) {
	if b == nil {
		return "", nil
	}
	if b.Expr == nil {
		return b.Literal, nil
	}
	v, err := b.Expr.Eval(x.view(t.Scope))
	if err != nil {
		return "", err
	}
	return keyText(v), nil
}

// bindingList evaluates a comma-separated literal or an expression yielding
// a string or a list of strings.
func (x *executor) bindingList(t *Track, b *bpmn.Binding) ([]string, error) {
	if b == nil {
		return nil, nil
	}
	var raw []string
	if b.Expr == nil {
		raw = strings.Split(b.Literal, ",")
	} else {
		v, err := b.Expr.Eval(x.view(t.Scope))
		if err != nil {
			return nil, err
		}
		switch v := v.(type) {
		case nil:
		case []any:
			for _, e := range v {
				raw = append(raw, keyText(e))
			}
		default:
			raw = strings.Split(keyText(v), ",")
		}
	}
	var out []string
	for _, s := range raw {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out, nil
}

// keyText renders a JSON-shaped value as text for keys and identities.
func keyText(v any) string {
	switch v := v.(type) {
	case nil:
		return ""
	case string:
		return v
	case fmt.Stringer:
		return v.String()
	default:
		return fmt.Sprint(v)
	}
}
