package layering

import (
	"bufio"
	"errors"
	"go/build"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// module is the module path every project import starts with.
const module = "github.com/gobpm/gobpm"

// root is the module's folder, seen from this package's folder.
const root = "../.."

// rootName is how the table names the module's root package.
const rootName = "."

var backticked = regexp.MustCompile("`([^`]+)`")

// documentedImports reads the table under "## Packages" in
// docs/architecture.md: package path(s) → the project packages they import.
func documentedImports(t *testing.T) map[string][]string {
	t.Helper()
	f, err := os.Open(filepath.Join(root, "docs", "architecture.md"))
	if err != nil {
		t.Fatalf("open the architecture page: %v", err)
	}
	defer f.Close()
	table := map[string][]string{}
	inSection := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "## ") {
			inSection = line == "## Packages"
			continue
		}
		if !inSection || !strings.HasPrefix(line, "| `") {
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		if len(cells) != 3 {
			t.Fatalf("architecture.md: a package row has %d cells, want 3: %s", len(cells), line)
		}
		var imports []string
		for _, m := range backticked.FindAllStringSubmatch(cells[2], -1) {
			imports = append(imports, resolve(m[1]))
		}
		slices.Sort(imports)
		for _, m := range backticked.FindAllStringSubmatch(cells[0], -1) {
			if _, dup := table[m[1]]; dup {
				t.Fatalf("architecture.md lists %s twice", m[1])
			}
			table[m[1]] = imports
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("read the architecture page: %v", err)
	}
	if len(table) == 0 {
		t.Fatal("architecture.md has no package table under ## Packages")
	}
	return table
}

// resolve turns a name of the imports column into a package path relative
// to the module: "api" is internal/api, "web/templates" is itself, "." is
// the root package.
func resolve(name string) string {
	if name == rootName {
		return rootName
	}
	if st, err := os.Stat(filepath.Join(root, "internal", name)); err == nil && st.IsDir() {
		return "internal/" + name
	}
	return name
}

// actualImports lists every package of the module that has non-test Go
// files, with the project packages its non-test files import.
func actualImports(t *testing.T) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		name := d.Name()
		if path != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "node_modules") {
			return filepath.SkipDir
		}
		pkg, err := build.Default.ImportDir(path, 0)
		var noGo *build.NoGoError
		if errors.As(err, &noGo) {
			return nil
		}
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		var own []string
		for _, imp := range pkg.Imports {
			switch {
			case imp == module:
				own = append(own, rootName)
			case strings.HasPrefix(imp, module+"/"):
				own = append(own, strings.TrimPrefix(imp, module+"/"))
			}
		}
		slices.Sort(own)
		out[filepath.ToSlash(rel)] = own
		return nil
	})
	if err != nil {
		t.Fatalf("walk the module: %v", err)
	}
	return out
}

// TestImportsMatchTheArchitectureTable fails when a package imports a
// project package its row in docs/architecture.md does not list, when a row
// lists one it no longer imports, and when a package has no row.
func TestImportsMatchTheArchitectureTable(t *testing.T) {
	documented := documentedImports(t)
	actual := actualImports(t)
	for pkg, imports := range actual {
		want, ok := documented[pkg]
		if !ok {
			t.Errorf("%s has no row in docs/architecture.md's package table (it imports %v)", pkg, imports)
			continue
		}
		if !slices.Equal(want, imports) {
			t.Errorf("%s imports %v, but docs/architecture.md lists %v", pkg, imports, want)
		}
	}
	for pkg := range documented {
		if _, ok := actual[pkg]; !ok {
			t.Errorf("docs/architecture.md lists %s, which is not a package with non-test Go files", pkg)
		}
	}
}

// TestLayerRules checks the rules the architecture page states in words,
// so that a row edited to match a new import still cannot break them.
func TestLayerRules(t *testing.T) {
	actual := actualImports(t)
	pure := []string{"internal/engine", "internal/scope", "internal/bpmn", "internal/dmn", "internal/expr",
		"internal/feel", "internal/juel", "internal/timer", "internal/xmldoc"}
	for _, pkg := range pure {
		for _, imp := range actual[pkg] {
			if !slices.Contains(pure, imp) {
				t.Errorf("%s is part of the pure core but imports %s", pkg, imp)
			}
		}
	}
	for _, edge := range []string{"internal/api", "internal/cockpit"} {
		for _, imp := range actual[edge] {
			if imp == "internal/engine" || strings.HasPrefix(imp, "internal/store") ||
				imp == "internal/api" || imp == "internal/cockpit" {
				t.Errorf("%s must reach the runtime only through its Service interface, but imports %s", edge, imp)
			}
		}
	}
	for _, imp := range actual["internal/runtime"] {
		if strings.HasPrefix(imp, "internal/store/") || imp == "internal/api" || imp == "internal/cockpit" {
			t.Errorf("internal/runtime must not import %s", imp)
		}
	}
	for _, imp := range actual["internal/store"] {
		if !slices.Contains(pure, imp) {
			t.Errorf("internal/store is the storage contract, a leaf above the pure core, but imports %s", imp)
		}
	}
	for pkg, imports := range actual {
		if !strings.HasPrefix(pkg, "internal/store/") {
			continue
		}
		for _, imp := range imports {
			if imp == "internal/runtime" || imp == "internal/api" || imp == "internal/cockpit" {
				t.Errorf("%s is beneath the storage contract but imports %s", pkg, imp)
			}
		}
	}
	// The drivers are the store implementations: the runtime gets one
	// handed in, by cmd/ or by the test helpers (driverPickers).
	drivers := []string{"internal/store/sqlite", "internal/store/postgres"}
	driverPickers := []string{"gobpmtest", "internal/testdb"}
	for pkg, imports := range actual {
		if strings.HasPrefix(pkg, "cmd/") || slices.Contains(driverPickers, pkg) {
			continue
		}
		for _, imp := range imports {
			if slices.Contains(drivers, imp) {
				t.Errorf("%s imports the driver %s: only cmd/, %v and tests pick a driver", pkg, imp, driverPickers)
			}
		}
	}
}
