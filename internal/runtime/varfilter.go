package runtime

import (
	"fmt"
	"strings"
)

// MaxVariableFilters caps how many variable filters one list takes.
const MaxVariableFilters = 10

// ParseVariableFilter reads a variable filter written name=value, where
// value is JSON: orderId="A-17", amount=120, ok=true, tags=["a","b"]. The
// name is everything before the first '='. The error is a sentence for
// the person who wrote it.
func ParseVariableFilter(s string) (VariableFilter, error) {
	name, value, ok := strings.Cut(s, "=")
	name, value = strings.TrimSpace(name), strings.TrimSpace(value)
	switch {
	case !ok || name == "":
		return VariableFilter{}, fmt.Errorf("a variable filter is name=value with the value as JSON, such as orderId=\"A-17\" or amount=120, not %q", s)
	case value == "":
		return VariableFilter{}, fmt.Errorf("the variable filter %q has no value: write it as JSON, such as %s=\"text\" or %s=120", s, name, name)
	}
	key, err := VariableValueKey([]byte(value))
	if err != nil {
		return VariableFilter{}, fmt.Errorf("the value of the variable filter %q is not JSON: quote text (%s=\"%s\"); numbers, true, false, null, arrays and objects are written as in JSON", s, name, strings.Trim(value, `"`))
	}
	return VariableFilter{Name: name, Value: key}, nil
}
