package xmldoc

import (
	"bytes"
	"strings"
	"testing"
)

func TestLoad(t *testing.T) {
	t.Parallel()
	latin1 := append([]byte(`<?xml version="1.0" encoding="ISO-8859-1"?><a name="Caf`), 0xe9, '"', '/', '>')
	tests := []struct {
		name string
		in   []byte
		rule string
	}{
		{"plain", []byte(`<a><b/></a>`), ""},
		{"latin-1", latin1, ""},
		{"doctype", []byte(`<!DOCTYPE a [<!ENTITY x "y">]><a/>`), RuleDoctype},
		{"lower-case doctype", []byte(`<!doctype a><a/>`), RuleDoctype},
		{"too large", bytes.Repeat([]byte(" "), MaxDocumentSize+1), RuleTooLarge},
		{"too deep", []byte(strings.Repeat("<a>", MaxDepth+1) + strings.Repeat("</a>", MaxDepth+1)), RuleTooDeep},
		{"malformed", []byte(`<a><b></a>`), RuleMalformed},
		{"two roots", []byte(`<a/><b/>`), RuleMalformed},
		{"empty", nil, RuleMalformed},
	}
	for _, tc := range tests {
		d, err := Load(tc.in)
		switch {
		case tc.rule == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.rule != "" && (err == nil || err.Rule != tc.rule):
			t.Errorf("%s: err = %v, want rule %s", tc.name, err, tc.rule)
		case tc.name == "latin-1" && d.Doc.Root().SelectAttrValue("name", "") != "Café":
			t.Errorf("latin-1 not decoded: %q", d.Doc.Root().SelectAttrValue("name", ""))
		case tc.name == "plain" && d.Lines[d.Doc.Root()] != 1:
			t.Errorf("line of the root: %d", d.Lines[d.Doc.Root()])
		}
	}
}

func TestValidationError(t *testing.T) {
	t.Parallel()
	e := &ValidationError{Kind: "bpmn", Problems: []Problem{{Element: "a", Rule: "r", Detail: "d"}, {Rule: "x", Detail: "y"}}}
	if got := e.Error(); got != "bpmn: invalid document (2 problems): a: r: d; x: y" {
		t.Errorf("Error() = %q", got)
	}
	if !e.Has("a", "r") || !e.Has("", "x") || e.Has("a", "x") {
		t.Error("Has")
	}
}
