package bpmn

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// conformanceDir finds shared/conformance next to the repository root by
// walking up from the package directory. It skips the test when the folder is
// absent, unless CI=true, where absence fails.
func conformanceDir(tb testing.TB) string {
	tb.Helper()
	dir, err := filepath.Abs(".")
	if err != nil {
		tb.Fatal(err)
	}
	for {
		cand := filepath.Join(dir, "shared", "conformance")
		if st, err := os.Stat(cand); err == nil && st.IsDir() {
			return cand
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		dir = parent
	}
	if os.Getenv("CI") == "true" {
		tb.Fatal("shared/conformance not found next to the repository (required when CI=true)")
	}
	tb.Skip("shared/conformance not found; skipping conformance models")
	return ""
}

// checkNoPanic parses file and checks the outcome is a model or a
// *ValidationError whose problems all name an element and a rule.
func checkNoPanic(t *testing.T, file string) (*Definitions, *ValidationError) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	defs, err := Parse(data)
	if err == nil {
		if defs == nil || len(defs.Processes) == 0 {
			t.Fatalf("Parse succeeded without processes")
		}
		return defs, nil
	}
	var verr *ValidationError
	if !errors.As(err, &verr) {
		t.Fatalf("Parse error is %T, want *ValidationError: %v", err, err)
	}
	if len(verr.Problems) == 0 {
		t.Fatal("ValidationError without problems")
	}
	for _, p := range verr.Problems {
		if p.Rule == "" || p.Detail == "" {
			t.Errorf("problem without rule or detail: %+v", p)
		}
		if p.Element == "" && !documentLevel[p.Rule] {
			t.Errorf("problem without element: %+v", p)
		}
	}
	return nil, verr
}

// documentLevel lists the rules that concern the whole document and so name
// no element.
var documentLevel = map[Rule]bool{
	RuleMalformed: true, RuleDoctype: true, RuleTooLarge: true, RuleTooDeep: true,
}

func TestConformanceMIWG(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob(filepath.Join(conformanceDir(t), "miwg", "Reference", "*.bpmn"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 21 {
		t.Fatalf("found %d MIWG reference models, want 21", len(files))
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			t.Parallel()
			_, verr := checkNoPanic(t, f)
			if verr != nil {
				t.Logf("rejected: %v", verr)
			}
		})
	}
}

func TestConformanceBpmnModdle(t *testing.T) {
	t.Parallel()
	root := filepath.Join(conformanceDir(t), "bpmn-moddle", "test", "fixtures", "bpmn")
	var files []string
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".bpmn") {
			files = append(files, path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no bpmn-moddle fixtures found")
	}
	for _, f := range files {
		rel, _ := filepath.Rel(root, f)
		t.Run(rel, func(t *testing.T) {
			t.Parallel()
			_, verr := checkNoPanic(t, f)
			if strings.HasPrefix(filepath.ToSlash(rel), "error/") && verr == nil {
				t.Fatal("an error/ fixture parsed without problems")
			}
			if verr != nil {
				t.Logf("rejected: %v", verr)
			}
		})
	}
}
