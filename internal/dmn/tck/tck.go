package tck

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/gobpm/gobpm/internal/dmn"
)

// Status is the outcome of one test case, spelled as the TCK's
// tck_results.csv and its reporter spell it.
type Status string

// The statuses a test case can end with.
const (
	// Success: every result node produced the expected value (and, where
	// errorResult is true, an error).
	Success Status = "SUCCESS"
	// Error: a result differed from the expected one, the model did not
	// load, or the test could not be run. The TCK reporter knows no
	// separate FAILURE status; Detail tells which it was.
	Error Status = "ERROR"
)

// MaxTestFileSize bounds the size of a test case or model file.
const MaxTestFileSize = 10 << 20

// evalTime is the clock of now() and today() in every evaluation, so that
// runs are repeatable. The TCK's now/today tests only check types and
// plausible ranges.
var evalTime = time.Date(2026, time.March, 15, 10, 30, 0, 0, time.UTC)

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

// Passed counts the test cases that succeeded.
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

// FolderResult counts the cases of one test folder.
type FolderResult struct {
	Folder         string
	Passed, Failed int
}

// Folders counts passed and failed cases per folder, in folder order.
func (r *Report) Folders() []FolderResult {
	var out []FolderResult
	for _, c := range r.Cases {
		if len(out) == 0 || out[len(out)-1].Folder != c.Folder {
			out = append(out, FolderResult{Folder: c.Folder})
		}
		f := &out[len(out)-1]
		if c.Status == Success {
			f.Passed++
		} else {
			f.Failed++
		}
	}
	return out
}

// WriteCSV writes the results in the TCK's tck_results.csv format: one
// line per test case, no header, every field quoted:
// "folder","test file","test id","SUCCESS|ERROR","detail".
func (r *Report) WriteCSV(w io.Writer) error {
	// encoding/csv quotes only when needed; the TCK's files quote every
	// field, so lines are written by hand with the same escaping.
	var b strings.Builder
	for _, c := range r.Cases {
		fields := []string{c.Folder, c.File, c.ID, string(c.Status), oneLine(c.Detail)}
		for i, f := range fields {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(`"` + strings.ReplaceAll(f, `"`, `""`) + `"`)
		}
		b.WriteByte('\n')
	}
	_, err := io.WriteString(w, b.String())
	return err
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

// Run walks fsys and runs every folder holding .dmn models and TCK test
// case files (*-test-NN.xml). base names the root in CaseResult.Folder.
// The models of a folder are loaded together, so that they may import
// one another; each test file names the one it tests (modelName).
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
		sort.Strings(models[dir])
		set := loadModels(fsys, dir, models[dir])
		key := folderKey(base, dir)
		for _, f := range files {
			rep.Cases = append(rep.Cases, runFile(fsys, dir, f, key, set)...)
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

// modelSet holds the models of one folder, loaded together.
type modelSet struct {
	names []string
	defs  map[string]*dmn.Definitions // by file name
	errs  map[string]error            // by file name
}

func loadModels(fsys fs.FS, dir string, names []string) *modelSet {
	set := &modelSet{names: names, defs: map[string]*dmn.Definitions{}, errs: map[string]error{}}
	var docs []dmn.Document
	for _, n := range names {
		b, err := readFile(fsys, path.Join(dir, n))
		if err != nil {
			set.errs[n] = err
			continue
		}
		docs = append(docs, dmn.Document{Name: n, Data: b})
	}
	defs, errs := dmn.ParseAll(docs...)
	for i, doc := range docs {
		if errs[i] != nil {
			set.errs[doc.Name] = errs[i]
			continue
		}
		set.defs[doc.Name] = defs[i]
	}
	return set
}

// runFile runs the test cases of one test file.
func runFile(fsys fs.FS, dir, file, key string, set *modelSet) []CaseResult {
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
	if model == "" || !contains(set.names, model) {
		if len(set.names) != 1 {
			return tf.all(key, fileKey, fmt.Sprintf("cannot tell which model the tests use (modelName %q; models %s)", tf.modelName, strings.Join(set.names, ", ")))
		}
		model = set.names[0]
	}
	if err := set.errs[model]; err != nil {
		return tf.all(key, fileKey, fmt.Sprintf("model %s: %v", model, err))
	}
	defs := set.defs[model]
	out := make([]CaseResult, 0, len(tf.cases))
	for _, tc := range tf.cases {
		cr := CaseResult{Folder: key, File: fileKey, ID: tc.id, Status: Success}
		if detail := runCase(defs, tc); detail != "" {
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

// request builds the evaluation request of tc: input nodes without a
// namespace (or with the tested model's) are the model's own inputs,
// others belong to the imported model of that namespace.
func request(defs *dmn.Definitions, tc testCase) dmn.Request {
	req := dmn.Request{Inputs: map[string]any{}, Now: evalTime}
	for _, in := range tc.inputs {
		if in.ns == "" || in.ns == defs.Namespace {
			req.Inputs[in.name] = in.value
			continue
		}
		if req.Imported == nil {
			req.Imported = map[string]map[string]any{}
		}
		if req.Imported[in.ns] == nil {
			req.Imported[in.ns] = map[string]any{}
		}
		req.Imported[in.ns][in.name] = in.value
	}
	return req
}

// runCase evaluates every result node of tc; it returns "" when all match,
// else what differed.
//
// A decision case evaluates the decision each result node names. A
// decisionService case evaluates the decision service invocableName once,
// and each result node names one of its output decisions. A result node
// with errorResult="true" passes only when the evaluation reported an
// error; its expected value (when given) must match as well.
func runCase(defs *dmn.Definitions, tc testCase) string {
	if tc.err != "" {
		return tc.err
	}
	var problems []string
	switch tc.kind {
	case "decision":
		for _, rn := range tc.results {
			req := request(defs, tc)
			req.Decision = rn.name
			res, err := defs.EvaluateRequest(req)
			if err != nil {
				problems = append(problems, fmt.Sprintf("%s: %v", rn.name, err))
				continue
			}
			if p := check(rn, res.Native, res); p != "" {
				problems = append(problems, p)
			}
		}
	case "decisionService":
		req := request(defs, tc)
		req.Service = tc.invocableName
		res, err := defs.EvaluateRequest(req)
		if err != nil {
			return fmt.Sprintf("%s: %v", tc.invocableName, err)
		}
		for _, rn := range tc.results {
			v, ok := res.Outputs[rn.name]
			if !ok {
				problems = append(problems, fmt.Sprintf("%s: decision service %s has no output decision of that name", rn.name, tc.invocableName))
				continue
			}
			if p := check(rn, v, res); p != "" {
				problems = append(problems, p)
			}
		}
	default:
		return fmt.Sprintf("test case type %q is not supported", tc.kind)
	}
	return strings.Join(problems, "; ")
}

// check compares one result node with the value an evaluation produced.
func check(rn resultNode, actual any, res dmn.Result) string {
	if rn.errorResult && len(res.Errors) == 0 {
		return fmt.Sprintf("%s: expected an error, got %s and no error", rn.name, render(actual))
	}
	if !rn.hasExpected {
		return ""
	}
	if why := compare(rn.expected, actual); why != "" {
		msg := fmt.Sprintf("%s: expected %s, got %s (%s)", rn.name, render(rn.expected), render(actual), why)
		if len(res.Errors) > 0 {
			msg += "; errors: " + res.Err().Error()
		}
		return msg
	}
	return ""
}
