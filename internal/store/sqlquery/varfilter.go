package sqlquery

import (
	"github.com/gobpm/gobpm/internal/store"
)

// DriveVariableLimit is how many index entries a list reads of one
// variable filter to decide how to read the list: a filter with fewer
// matches drives the list (its matches are read through the variable
// index and sorted: at most this many), one with more is checked on the
// rows the list's own index yields in order (a common value turns up
// within a few pages' worth of rows).
const DriveVariableLimit = 10_000

// variableColumns is the variable index column each filter type reads.
var variableColumns = map[string]string{
	store.VarTypeValue:  "value",
	store.VarTypeNumber: "value_num",
	store.VarTypeText:   "value_text",
	store.VarTypeTime:   "value_time",
}

// variableOps is the SQL operator of each comparison (VarLike has its own
// condition: a range of texts, or LIKE).
var variableOps = map[string]string{
	"": "=", store.VarEq: "=", store.VarNeq: "<>",
	store.VarGt: ">", store.VarGte: ">=", store.VarLt: "<", store.VarLte: "<=",
	store.VarLike: "like",
}

// VariableCompare returns the variable index column f reads and its SQL
// operator ("like" for VarLike), or a store.EINVALID error for a filter
// whose comparison does not fit its type (a range of value keys, a like
// of anything but text).
func VariableCompare(f store.VariableFilter) (column, op string, err error) {
	column, okCol := variableColumns[f.Type]
	op, okOp := variableOps[f.Op]
	switch {
	case f.Name == "":
		return "", "", store.Errorf(store.EINVALID, "variable filter without a name")
	case !okCol:
		return "", "", store.Errorf(store.EINVALID, "variable filter %s: unknown type %q", f.Name, f.Type)
	case !okOp:
		return "", "", store.Errorf(store.EINVALID, "variable filter %s: unknown comparison %q", f.Name, f.Op)
	case f.Type == store.VarTypeValue && op != "=" && op != "<>":
		return "", "", store.Errorf(store.EINVALID, "variable filter %s: %s compares numbers, texts or times, not JSON values", f.Name, f.Op)
	case op == "like" && f.Type != store.VarTypeText:
		return "", "", store.Errorf(store.EINVALID, "variable filter %s: like compares texts", f.Name)
	}
	return column, op, nil
}

// CheckVariableFilters checks every filter of fs (VariableCompare).
func CheckVariableFilters(fs []store.VariableFilter) error {
	for _, f := range fs {
		if _, _, err := VariableCompare(f); err != nil {
			return err
		}
	}
	return nil
}

// PrefixUpperBound returns the least string greater than every string
// that starts with prefix, in byte order, and false when there is none
// (prefix is empty or all 0xff bytes): a prefix match is then the range
// [prefix, bound).
func PrefixUpperBound(prefix string) (string, bool) {
	b := []byte(prefix)
	for len(b) > 0 && b[len(b)-1] == 0xff {
		b = b[:len(b)-1]
	}
	if len(b) == 0 {
		return "", false
	}
	b[len(b)-1]++
	return string(b), true
}
