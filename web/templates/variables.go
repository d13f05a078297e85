package templates

import (
	"net/url"
	"strings"
)

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
// A row offers an "edit" link (VarEditURL: the page again with that
// variable's editor open, Open); the page has one "add variable" form.
type VarEditing struct {
	On         bool
	InstanceID string
	CSRF       string
	// Here is the page's URL, which the edit links keep.
	Here string
	// Scopes are the scopes the add form can write into.
	Scopes []ScopeOption
	// Open is the editor the page was asked to show open (Scope, Name).
	Open VarForm
	// Refused is the form the server refused, shown again with its error.
	Refused VarForm
}

// Shows reports whether the editor of name in scope is shown open.
func (e VarEditing) Shows(scope, name string) bool {
	return e.On && (e.Refused.Matches(scope, name, false) || (e.Open.Name == name && e.Open.Scope == scope))
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
// scope (or the add form, whatever its scope, when add is set).
func (f VarForm) Matches(scope, name string, add bool) bool {
	return f.Error != "" && f.Add == add && (add || (f.Scope == scope && f.Name == name))
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

// varFormID is the id of an open editor (VarEditAnchor) or of the add
// form.
func varFormID(add bool) string {
	if add {
		return "variable-add"
	}
	return VarEditAnchor
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
	return VarEditing{On: p.CanOperate && !p.Live.Ended, InstanceID: p.ID, CSRF: p.CSRF, Here: p.Here, Scopes: p.ScopeOptions,
		Open: p.VarOpen, Refused: p.VarRefused}
}

// Query parameters of the instance page's edit links: the scope and the
// name of the variable whose editor is open.
const (
	ParamVarScope = "vscope"
	ParamVar      = "var"
)

// VarEditAnchor is the id of the open variable editor, which its link
// scrolls to.
const VarEditAnchor = "var-edit"

// VarEditURL is the instance page at here (its other parameters kept)
// with the editor of name in scope open, as a link relative to it.
func VarEditURL(here, scope, name string) string {
	q := url.Values{}
	if u, err := url.Parse(here); err == nil {
		q = u.Query()
	}
	q.Del(ParamVarScope)
	if scope != "" {
		q.Set(ParamVarScope, scope)
	}
	q.Set(ParamVar, name)
	return "?" + q.Encode() + "#" + VarEditAnchor
}
