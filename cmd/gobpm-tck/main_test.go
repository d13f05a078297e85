package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const model = `<definitions xmlns="https://www.omg.org/spec/DMN/20230324/MODEL/" id="m" name="m" namespace="urn:m">
  <decision id="d" name="Answer"><literalExpression><text>42</text></literalExpression></decision>
</definitions>`

func tests(expected string) string {
	return `<testCases xmlns="http://www.omg.org/spec/DMN/20160719/testcase" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema">
<modelName>0001-answer.dmn</modelName>
<testCase id="001"><resultNode name="Answer"><expected><value xsi:type="xsd:decimal">` + expected + `</value></expected></resultNode></testCase>
</testCases>`
}

func setup(t *testing.T, expected string) (root, dir string) {
	t.Helper()
	root = t.TempDir()
	dir = filepath.Join(root, "level", "0001-answer")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string]string{"0001-answer.dmn": model, "0001-answer-test-01.xml": tests(expected)} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root, filepath.Join(root, "level")
}

func TestRunPasses(t *testing.T) {
	t.Parallel()
	root, dir := setup(t, "42")
	var out, errOut bytes.Buffer
	if code := run([]string{dir}, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s %s", code, out.String(), errOut.String())
	}
	if out.String() != "1 passed, 0 failed\n" {
		t.Errorf("stdout = %q", out.String())
	}
	// Without -o nothing is written, neither beside DIR nor inside it.
	var files []string
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			files = append(files, p)
		}
		return nil
	})
	if len(files) != 2 {
		t.Errorf("files after the run: %v", files)
	}
	outFile := filepath.Join(t.TempDir(), "results.csv")
	out.Reset()
	if code := run([]string{"-v", "-o", outFile, dir}, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s %s", code, out.String(), errOut.String())
	}
	if !strings.Contains(out.String(), "level/0001-answer") || !strings.Contains(out.String(), "1 passed,    0 failed") {
		t.Errorf("-v stdout = %q", out.String())
	}
	csv, err := os.ReadFile(outFile)
	if err != nil {
		t.Fatal(err)
	}
	if string(csv) != `"level/0001-answer","0001-answer-test-01","001","SUCCESS",""`+"\n" {
		t.Errorf("csv = %q", csv)
	}
}

func TestRunFails(t *testing.T) {
	t.Parallel()
	_, dir := setup(t, "41")
	outFile := filepath.Join(t.TempDir(), "results.csv")
	var out, errOut bytes.Buffer
	if code := run([]string{"-o", outFile, dir}, &out, &errOut); code != 1 {
		t.Fatalf("exit %d, want 1", code)
	}
	if !strings.Contains(out.String(), "FAIL level/0001-answer/0001-answer-test-01/001: Answer: expected 41, got 42 (value)") ||
		!strings.HasSuffix(out.String(), "0 passed, 1 failed\n") {
		t.Errorf("stdout = %q", out.String())
	}
	if csv, err := os.ReadFile(outFile); err != nil || !strings.Contains(string(csv), `"ERROR"`) {
		t.Errorf("csv = %q, %v", csv, err)
	}
}

func TestUsage(t *testing.T) {
	t.Parallel()
	var out, errOut bytes.Buffer
	if code := run(nil, &out, &errOut); code != 2 || !strings.Contains(errOut.String(), "usage") {
		t.Errorf("exit %d, stderr %q", code, errOut.String())
	}
	if code := run([]string{"/does/not/exist"}, &out, &errOut); code != 2 {
		t.Errorf("missing dir: exit %d", code)
	}
}
