package store

import "time"

// The comparisons of a VariableFilter (its Op).
const (
	// VarEq keeps the instances whose variable equals the operand.
	VarEq = "eq"
	// VarNeq keeps the instances that have the variable with another value.
	VarNeq = "neq"
	// VarGt, VarGte, VarLt and VarLte compare numbers, texts (byte order)
	// or times.
	VarGt  = "gt"
	VarGte = "gte"
	VarLt  = "lt"
	VarLte = "lte"
	// VarLike keeps the instances whose string variable starts with the
	// operand's text.
	VarLike = "like"
)

// The forms a VariableFilter compares (its Type): which column of the
// variable index it reads.
const (
	// VarTypeValue compares value keys (VariableValueKey): any JSON value,
	// VarEq and VarNeq only.
	VarTypeValue = ""
	// VarTypeNumber compares JSON numbers (IndexedVariable.Num).
	VarTypeNumber = "number"
	// VarTypeText compares JSON strings (IndexedVariable.Text).
	VarTypeText = "text"
	// VarTypeTime compares strings holding RFC 3339 times
	// (IndexedVariable.Time).
	VarTypeTime = "time"
)

// VariableFilter keeps the instances whose top-level variable Name
// compares to the operand as Op says. The zero Op and Type are today's
// exact filter: the variable's value key (VariableValueKey) is Value. A
// filter of another Type compares the variable's typed form (Num, Text or
// Time) with the operand of the same name; a variable without that form
// (a number compared as a time, say) never matches.
type VariableFilter struct {
	Name string
	// Value is the operand's value key (Type VarTypeValue).
	Value string
	// Op is one of the Var* comparisons; "" is VarEq.
	Op string
	// Type is one of the VarType* forms; VarLike needs VarTypeText.
	Type string
	// Num, Text and Time are the operand of a typed filter.
	Num  float64
	Text string
	Time time.Time
}
