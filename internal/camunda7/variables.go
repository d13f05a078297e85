package camunda7

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
)

// TypedValue is a Camunda 7 variable on the wire:
// {"type":"String","value":"x","valueInfo":{}}.
type TypedValue struct {
	Type      string          `json:"type"`
	Value     json.RawMessage `json:"value"`
	ValueInfo map[string]any  `json:"valueInfo"`
}

// Camunda 7 value types the adapter maps.
const (
	TypeString  = "String"
	TypeBoolean = "Boolean"
	TypeInteger = "Integer"
	TypeShort   = "Short"
	TypeLong    = "Long"
	TypeDouble  = "Double"
	TypeJSON    = "Json"
	TypeObject  = "Object"
	TypeNull    = "Null"
	TypeDate    = "Date"
)

// FromTypedMap converts Camunda 7 typed variables into gobpm values
// (strings, booleans, json.Number, maps, slices, nil). A type it cannot map
// or a value that does not fit its type is a 400 naming the variable.
func FromTypedMap(vars map[string]TypedValue) (map[string]any, error) {
	if vars == nil {
		return nil, nil
	}
	out := make(map[string]any, len(vars))
	for name, tv := range vars {
		v, err := FromTyped(tv)
		if err != nil {
			return nil, invalid(fmt.Sprintf("Cannot convert value of variable '%s': %s", name, err.Error()))
		}
		out[name] = v
	}
	return out, nil
}

// FromTyped converts one typed value. Json and Object values arrive as text
// (Object only with serializationDataFormat application/json); a Date
// stays a string in Camunda 7's format; a value without a type is taken
// as its JSON form says.
func FromTyped(tv TypedValue) (any, error) {
	tv.Type = canonicalType(tv.Type)
	raw := bytes.TrimSpace(tv.Value)
	null := len(raw) == 0 || string(raw) == "null"
	switch tv.Type {
	case "":
		if null {
			return nil, nil
		}
		return decodeJSON(raw)
	case TypeNull:
		return nil, nil
	case TypeString:
		return stringValue(raw, null)
	case TypeBoolean:
		if null {
			return nil, nil
		}
		var b bool
		if err := json.Unmarshal(raw, &b); err != nil {
			return nil, fmt.Errorf("a Boolean value must be true or false, not %s", raw)
		}
		return b, nil
	case TypeInteger, TypeShort, TypeLong, TypeDouble:
		if null {
			return nil, nil
		}
		return numberValue(tv.Type, raw)
	case TypeDate:
		s, err := stringValue(raw, null)
		if err != nil || s == nil {
			return s, err
		}
		t, err := ParseDate(s.(string))
		if err != nil {
			return nil, err
		}
		return FormatDate(t), nil
	case TypeJSON, TypeObject:
		return serializedValue(tv, raw, null)
	}
	return nil, fmt.Errorf("the type %q is not supported by gobpm (String, Boolean, Short, Integer, Long, Double, Date, Json, Object as application/json, Null)", tv.Type)
}

// canonicalType spells a type name as Camunda 7 does, which reads type
// names regardless of case (the Node client sends them in lower case:
// "string", "json"); a name it does not know is left as it is.
func canonicalType(t string) string {
	for _, known := range []string{TypeString, TypeBoolean, TypeInteger, TypeShort, TypeLong, TypeDouble, TypeJSON, TypeObject, TypeNull, TypeDate} {
		if strings.EqualFold(t, known) {
			return known
		}
	}
	return t
}

// stringValue decodes a JSON string (nil for null).
func stringValue(raw []byte, null bool) (any, error) {
	if null {
		return nil, nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, fmt.Errorf("the value must be a string, not %s", raw)
	}
	return s, nil
}

// numberValue checks a number against its Camunda 7 type's range and keeps
// it exact as json.Number.
func numberValue(typ string, raw []byte) (any, error) {
	n := json.Number(raw)
	if typ == TypeDouble {
		if _, err := n.Float64(); err != nil {
			return nil, fmt.Errorf("a Double value must be a number, not %s", raw)
		}
		return n, nil
	}
	i, err := strconv.ParseInt(string(raw), 10, 64)
	if err != nil {
		return nil, fmt.Errorf("a %s value must be a whole number within its range, not %s", typ, raw)
	}
	lo, hi := int64(math.MinInt64), int64(math.MaxInt64)
	switch typ {
	case TypeInteger:
		lo, hi = math.MinInt32, math.MaxInt32
	case TypeShort:
		lo, hi = math.MinInt16, math.MaxInt16
	}
	if i < lo || i > hi {
		return nil, fmt.Errorf("%d is out of the range of a %s (%d..%d)", i, typ, lo, hi)
	}
	return n, nil
}

// serializedValue reads a Json or Object value: JSON text in a string.
func serializedValue(tv TypedValue, raw []byte, null bool) (any, error) {
	if null {
		return nil, nil
	}
	if tv.Type == TypeObject {
		if f, _ := tv.ValueInfo["serializationDataFormat"].(string); f != "application/json" {
			return nil, fmt.Errorf("an Object value needs valueInfo.serializationDataFormat \"application/json\" (gobpm runs no Java serialization), not %q", f)
		}
	}
	var text string
	if err := json.Unmarshal(raw, &text); err != nil {
		return nil, fmt.Errorf("a %s value must be its JSON serialized as a string, not %s", tv.Type, raw)
	}
	v, err := decodeJSON([]byte(text))
	if err != nil {
		return nil, fmt.Errorf("the %s value is no valid JSON: %w", tv.Type, err)
	}
	return v, nil
}

// decodeJSON decodes one JSON value with numbers as json.Number.
func decodeJSON(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("decode JSON: %w", err)
	}
	if dec.More() {
		return nil, fmt.Errorf("decode JSON: trailing data after the value")
	}
	return v, nil
}

// ToTypedMap renders gobpm values as Camunda 7 typed variables.
func ToTypedMap(vars map[string]any) (map[string]TypedValue, error) {
	out := make(map[string]TypedValue, len(vars))
	for name, v := range vars {
		tv, err := ToTyped(v)
		if err != nil {
			return nil, fmt.Errorf("camunda7: variable %s: %w", name, err)
		}
		out[name] = tv
	}
	return out, nil
}

// ToTyped renders one value: nil is Null, a whole number Integer within
// 32 bits and Long within 64, other numbers Double, objects and arrays Json
// (their JSON as text, as Camunda 7 serializes them).
func ToTyped(v any) (TypedValue, error) {
	switch x := v.(type) {
	case nil:
		return TypedValue{Type: TypeNull, Value: json.RawMessage("null"), ValueInfo: map[string]any{}}, nil
	case string:
		return typed(TypeString, x)
	case bool:
		return typed(TypeBoolean, x)
	case json.Number:
		return numberTyped(string(x))
	case float64:
		return numberTyped(strconv.FormatFloat(x, 'g', -1, 64))
	case int:
		return numberTyped(strconv.Itoa(x))
	case int64:
		return numberTyped(strconv.FormatInt(x, 10))
	}
	text, err := json.Marshal(v)
	if err != nil {
		return TypedValue{}, fmt.Errorf("serialize as Json: %w", err)
	}
	return typed(TypeJSON, string(text))
}

// numberTyped picks Integer, Long or Double for a JSON number.
func numberTyped(s string) (TypedValue, error) {
	if i, err := strconv.ParseInt(s, 10, 64); err == nil {
		if i >= math.MinInt32 && i <= math.MaxInt32 {
			return TypedValue{Type: TypeInteger, Value: json.RawMessage(s), ValueInfo: map[string]any{}}, nil
		}
		return TypedValue{Type: TypeLong, Value: json.RawMessage(s), ValueInfo: map[string]any{}}, nil
	}
	if _, ok := new(big.Float).SetString(s); !ok {
		return TypedValue{}, fmt.Errorf("%q is no number", s)
	}
	return TypedValue{Type: TypeDouble, Value: json.RawMessage(s), ValueInfo: map[string]any{}}, nil
}

// typed marshals a value of a given type.
func typed(typ string, v any) (TypedValue, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return TypedValue{}, fmt.Errorf("serialize %s: %w", typ, err)
	}
	return TypedValue{Type: typ, Value: b, ValueInfo: map[string]any{}}, nil
}
