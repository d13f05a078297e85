package runtime_test

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gobpm/gobpm/internal/runtime"
	"github.com/gobpm/gobpm/internal/store"
)

// ParseVariableFilter reads name:op:value with a typed operand, and keeps
// reading name=JSON as before (a ':' in a name or a value included).
func TestParseVariableFilterOps(t *testing.T) {
	t.Parallel()
	due := time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		in   string
		want store.VariableFilter
	}{
		{`amount:gt:100`, store.VariableFilter{Name: "amount", Op: "gt", Type: store.VarTypeNumber, Num: 100}},
		{`amount:lte:-2.5`, store.VariableFilter{Name: "amount", Op: "lte", Type: store.VarTypeNumber, Num: -2.5}},
		{`amount:eq:120.0`, store.VariableFilter{Name: "amount", Op: "eq", Value: "120"}},
		{`status:eq:open`, store.VariableFilter{Name: "status", Op: "eq", Value: `"open"`}},
		{`status:neq:"120"`, store.VariableFilter{Name: "status", Op: "neq", Value: `"120"`}},
		{`ok:eq:true`, store.VariableFilter{Name: "ok", Op: "eq", Value: "true"}},
		{`due:lt:2025-03-01T00:00:00Z`, store.VariableFilter{Name: "due", Op: "lt", Type: store.VarTypeTime, Time: due}},
		{`due:gte:2025-03-01`, store.VariableFilter{Name: "due", Op: "gte", Type: store.VarTypeTime, Time: due}},
		{`due:eq:2025-03-01T01:00:00+01:00`, store.VariableFilter{Name: "due", Op: "eq", Type: store.VarTypeTime, Time: due}},
		{`name:gt:m`, store.VariableFilter{Name: "name", Op: "gt", Type: store.VarTypeText, Text: "m"}},
		{`orderId:LIKE:A-`, store.VariableFilter{Name: "orderId", Op: "like", Type: store.VarTypeText, Text: "A-"}},
		{`code:like:12`, store.VariableFilter{Name: "code", Op: "like", Type: store.VarTypeText, Text: "12"}},
		{`note=":eq:"`, store.VariableFilter{Name: "note", Value: `":eq:"`}},
		{`a:b=1`, store.VariableFilter{Name: "a:b", Value: "1"}},
	} {
		got, err := runtime.ParseVariableFilter(tt.in)
		if err != nil {
			t.Errorf("%s: %v", tt.in, err)
			continue
		}
		if !got.Time.Equal(tt.want.Time) {
			t.Errorf("%s: time %v, want %v", tt.in, got.Time, tt.want.Time)
		}
		got.Time, tt.want.Time = time.Time{}, time.Time{}
		if got != tt.want {
			t.Errorf("%s: %+v, want %+v", tt.in, got, tt.want)
		}
	}
	for _, s := range []string{`:gt:1`, `ok:gt:true`, `ok:like:true`, `x:eq:"open`} {
		if _, err := runtime.ParseVariableFilter(s); err == nil || !strings.Contains(err.Error(), strconv.Quote(s)) {
			t.Errorf("%q: %v, want an error naming it", s, err)
		}
	}
}
