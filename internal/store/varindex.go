package store

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/gobpm/gobpm/internal/engine"
	"github.com/gobpm/gobpm/internal/scope"
)

// MaxIndexedValue is the longest canonical JSON (in bytes) the variable
// index stores as it is; a longer value is indexed by its hash
// (VariableValueKey), so a filter on it is exact all the same (up to a
// SHA-256 collision).
const MaxIndexedValue = 1024

// hashedValuePrefix starts the key of a value longer than MaxIndexedValue.
// No JSON text starts with '#', so a hash never equals a canonical value.
const hashedValuePrefix = "#sha256:"

// IndexedVariable is one top-level (process-instance scope) variable as
// the store's variable index holds it: its name and VariableValueKey.
type IndexedVariable struct {
	Name  string
	Value string
}

// VariableFilter keeps the instances whose top-level variable Name has
// the value whose key (VariableValueKey) is Value.
type VariableFilter struct {
	Name  string
	Value string
}

// VariableValueKey returns the key under which the variable index holds
// the JSON value raw: its canonical JSON (no insignificant whitespace,
// object keys sorted, every number written as the shortest form of its
// value, so 120, 120.0 and 1.2e2 are one key; objects and arrays are
// compared as their canonical JSON, i.e. deep equality), or, when that is
// longer than MaxIndexedValue bytes, "#sha256:" and the hex SHA-256 of it.
func VariableValueKey(raw []byte) (string, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return "", fmt.Errorf("store: variable value is not JSON: %w", err)
	}
	if dec.More() {
		return "", fmt.Errorf("store: variable value has more than one JSON value")
	}
	return valueKey(v)
}

// valueKey is the index key of a decoded value (numbers as json.Number).
func valueKey(v any) (string, error) {
	b, err := json.Marshal(canonical(v))
	if err != nil {
		return "", fmt.Errorf("store: encode variable value: %w", err)
	}
	if len(b) > MaxIndexedValue {
		sum := sha256.Sum256(b)
		return hashedValuePrefix + hex.EncodeToString(sum[:]), nil
	}
	return string(b), nil
}

// canonical rewrites the numbers of v in their shortest form: an integer
// as itself, any other number as the float64 it denotes. Maps marshal
// with sorted keys anyway.
func canonical(v any) any {
	switch x := v.(type) {
	case json.Number:
		if i, err := strconv.ParseInt(x.String(), 10, 64); err == nil {
			return json.Number(strconv.FormatInt(i, 10))
		}
		f, err := x.Float64()
		if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
			return x
		}
		if f == math.Trunc(f) && math.Abs(f) < 1<<63 {
			return json.Number(strconv.FormatInt(int64(f), 10))
		}
		return f
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = canonical(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = canonical(e)
		}
		return out
	default:
		return v
	}
}

// RootScopeKind and RootScopeKey name the part of a state that holds its
// top-level variables: the root scope's.
const (
	RootScopeKind = engine.PartScope
	RootScopeKey  = string(scope.RootID)
)

// rootScopePart holds what the variable index reads of the root scope's
// part: its variables.
type rootScopePart struct {
	Vars map[string]json.RawMessage `json:"vars"`
}

// RootVariables returns the top-level variables of an instance, by name,
// from the parts a step wrote: ok is false when parts do not hold the
// root scope (the step changed no top-level variable). Data that is not
// a JSON scope holds no variables. The store calls it on the parts of
// every step it commits to keep its variable index exact.
func RootVariables(parts []Part) (vars []IndexedVariable, ok bool, err error) {
	for _, p := range parts {
		if p.Kind != RootScopeKind || p.Key != RootScopeKey {
			continue
		}
		var sc rootScopePart
		if err := json.Unmarshal(p.Data, &sc); err != nil {
			// Not a scope the engine wrote (the store keeps parts opaque
			// and takes any bytes): it holds no variable to index.
			return []IndexedVariable{}, true, nil
		}
		vars = make([]IndexedVariable, 0, len(sc.Vars))
		for name, raw := range sc.Vars {
			key, err := VariableValueKey(raw)
			if err != nil {
				return nil, false, fmt.Errorf("store: variable %s: %w", name, err)
			}
			vars = append(vars, IndexedVariable{Name: name, Value: key})
		}
		slices.SortFunc(vars, func(a, b IndexedVariable) int { return strings.Compare(a.Name, b.Name) })
		return vars, true, nil
	}
	return nil, false, nil
}

// RootScopeRemoved reports whether removed names the root scope's part (a
// state without top-level variables: the index drops them all).
func RootScopeRemoved(removed []PartRef) bool {
	for _, r := range removed {
		if r.Kind == RootScopeKind && r.Key == RootScopeKey {
			return true
		}
	}
	return false
}
