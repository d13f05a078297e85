package cockpit

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/go-chi/chi/v5"

	"github.com/gobpm/gobpm/internal/runtime"
	"github.com/gobpm/gobpm/web/templates"
)

// previewRunes is how much of a long value its row shows before "show all".
const previewRunes = 300

// editRows lists a scope's variables by name for the instance page, each
// with its JSON, its detected type and its editor's starting point.
func editRows(vars map[string]any) []templates.VarRow {
	out := make([]templates.VarRow, 0, len(vars))
	for k, val := range vars {
		out = append(out, varRow(k, val))
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// varRow describes one variable.
func varRow(name string, val any) templates.VarRow {
	b, err := json.Marshal(val)
	if err != nil {
		b = []byte(fmt.Sprint(val))
	}
	row := templates.VarRow{Name: name, Value: string(b), Type: typeOf(val)}
	row.EditType, row.EditValue = row.Type, string(b)
	switch v := val.(type) {
	case string:
		row.EditValue = v
	case nil:
		row.EditValue = ""
	case map[string]any, []any:
		if ind, err := json.MarshalIndent(val, "", "  "); err == nil {
			row.EditValue = string(ind)
		}
	}
	if len(b) > templates.LongValue {
		row.Long, row.Preview = true, preview(string(b))
		row.EditType = templates.VarJSON // a long value is edited as JSON
		if row.Type == templates.VarString {
			row.EditValue = string(b)
		}
	}
	return row
}

// typeOf detects a variable's type from its value.
func typeOf(val any) string {
	switch val.(type) {
	case nil:
		return templates.VarNull
	case bool:
		return templates.VarBoolean
	case json.Number, float64, float32, int, int64, int32, uint, uint64:
		return templates.VarNumber
	case string:
		return templates.VarString
	}
	return templates.VarJSON
}

// preview is the start of a long value, cut at a character.
func preview(s string) string {
	n := 0
	for i := range s {
		if n == previewRunes {
			return s[:i]
		}
		n++
	}
	return s
}

// jsonNumberRE is a JSON number (what the number type accepts).
var jsonNumberRE = regexp.MustCompile(`^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$`)

// typedValue reads what a variable editor sent as a value of its type; a
// value that is not one says why, in words the page shows.
func typedValue(typ, s string) (any, error) {
	switch typ {
	case templates.VarString:
		return s, nil
	case templates.VarNumber:
		t := strings.TrimSpace(s)
		if !jsonNumberRE.MatchString(t) {
			return nil, fmt.Errorf("%q is not a number: write one such as 42, -3.5 or 1e6.", t)
		}
		return json.Number(t), nil
	case templates.VarBoolean:
		switch strings.ToLower(strings.TrimSpace(s)) {
		case "true":
			return true, nil
		case "false":
			return false, nil
		}
		return nil, fmt.Errorf("%q is not a boolean: write true or false.", strings.TrimSpace(s))
	case templates.VarNull:
		return nil, nil
	case templates.VarJSON:
		return jsonValue(s)
	}
	return nil, fmt.Errorf("%q is not a variable type: choose %s.", typ, strings.Join(templates.VarTypes, ", "))
}

// jsonValue reads one JSON value; invalid JSON is refused with its line
// and column.
func jsonValue(s string) (any, error) {
	if strings.TrimSpace(s) == "" {
		return nil, errors.New("The value is empty: write a JSON value such as {\"a\": 1} or [1, 2].")
	}
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		var se *json.SyntaxError
		switch {
		case errors.As(err, &se):
			return nil, fmt.Errorf("The value is not valid JSON at %s: %s.", position(s, int(se.Offset)-1), se.Error())
		case errors.Is(err, io.ErrUnexpectedEOF):
			return nil, fmt.Errorf("The value is not valid JSON at %s: it ends too early.", position(s, len(s)))
		}
		return nil, fmt.Errorf("The value is not valid JSON: %v.", err)
	}
	if dec.More() || dec.InputOffset() < int64(len(strings.TrimRight(s, " \t\r\n"))) {
		return nil, fmt.Errorf("The value is not valid JSON at %s: there is more text after the value.", position(s, int(dec.InputOffset())+leadingSpace(s[dec.InputOffset():])))
	}
	return v, nil
}

// leadingSpace counts the JSON white space s starts with.
func leadingSpace(s string) int {
	return len(s) - len(strings.TrimLeft(s, " \t\r\n"))
}

// position names the byte offset off in s as "line L, column C" (from 1,
// columns in characters).
func position(s string, off int) string {
	off = max(0, min(off, len(s)))
	before := s[:off]
	line := strings.Count(before, "\n") + 1
	col := utf8.RuneCountInString(before[strings.LastIndexByte(before, '\n')+1:]) + 1
	return fmt.Sprintf("line %d, column %d", line, col)
}

// setVariable writes one variable from its editor or the "add variable"
// form into the scope named (itself, local); a refused value shows the
// page again with the form open, what was typed and why.
func (h *handler) setVariable(w http.ResponseWriter, r *http.Request) {
	id := runtime.InstanceID(chi.URLParam(r, "id"))
	form := templates.VarForm{Scope: r.PostFormValue("scope"), Name: strings.TrimSpace(r.PostFormValue("name")),
		Type: r.PostFormValue("type"), Value: r.PostFormValue("value"), Add: r.PostFormValue("mode") == templates.VarModeAdd}
	refuse := func(status int, msg string) {
		p, err := h.instancePage(w, r, id)
		if err != nil {
			h.failErr(w, r, err)
			return
		}
		form.Error = msg
		p.VarRefused = form
		p.Here = templates.InstanceURL(string(id))
		p.Flash = templates.Flash{Kind: "error", Message: msg}
		h.render(w, r, status, templates.Instance(p))
	}
	if form.Name == "" {
		refuse(http.StatusBadRequest, "Name the variable.")
		return
	}
	val, err := typedValue(form.Type, form.Value)
	if err != nil {
		refuse(http.StatusBadRequest, err.Error())
		return
	}
	vars := map[string]any{form.Name: val}
	if _, err := h.svc.SetVariables(r.Context(), id, form.Scope, vars, true); err != nil {
		if runtime.ErrorCode(err) == runtime.EINTERNAL {
			h.actFailed(w, r, templates.InstanceURL(string(id)), err)
			return
		}
		refuse(statusOf(err), h.plain(r, err))
		return
	}
	h.done(w, r, templates.InstanceURL(string(id)), "ok", "Set "+form.Name+".")
}
