package tck

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/beevik/etree"
	"github.com/cockroachdb/apd/v3"
	"github.com/gobpm/gobpm/internal/dmn"
	"github.com/gobpm/gobpm/internal/feel"
)

// Status is the outcome of one test case, spelled as the TCK's
// tck_results.csv and its reporter spell it.
type Status string

// The statuses a test case can end with.
const (
	// Success: every result node produced the expected value (or the
	// expected error).
	Success Status = "SUCCESS"
	// Error: a result differed from the expected one, the model did not
	// parse, or the test could not be run. The TCK reporter knows no
	// separate FAILURE status; Detail tells which it was.
	Error Status = "ERROR"
)

// NumberTolerance is how far an actual number may be from the expected one
// and still match: the TCK's reference runner (Drools' CompareValuesUtil)
// uses the same 1e-8. Expected values in the TCK are often written with
// fewer digits than a 34-digit decimal evaluation yields
// (0009-invocation-arithmetic expects 2878.69354943277).
const NumberTolerance = "0.00000001"

// MaxTestFileSize bounds the size of a test case file.
const MaxTestFileSize = 10 << 20

// CaseResult is the outcome of one TCK test case.
type CaseResult struct {
	// Folder identifies the test folder the way the TCK reporter keys it:
	// its parent's name and its own ("compliance-level-2/0001-input-data-string").
	Folder string
	// File is the test case file name without its extension
	// ("0001-input-data-string-test-01").
	File string
	// ID is the testCase id ("001").
	ID     string
	Status Status
	// Detail says what went wrong ("" on success).
	Detail string
}

// Report is the outcome of a run over a directory tree.
type Report struct {
	// Cases lists every test case in folder, file and document order.
	Cases []CaseResult
}

// Passed and Failed count the test cases by status.
func (r *Report) Passed() int { return r.count(true) }

// Failed counts the test cases that did not succeed.
func (r *Report) Failed() int { return r.count(false) }

func (r *Report) count(ok bool) int {
	n := 0
	for _, c := range r.Cases {
		if (c.Status == Success) == ok {
			n++
		}
	}
	return n
}

// WriteCSV writes the results in the TCK's tck_results.csv format: one
// line per test case, no header, every field quoted:
// "folder","test file","test id","SUCCESS|ERROR","detail".
func (r *Report) WriteCSV(w io.Writer) error {
	// encoding/csv quotes only when needed; the TCK's files quote every
	// field, so lines are written by hand with the same escaping.
	for _, c := range r.Cases {
		fields := []string{c.Folder, c.File, c.ID, string(c.Status), oneLine(c.Detail)}
		for i, f := range fields {
			if i > 0 {
				if _, err := io.WriteString(w, ","); err != nil {
					return err
				}
			}
			if _, err := io.WriteString(w, `"`+strings.ReplaceAll(f, `"`, `""`)+`"`); err != nil {
				return err
			}
		}
		if _, err := io.WriteString(w, "\n"); err != nil {
			return err
		}
	}
	return nil
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// RunDir runs every TCK test folder under dir (see Run); folders are
// named after dir's own base name and their path below it.
func RunDir(dir string) (*Report, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	info, err := os.Stat(abs)
	if err != nil {
		return nil, err
	}
	if !info.IsDir() {
		return nil, fmt.Errorf("tck: %s is not a directory", dir)
	}
	return Run(os.DirFS(abs), filepath.Base(abs))
}

var testFileName = regexp.MustCompile(`-test-\d+\.xml$`)

// Run walks fsys and runs every folder holding a .dmn model and TCK test
// case files (*-test-NN.xml). base names the root in CaseResult.Folder.
func Run(fsys fs.FS, base string) (*Report, error) {
	folders := map[string][]string{} // dir → test files
	models := map[string][]string{}  // dir → .dmn files
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		dir, name := path.Split(p)
		dir = strings.TrimSuffix(dir, "/")
		switch {
		case strings.HasSuffix(name, ".dmn"):
			models[dir] = append(models[dir], name)
		case testFileName.MatchString(name):
			folders[dir] = append(folders[dir], name)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	dirs := make([]string, 0, len(folders))
	for dir := range folders {
		if len(models[dir]) > 0 {
			dirs = append(dirs, dir)
		}
	}
	sort.Strings(dirs)
	rep := &Report{}
	for _, dir := range dirs {
		files := folders[dir]
		sort.Strings(files)
		key := folderKey(base, dir)
		parsed := map[string]*modelResult{}
		for _, f := range files {
			rep.Cases = append(rep.Cases, runFile(fsys, dir, f, key, models[dir], parsed)...)
		}
	}
	return rep, nil
}

// folderKey is the last two elements of base/dir.
func folderKey(base, dir string) string {
	full := path.Join(base, dir)
	parts := strings.Split(full, "/")
	if len(parts) > 2 {
		parts = parts[len(parts)-2:]
	}
	return strings.Join(parts, "/")
}

type modelResult struct {
	defs *dmn.Definitions
	err  error
}

// runFile runs the test cases of one test file.
func runFile(fsys fs.FS, dir, file, key string, modelFiles []string, parsed map[string]*modelResult) []CaseResult {
	fileKey := strings.TrimSuffix(file, path.Ext(file))
	fail := func(detail string) []CaseResult {
		return []CaseResult{{Folder: key, File: fileKey, ID: "*", Status: Error, Detail: detail}}
	}
	data, err := readFile(fsys, path.Join(dir, file))
	if err != nil {
		return fail(err.Error())
	}
	tf, err := parseTestFile(data)
	if err != nil {
		return fail(fmt.Sprintf("test file: %v", err))
	}
	model := tf.modelName
	if model == "" || !contains(modelFiles, model) {
		if len(modelFiles) != 1 {
			return tf.all(key, fileKey, fmt.Sprintf("cannot tell which model the tests use (modelName %q; models %s)", tf.modelName, strings.Join(modelFiles, ", ")))
		}
		model = modelFiles[0]
	}
	mr := parsed[model]
	if mr == nil {
		mr = &modelResult{}
		b, err := readFile(fsys, path.Join(dir, model))
		if err == nil {
			mr.defs, err = dmn.Parse(b)
		}
		mr.err = err
		parsed[model] = mr
	}
	if mr.err != nil {
		return tf.all(key, fileKey, fmt.Sprintf("model %s: %v", model, mr.err))
	}
	out := make([]CaseResult, 0, len(tf.cases))
	for _, tc := range tf.cases {
		cr := CaseResult{Folder: key, File: fileKey, ID: tc.id, Status: Success}
		if detail := runCase(mr.defs, tc); detail != "" {
			cr.Status, cr.Detail = Error, detail
		}
		out = append(out, cr)
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func readFile(fsys fs.FS, name string) ([]byte, error) {
	f, err := fsys.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, MaxTestFileSize+1))
	if err != nil {
		return nil, err
	}
	if len(b) > MaxTestFileSize {
		return nil, fmt.Errorf("%s is larger than %d bytes", name, MaxTestFileSize)
	}
	return b, nil
}

// runCase evaluates every result node of tc; it returns "" when all match,
// else what differed.
func runCase(defs *dmn.Definitions, tc testCase) string {
	if tc.kind != "" && tc.kind != "decision" {
		return fmt.Sprintf("test case type %q is not supported", tc.kind)
	}
	if tc.err != "" {
		return tc.err
	}
	var problems []string
	for _, rn := range tc.results {
		d := defs.DecisionByName(rn.name)
		if d == nil {
			problems = append(problems, fmt.Sprintf("%s: no decision of that name", rn.name))
			continue
		}
		res, err := defs.Evaluate(d.ID, tc.inputs)
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s: %v", rn.name, err))
			continue
		}
		if rn.errorResult {
			if len(res.Errors) == 0 {
				problems = append(problems, fmt.Sprintf("%s: expected an error result, got %s", rn.name, render(res.Value)))
			}
			continue
		}
		if !rn.hasExpected {
			continue
		}
		if why := compare(rn.expected, res.Value); why != "" {
			msg := fmt.Sprintf("%s: expected %s, got %s", rn.name, render(rn.expected), render(res.Value))
			if why != "value" {
				msg += " (" + why + ")"
			}
			if len(res.Errors) > 0 {
				msg += "; errors: " + res.Err().Error()
			}
			problems = append(problems, msg)
		}
	}
	return strings.Join(problems, "; ")
}

// compare returns "" when actual matches expected (both JSON-shaped):
// numbers within NumberTolerance, lists element by element, contexts entry
// by entry with the same keys, everything else exactly.
func compare(expected, actual any) string {
	switch e := expected.(type) {
	case nil:
		if actual != nil {
			return "value"
		}
		return ""
	case json.Number:
		a, ok := actual.(json.Number)
		if !ok {
			return "value"
		}
		if !numbersMatch(e, a) {
			return "value"
		}
		return ""
	case []any:
		a, ok := actual.([]any)
		if !ok {
			return "value"
		}
		if len(a) != len(e) {
			return fmt.Sprintf("%d items, want %d", len(a), len(e))
		}
		for i := range e {
			if why := compare(e[i], a[i]); why != "" {
				return fmt.Sprintf("item %d: %s", i+1, why)
			}
		}
		return ""
	case map[string]any:
		a, ok := actual.(map[string]any)
		if !ok {
			return "value"
		}
		if len(a) != len(e) {
			return fmt.Sprintf("%d entries, want %d", len(a), len(e))
		}
		for k, ev := range e {
			av, present := a[k]
			if !present {
				return fmt.Sprintf("entry %q missing", k)
			}
			if why := compare(ev, av); why != "" {
				return fmt.Sprintf("entry %q: %s", k, why)
			}
		}
		return ""
	default:
		if expected != actual {
			return "value"
		}
		return ""
	}
}

var tolerance = func() *apd.Decimal {
	d, _, _ := apd.NewFromString(NumberTolerance)
	return d
}()

func numbersMatch(e, a json.Number) bool {
	de, _, err1 := apd.NewFromString(string(e))
	da, _, err2 := apd.NewFromString(string(a))
	if err1 != nil || err2 != nil {
		return false
	}
	if de.Cmp(da) == 0 {
		return true
	}
	var diff apd.Decimal
	ctx := apd.BaseContext.WithPrecision(50)
	if _, err := ctx.Sub(&diff, de, da); err != nil {
		return false
	}
	diff.Abs(&diff)
	return diff.Cmp(tolerance) < 0
}

// render shows a JSON-shaped value in a detail message.
func render(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Sprint(v)
	}
	s := strings.TrimSpace(b.String())
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}

// testFile is a parsed TCK testCases document.
type testFile struct {
	modelName string
	cases     []testCase
}

func (tf *testFile) all(key, file, detail string) []CaseResult {
	out := make([]CaseResult, 0, len(tf.cases))
	for _, tc := range tf.cases {
		out = append(out, CaseResult{Folder: key, File: file, ID: tc.id, Status: Error, Detail: detail})
	}
	return out
}

type testCase struct {
	id      string
	kind    string
	inputs  map[string]any
	results []resultNode
	err     string // a problem reading the case's values
}

type resultNode struct {
	name        string
	errorResult bool
	hasExpected bool
	expected    any
}

const xsiNamespace = "http://www.w3.org/2001/XMLSchema-instance"

// parseTestFile reads a testCases document (namespace
// http://www.omg.org/spec/DMN/20160719/testcase; elements matched by local name).
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
			id:     tce.SelectAttrValue("id", ""),
			kind:   tce.SelectAttrValue("type", "decision"),
			inputs: map[string]any{},
		}
		for _, in := range tce.SelectElements("inputNode") {
			v, err := readValue(in)
			if err != nil && tc.err == "" {
				tc.err = fmt.Sprintf("input %q: %v", in.SelectAttrValue("name", ""), err)
			}
			tc.inputs[in.SelectAttrValue("name", "")] = v
		}
		for _, rn := range tce.SelectElements("resultNode") {
			r := resultNode{name: rn.SelectAttrValue("name", ""), errorResult: rn.SelectAttrValue("errorResult", "false") == "true"}
			if ex := rn.SelectElement("expected"); ex != nil {
				r.hasExpected = true
				v, err := readValue(ex)
				if err != nil && tc.err == "" {
					tc.err = fmt.Sprintf("expected value of %q: %v", r.name, err)
				}
				if r.expected, err = feel.ToJSON(v); err != nil && tc.err == "" {
					tc.err = fmt.Sprintf("expected value of %q: %v", r.name, err)
				}
			}
			tc.results = append(tc.results, r)
		}
		tf.cases = append(tf.cases, tc)
	}
	return tf, nil
}

// isNil reports xsi:nil="true" on e.
func isNil(e *etree.Element) bool {
	for _, a := range e.Attr {
		if a.Key == "nil" && (a.NamespaceURI() == xsiNamespace || a.Space == "xsi") {
			return a.Value == "true" || a.Value == "1"
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

// readValue reads a TCK valueType: a <value>, <component>s (a context) or
// a <list> of <item>s, as FEEL-native values (numbers as json.Number,
// temporal values through FEEL's conversion functions).
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

func readScalar(v *etree.Element) (any, error) {
	if isNil(v) {
		return nil, nil
	}
	text := textContent(v)
	switch t := xsiType(v); t {
	case "decimal", "double", "float", "integer", "int", "long", "short", "byte",
		"nonNegativeInteger", "positiveInteger", "negativeInteger", "nonPositiveInteger":
		s := strings.TrimSpace(text)
		if _, _, err := apd.NewFromString(s); err != nil {
			return nil, fmt.Errorf("%q is not a %s", s, t)
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
	case "date", "dateTime", "time", "duration", "dayTimeDuration", "yearMonthDuration":
		return temporal(t, strings.TrimSpace(text))
	case "string", "":
		return text, nil
	default:
		return nil, fmt.Errorf("xsi:type %q is not supported", t)
	}
}

var (
	convOnce  sync.Once
	convProgs map[string]*feel.Program
)

// temporal converts an XML Schema temporal literal with FEEL's conversion
// function.
func temporal(xsdType, text string) (any, error) {
	convOnce.Do(func() {
		convProgs = map[string]*feel.Program{}
		for t, fn := range map[string]string{
			"date": "date", "dateTime": "date and time", "time": "time",
			"duration": "duration", "dayTimeDuration": "duration", "yearMonthDuration": "duration",
		} {
			convProgs[t], _ = feel.CompileWith(fn+"(v)", feel.Options{})
		}
	})
	p := convProgs[xsdType]
	if p == nil {
		return nil, fmt.Errorf("FEEL cannot convert %s values", xsdType)
	}
	v, err := p.EvalValue(scope{"v": text})
	if err != nil {
		return nil, err
	}
	if v == nil {
		return nil, fmt.Errorf("%q is not a valid %s", text, xsdType)
	}
	return v, nil
}

// scope is a FEEL scope over a map.
type scope map[string]any

func (s scope) Lookup(name string) (any, bool) {
	v, ok := s[name]
	return v, ok
}
