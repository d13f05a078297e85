package sqlite

import (
	"context"
	"fmt"
	"slices"

	"github.com/gobpm/gobpm/internal/store"
	"github.com/gobpm/gobpm/internal/store/sqlquery"
)

// variableIndexes is the index of instance_variables (migrations 0015
// and 0028) that finds the rows of a name by each column, in its order.
var variableIndexes = map[string]string{
	"value":      "instance_variables_value",
	"value_num":  "instance_variables_num",
	"value_text": "instance_variables_text",
	"value_time": "instance_variables_time",
}

// variableMatch is the condition a row of instance_variables aliased
// alias meets for f, after its name (which the caller compares), with its
// arguments; probe says it checks one instance's row (see below), not a
// range of the column's index. f has passed
// sqlquery.CheckVariableFilters.
func variableMatch(f store.VariableFilter, alias string, probe bool) (string, []any) {
	column, op, _ := sqlquery.VariableCompare(f)
	col := alias + "." + column
	if probe {
		// A unary + keeps the column's index out of the probe of one
		// instance's row: the primary key (instance_seq, name) finds it.
		col = "+" + col
	}
	if op == "like" {
		// A prefix is the range [prefix, its upper bound) of the text
		// index: an index range, unlike LIKE or substr.
		upper, ok := sqlquery.PrefixUpperBound(f.Text)
		if !ok {
			return col + " >= ?", []any{f.Text}
		}
		return col + " >= ? AND " + col + " < ?", []any{f.Text, upper}
	}
	return col + " " + op + " ?", []any{variableOperand(f)}
}

// variableOperand is the argument f compares its column with.
func variableOperand(f store.VariableFilter) any {
	switch f.Type {
	case store.VarTypeNumber:
		return f.Num
	case store.VarTypeText:
		return f.Text
	case store.VarTypeTime:
		return encodeTime(f.Time)
	default:
		return f.Value
	}
}

// variableCondOf is the condition an instance row meets for f: its
// variable row, found by the index's primary key (instance_seq, name).
func variableCondOf(f store.VariableFilter) (string, []any) {
	match, args := variableMatch(f, "v", true)
	return `EXISTS (SELECT 1 FROM instance_variables v WHERE v.instance_seq = instances.seq AND v.name = ? AND ` + match + `)`,
		append([]any{f.Name}, args...)
}

// variableRange is the range of the index of the column of fs[i] that
// holds its matches: the table aliased d with its index, and the
// condition with its arguments. The other filters of fs on the same
// variable and column bound the same range (an instance has one row per
// variable), so amount >= 100 and amount < 102 read only the rows
// between.
func variableRange(fs []store.VariableFilter, i int) (from, cond string, args []any) {
	f := fs[i]
	column, _, _ := sqlquery.VariableCompare(f)
	cond, args = `d.name = ?`, []any{f.Name}
	for j, g := range fs {
		if gcol, _, _ := sqlquery.VariableCompare(g); j != i && (g.Name != f.Name || gcol != column) {
			continue
		}
		match, margs := variableMatch(g, "d", false)
		cond += ` AND ` + match
		args = append(args, margs...)
	}
	return `instance_variables d INDEXED BY ` + variableIndexes[column], cond, args
}

// variableSeqs is a query of the instance seqs whose variable meets
// fs[i] (and the filters of fs on the same variable and column), read
// through the index of its column (a range of it), with its arguments.
func variableSeqs(fs []store.VariableFilter, i int) (string, []any) {
	from, cond, args := variableRange(fs, i)
	return `SELECT d.instance_seq FROM ` + from + ` WHERE ` + cond, args
}

// variableProbe counts the matches of variableSeqs(fs, i) up to
// sqlquery.DriveVariableLimit.
func variableProbe(fs []store.VariableFilter, i int) (string, []any) {
	q, args := variableSeqs(fs, i)
	return `SELECT COUNT(*) FROM (` + q + ` LIMIT ?)`, append(args, sqlquery.DriveVariableLimit)
}

// varPlan is how a list with variable filters reads (buildListPlan).
type varPlan struct {
	// drive says the filter at index (in the list filter's Variables)
	// drives the list: its matches, read by its index, are the only rows
	// looked at. Without it the list's own index drives.
	drive bool
	index int
	// count, when set, counts through the variable filter at index
	// instead of the list's index (every filter has more matches than
	// DriveVariableLimit, and a count reads up to MaxListTotal+1 of
	// them: through the variable index, that is what it reads).
	count bool
}

// rest is f without the variable filter p reads through its index (the
// one that drives or counts): the conditions left to check on each row.
func (p varPlan) rest(f store.InstanceFilter) store.InstanceFilter {
	f.Variables = slices.Delete(slices.Clone(f.Variables), p.index, p.index+1)
	return f
}

// planVariables picks the plan of f's variable filters from the number of
// matches each has up to sqlquery.DriveVariableLimit (counts, in f's
// order): the filter with the fewest drives if it has fewer than the
// limit; otherwise the list's index drives the page, and the count goes
// through the filter with the fewest unless narrowed says the list's
// index has an equality prefix of its own (a process key, a status …),
// whose range the count reads as without variable filters.
func planVariables(counts []int, narrowed bool) varPlan {
	if len(counts) == 0 {
		return varPlan{}
	}
	best := 0
	for i, n := range counts {
		if n < counts[best] {
			best = i
		}
	}
	switch {
	case counts[best] < sqlquery.DriveVariableLimit:
		return varPlan{drive: true, index: best}
	case narrowed:
		return varPlan{}
	}
	return varPlan{count: true, index: best}
}

// planVariables counts the matches of each variable filter of f up to
// sqlquery.DriveVariableLimit (through its index: at most that many
// entries each) and picks the list's plan from them.
func (db *DB) planVariables(ctx context.Context, f store.InstanceFilter) (varPlan, error) {
	fs := f.Variables
	if len(fs) == 0 {
		return varPlan{}, nil
	}
	counts := make([]int, len(fs))
	for i, f := range fs {
		q, args := variableProbe(fs, i)
		if err := db.rstmts.warm(ctx, q); err != nil {
			return varPlan{}, err
		}
		if err := db.readOne(ctx).queryRow(q, args...).Scan(&counts[i]); err != nil {
			return varPlan{}, fmt.Errorf("count variable %s: %w", f.Name, err)
		}
	}
	narrowed := f.Number != 0 || f.ParentID != "" || f.BusinessKey != "" || f.ProcessKey != "" || f.Status != ""
	return planVariables(counts, narrowed), nil
}

// taskVariableCond is the condition a task (a row of waits) meets for f:
// its instance (instance_id, or the UUID its id starts with, as
// signalSubscriptionsSQL reads it), found by id, has the variable row,
// found by the index's primary key.
func taskVariableCond(f store.VariableFilter) (string, []any) {
	match, args := variableMatch(f, "v", true)
	return `EXISTS (SELECT 1 FROM instances i CROSS JOIN instance_variables v ON v.instance_seq = i.seq
		WHERE i.id = COALESCE(waits.instance_id, substr(waits.id, 1, 16)) AND v.name = ? AND ` + match + `)`, append([]any{f.Name}, args...)
}
