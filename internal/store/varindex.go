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
	"time"

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
// the store's variable index holds it: its name and VariableValueKey, and
// the forms a range filter compares (TypedForms): nil where the value has
// none.
type IndexedVariable struct {
	Name  string
	Value string
	// Num is a JSON number's value.
	Num *float64
	// Text is a JSON string's text, when its canonical JSON is at most
	// MaxIndexedValue bytes (a longer one is indexed by its hash only).
	Text *string
	// Time is the instant a string holding an RFC 3339 time (or a bare
	// RFC 3339 date, midnight UTC) names (ParseVariableTime).
	Time *time.Time
}

// VariableValueKey returns the key under which the variable index holds
// the JSON value raw: its canonical JSON (no insignificant whitespace,
// object keys sorted, every number written as the shortest form of its
// value, so 120, 120.0 and 1.2e2 are one key; objects and arrays are
// compared as their canonical JSON, i.e. deep equality), or, when that is
// longer than MaxIndexedValue bytes, "#sha256:" and the hex SHA-256 of it.
func VariableValueKey(raw []byte) (string, error) {
	iv, err := indexVariable("", raw)
	return iv.Value, err
}

// ParseVariableTime reads the time a string variable (or a filter's
// operand) names for the variable index: an RFC 3339 date-time, or an
// RFC 3339 full date (2025-03-14), read as midnight UTC.
func ParseVariableTime(s string) (time.Time, bool) {
	if len(s) < len("2006-01-02") || s[4] != '-' {
		return time.Time{}, false
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, true
	}
	if t, err := time.Parse(time.DateOnly, s); err == nil {
		return t, true
	}
	return time.Time{}, false
}

// typedForms fills the comparable forms of v (its Num, Text and Time)
// from the decoded value x (numbers as json.Number) and its key.
func typedForms(v *IndexedVariable, x any) {
	switch y := x.(type) {
	case json.Number:
		if f, err := y.Float64(); err == nil && !math.IsInf(f, 0) && !math.IsNaN(f) {
			v.Num = &f
		}
	case string:
		if strings.HasPrefix(v.Value, hashedValuePrefix) {
			return
		}
		v.Text = &y
		if t, ok := ParseVariableTime(y); ok {
			v.Time = &t
		}
	}
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
			iv, err := indexVariable(name, raw)
			if err != nil {
				return nil, false, fmt.Errorf("store: variable %s: %w", name, err)
			}
			vars = append(vars, iv)
		}
		slices.SortFunc(vars, func(a, b IndexedVariable) int { return strings.Compare(a.Name, b.Name) })
		return vars, true, nil
	}
	return nil, false, nil
}

// indexVariable is the index row of the variable name with the JSON value
// raw: its key (VariableValueKey) and its typed forms.
func indexVariable(name string, raw []byte) (IndexedVariable, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var x any
	if err := dec.Decode(&x); err != nil {
		return IndexedVariable{}, fmt.Errorf("store: variable value is not JSON: %w", err)
	}
	if dec.More() {
		return IndexedVariable{}, fmt.Errorf("store: variable value has more than one JSON value")
	}
	key, err := valueKey(x)
	if err != nil {
		return IndexedVariable{}, err
	}
	iv := IndexedVariable{Name: name, Value: key}
	typedForms(&iv, x)
	return iv, nil
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
