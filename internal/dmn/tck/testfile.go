package tck

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/beevik/etree"
	"github.com/cockroachdb/apd/v3"
	"github.com/gobpm/gobpm/internal/feel"
)

// testFile is a parsed TCK testCases document.
type testFile struct {
	modelName string
	cases     []testCase
}

// all fails every case of the file with the same detail.
func (tf *testFile) all(key, file, detail string) []CaseResult {
	out := make([]CaseResult, 0, len(tf.cases))
	for _, tc := range tf.cases {
		out = append(out, CaseResult{Folder: key, File: file, ID: tc.id, Status: Error, Detail: detail})
	}
	return out
}

// testCase is one <testCase>.
type testCase struct {
	id string
	// kind is the type attribute: "decision" (the default),
	// "decisionService" or "bkm".
	kind string
	// invocableName names the decision service of a decisionService case.
	invocableName string
	inputs        []inputNode
	results       []resultNode
	err           string // a problem reading the case's values
}

// inputNode is one <inputNode>: a value for the input data (or, for a
// decision service, the decision) named name in the model of namespace
// ns ("" for the tested model).
type inputNode struct {
	name, ns string
	value    any
}

// resultNode is one <resultNode>: the decision whose value is expected.
type resultNode struct {
	name string
	ns   string
	// errorResult is the errorResult attribute: the evaluation must
	// report an error (and, when expected is given, still yield it).
	errorResult bool
	hasExpected bool
	expected    any // FEEL-native, as readValue makes it
}

const xsiNamespace = "http://www.w3.org/2001/XMLSchema-instance"

// parseTestFile reads a testCases document (namespace
// http://www.omg.org/spec/DMN/20160719/testcase; elements matched by
// local name).
func parseTestFile(data []byte) (*testFile, error) {
	if bytes.Contains(bytes.ToUpper(data), []byte("<!DOCTYPE")) {
		return nil, errors.New("DOCTYPE declarations are refused")
	}
	doc := etree.NewDocument()
	doc.ReadSettings.MaxDepth = 256
	if err := doc.ReadFromBytes(data); err != nil {
		return nil, err
	}
	root := doc.Root()
	if root == nil || root.Tag != "testCases" {
		return nil, errors.New("root element is not <testCases>")
	}
	tf := &testFile{}
	if m := root.SelectElement("modelName"); m != nil {
		tf.modelName = strings.TrimSpace(m.Text())
	}
	for _, tce := range root.SelectElements("testCase") {
		tc := testCase{
			id:            tce.SelectAttrValue("id", ""),
			kind:          tce.SelectAttrValue("type", "decision"),
			invocableName: tce.SelectAttrValue("invocableName", ""),
		}
		for _, in := range tce.SelectElements("inputNode") {
			v, err := readValue(in)
			if err != nil && tc.err == "" {
				tc.err = fmt.Sprintf("input %q: %v", in.SelectAttrValue("name", ""), err)
			}
			tc.inputs = append(tc.inputs, inputNode{
				name:  in.SelectAttrValue("name", ""),
				ns:    in.SelectAttrValue("namespace", ""),
				value: v,
			})
		}
		for _, rn := range tce.SelectElements("resultNode") {
			r := resultNode{
				name:        rn.SelectAttrValue("name", ""),
				ns:          rn.SelectAttrValue("namespace", ""),
				errorResult: isTrue(rn.SelectAttrValue("errorResult", "false")),
			}
			if ex := rn.SelectElement("expected"); ex != nil {
				r.hasExpected = true
				v, err := readValue(ex)
				if err != nil && tc.err == "" {
					tc.err = fmt.Sprintf("expected value of %q: %v", r.name, err)
				}
				r.expected = v
			}
			tc.results = append(tc.results, r)
		}
		tf.cases = append(tf.cases, tc)
	}
	return tf, nil
}

func isTrue(s string) bool {
	s = strings.TrimSpace(s)
	return s == "true" || s == "1"
}

// isNil reports xsi:nil="true" on e.
func isNil(e *etree.Element) bool {
	for _, a := range e.Attr {
		if a.Key == "nil" && (a.NamespaceURI() == xsiNamespace || a.Space == "xsi") {
			return isTrue(a.Value)
		}
	}
	return false
}

// xsiType returns the local part of e's xsi:type ("" when absent).
func xsiType(e *etree.Element) string {
	for _, a := range e.Attr {
		if a.Key == "type" && (a.NamespaceURI() == xsiNamespace || a.Space == "xsi") {
			v := a.Value
			if i := strings.IndexByte(v, ':'); i >= 0 {
				v = v[i+1:]
			}
			return v
		}
	}
	return ""
}

// readValue reads a TCK valueType — a <value>, <component>s (a context)
// or a <list> of <item>s — as a FEEL-native value: numbers as
// json.Number, booleans, strings, temporal values as feel.Date,
// feel.Time, feel.DateTime, feel.Duration or feel.YearsMonths, lists as
// []any and contexts as map[string]any. An element holding none of them
// (or xsi:nil) is null.
func readValue(e *etree.Element) (any, error) {
	if isNil(e) {
		return nil, nil
	}
	if v := e.SelectElement("value"); v != nil {
		return readScalar(v)
	}
	if l := e.SelectElement("list"); l != nil {
		if isNil(l) {
			return nil, nil
		}
		out := []any{}
		for _, it := range l.SelectElements("item") {
			x, err := readValue(it)
			if err != nil {
				return nil, err
			}
			out = append(out, x)
		}
		return out, nil
	}
	comps := e.SelectElements("component")
	if len(comps) == 0 {
		return nil, nil
	}
	m := make(map[string]any, len(comps))
	for _, c := range comps {
		x, err := readValue(c)
		if err != nil {
			return nil, err
		}
		m[c.SelectAttrValue("name", "")] = x
	}
	return m, nil
}

func textContent(e *etree.Element) string {
	var b strings.Builder
	for _, t := range e.Child {
		if cd, ok := t.(*etree.CharData); ok {
			b.WriteString(cd.Data)
		}
	}
	return b.String()
}

// readScalar reads one <value> by its xsi:type.
func readScalar(v *etree.Element) (any, error) {
	if isNil(v) {
		return nil, nil
	}
	text := textContent(v)
	switch t := xsiType(v); t {
	case "decimal", "double", "float", "integer", "int", "long", "short", "byte",
		"nonNegativeInteger", "positiveInteger", "negativeInteger", "nonPositiveInteger":
		s := strings.TrimSpace(text)
		d, _, err := apd.NewFromString(s)
		if err != nil || d.Form != apd.Finite {
			// FEEL numbers are finite: NaN and INF have no FEEL value.
			return nil, fmt.Errorf("%q is not a finite %s", s, t)
		}
		return json.Number(s), nil
	case "boolean":
		switch strings.TrimSpace(text) {
		case "true", "1":
			return true, nil
		case "false", "0":
			return false, nil
		}
		return nil, fmt.Errorf("%q is not a boolean", text)
	case "date":
		return parsed(feel.ParseDate(strings.TrimSpace(text)))
	case "dateTime":
		return parsed(feel.ParseDateTime(strings.TrimSpace(text)))
	case "time":
		return parsed(feel.ParseTime(strings.TrimSpace(text)))
	case "duration", "dayTimeDuration", "yearMonthDuration":
		return feel.ParseDuration(strings.TrimSpace(text))
	case "string", "":
		return text, nil
	default:
		return nil, fmt.Errorf("xsi:type %q is not supported", t)
	}
}

func parsed[T any](v T, err error) (any, error) {
	if err != nil {
		return nil, err
	}
	return v, nil
}
