package templates

import "strings"

// Variable types the instance page's variable editor offers (see VarRow).
const (
	VarString  = "string"
	VarNumber  = "number"
	VarBoolean = "boolean"
	VarNull    = "null"
	VarJSON    = "json"
)

// VarTypes are the variable types in the order the editor offers them.
var VarTypes = []string{VarString, VarNumber, VarBoolean, VarNull, VarJSON}

// LongValue is the size (bytes of JSON) above which a variable's value is
// shown truncated with "show all" and edited as JSON.
const LongValue = 4096

// VarRow is one variable of a scope on the instance page: its value as
// JSON, its detected type and what its editor starts from.
type VarRow struct {
	Name string
	// Value is the value as compact JSON.
	Value string
	// Type is one of VarTypes, detected from the value.
	Type string
	// Long is true for a value larger than LongValue: the row shows
	// Preview, the whole value behind "show all".
	Long    bool
	Preview string
	// EditType and EditValue pre-fill the editor: the value as typed
	// (a string without quotes, JSON indented); a long value is edited as
	// JSON.
	EditType, EditValue string
}

// VarEditing is what the variable tables of an instance page need to
// offer editing: On when the person may edit (operate, instance not ended).
type VarEditing struct {
	On         bool
	InstanceID string
	CSRF       string
	// Refused is the form the server refused, shown again with its error.
	Refused VarForm
}

// VarForm is the content of one variable's editor, or of the "add
// variable" form (Add) of a scope.
type VarForm struct {
	// Scope is the scope written into ("" for the root).
	Scope string
	Name  string
	Type  string
	Value string
	Add   bool
	// Error says why the server refused it ("" before).
	Error string
}

// Matches reports whether f is the refused form of the editor of name in
// scope (or of its add form when add is set).
func (f VarForm) Matches(scope, name string, add bool) bool {
	return f.Error != "" && f.Scope == scope && f.Add == add && (add || f.Name == name)
}

// Editor returns the form an editor shows: the refused one when it is
// this editor's, else def.
func (e VarEditing) Editor(def VarForm) VarForm {
	if e.Refused.Matches(def.Scope, def.Name, def.Add) {
		return e.Refused
	}
	return def
}

// UsesTextarea reports whether a form's value is edited in the JSON editor
// (a multi-line field): JSON values and long ones.
func (f VarForm) UsesTextarea() bool {
	return f.Type == VarJSON || len(f.Value) > LongValue || strings.Contains(f.Value, "\n")
}

// VarKey names a variable's panels for the live refresh (which keeps them
// open across it): its scope and its name.
func VarKey(scope, name string) string { return scope + "/" + name }

// varFormTestID is the test id of an editor: "variable-edit", or
// "variable-add" for a scope's add form.
func varFormTestID(add bool) string {
	if add {
		return "variable-add"
	}
	return "variable-edit"
}

// varMode is the form's mode field: "add" or "edit".
func varMode(add bool) string {
	if add {
		return VarModeAdd
	}
	return VarModeEdit
}

// The variable editor's modes (its "mode" field).
const (
	VarModeEdit = "edit"
	VarModeAdd  = "add"
)

// Editing is what the page's variable tables need to offer editing: on
// for a person who may operate on a running instance.
func (p InstancePage) Editing() VarEditing {
	return VarEditing{On: p.CanOperate && !p.Live.Ended, InstanceID: p.ID, CSRF: p.CSRF, Refused: p.VarRefused}
}
