package runtime

import (
	"context"
	"strings"

	"github.com/gobpm/gobpm/internal/dmn"
)

// Input types a decision outline names: the form control an input asks
// for, read from its input expression's typeRef.
const (
	InputString  = "string"
	InputNumber  = "number"
	InputBoolean = "boolean"
)

// DecisionOutline is what pages show of a deployed decision version, read
// from the runtime's parsed and cached DMN model. It is a copy: changing
// it changes nothing else.
type DecisionOutline struct {
	// Key and Version name the decision version; Name is its name.
	Key     string
	Version int
	Name    string
	// Inputs are the values an evaluation of the decision asks its caller
	// for, in the order the decisions are reached (see DecisionOutline's
	// method on the runtime).
	Inputs []DecisionInput
}

// DecisionInput is one value an evaluation asks for: a decision table
// input whose expression is a plain name.
type DecisionInput struct {
	// Name is the variable the input reads; Label is its label (the name
	// when the table gives none).
	Name, Label string
	// Type is InputNumber for number, integer, long and double typeRefs,
	// InputBoolean for boolean, InputString otherwise.
	Type string
}

// DecisionOutline returns the outline of a decision version (0: the
// latest), built from the parsed model the runtime caches; ENOTFOUND for
// an unknown decision or version.
func (r *Runtime) DecisionOutline(ctx context.Context, key string, version int) (DecisionOutline, error) {
	defs, ref, err := r.decision(ctx, key, version)
	if err != nil {
		return DecisionOutline{}, notFoundOr(err, "decision %s version %d not found", key, version)
	}
	d := defs.Decision(ref.Key)
	if d == nil {
		return DecisionOutline{}, Errorf(ENOTFOUND, "decision %s is missing from its deployed document (version %d)", ref.Key, ref.Version)
	}
	return DecisionOutline{Key: ref.Key, Version: ref.Version, Name: d.Name, Inputs: decisionInputs(d)}, nil
}

// decisionInputs walks a decision and the decisions it requires
// (depth first, each once) and collects their tables' named inputs, less
// what a required decision provides (its id, its name, its table's
// output names) and each name once.
func decisionInputs(top *dmn.Decision) []DecisionInput {
	provided, seen, visited := map[string]bool{}, map[string]bool{}, map[*dmn.Decision]bool{}
	var order []*dmn.Decision
	var walk func(d *dmn.Decision)
	walk = func(d *dmn.Decision) {
		if d == nil || visited[d] {
			return
		}
		visited[d] = true
		order = append(order, d)
		for _, req := range d.RequiredDecisions {
			if req == nil {
				continue
			}
			provided[req.ID], provided[req.Name] = true, true
			if req.Table != nil {
				for _, o := range req.Table.Outputs {
					if o.Name != "" {
						provided[o.Name] = true
					}
				}
			}
			walk(req)
		}
	}
	walk(top)
	var out []DecisionInput
	for _, d := range order {
		for _, in := range tableInputs(d) {
			if !provided[in.Name] && !seen[in.Name] {
				seen[in.Name] = true
				out = append(out, in)
			}
		}
	}
	return out
}

// tableInputs are the inputs of a decision's table whose expression is a
// plain name (none when its logic is not a table).
func tableInputs(d *dmn.Decision) []DecisionInput {
	if d.Table == nil {
		return nil
	}
	var out []DecisionInput
	for _, in := range d.Table.Inputs {
		name := strings.TrimSpace(in.Expression)
		if !identifier.MatchString(name) {
			continue
		}
		label := in.Label
		if label == "" {
			label = name
		}
		out = append(out, DecisionInput{Name: name, Label: label, Type: inputType(in.TypeRef)})
	}
	return out
}

// inputType maps an input expression's typeRef to the control it asks for.
func inputType(typeRef string) string {
	switch typeRef {
	case "number", "integer", "long", "double":
		return InputNumber
	case "boolean":
		return InputBoolean
	}
	return InputString
}
