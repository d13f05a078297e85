package postgres

import (
	"strings"

	"github.com/gobpm/gobpm/internal/store"
	"github.com/gobpm/gobpm/internal/store/sqlquery"
)

// variableCond is the condition an instance row meets for the variable
// filter f (checked by sqlquery.CheckVariableFilters), its arguments in a:
// its variable row, found by the index's primary key (instance_seq,
// name). The planner may as well read the matches through the index of
// f's column (migration 0021) when they are few.
func variableCond(f store.VariableFilter, a *args) string {
	return `EXISTS (SELECT 1 FROM instance_variables v WHERE v.instance_seq = instances.seq AND v.name = ` +
		a.add(f.Name) + ` AND ` + variableMatch(f, "v", a) + `)`
}

// taskVariableCond is the condition a task (a row of waits) meets for
// f: its instance, found by id, has the variable row, found by the
// index's primary key.
func taskVariableCond(f store.VariableFilter, a *args) string {
	return `EXISTS (SELECT 1 FROM instances i JOIN instance_variables v ON v.instance_seq = i.seq
		WHERE i.id = waits.instance_id AND v.name = ` + a.add(f.Name) + ` AND ` + variableMatch(f, "v", a) + `)`
}

// variableMatch is the condition a row of instance_variables aliased
// alias meets for f, after its name.
func variableMatch(f store.VariableFilter, alias string, a *args) string {
	column, op, _ := sqlquery.VariableCompare(f)
	col := alias + "." + column
	switch {
	case op == "like":
		// LIKE with a constant prefix is a range of the text index
		// (the column's collation is "C").
		return col + " LIKE " + a.add(likePrefix(f.Text))
	case f.Type == store.VarTypeNumber:
		return col + " " + op + " " + a.add(f.Num)
	case f.Type == store.VarTypeText:
		return col + " " + op + " " + a.add(f.Text)
	case f.Type == store.VarTypeTime:
		return col + " " + op + " " + a.add(encodeTime(f.Time))
	default:
		return col + " " + op + " " + a.add(f.Value)
	}
}

// likePrefix is the LIKE pattern of the texts that start with prefix:
// LIKE's '%', '_' and '\' in it match themselves.
func likePrefix(prefix string) string {
	var b strings.Builder
	for _, r := range prefix {
		if r == '%' || r == '_' || r == '\\' {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String() + "%"
}
