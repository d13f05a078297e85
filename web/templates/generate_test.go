package templates_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestGeneratedCodeIsCurrent regenerates the components into a temporary
// copy with the templ version go.mod pins (as `make generate` does) and
// fails when a committed *_templ.go differs: run `make generate`.
func TestGeneratedCodeIsCurrent(t *testing.T) {
	if testing.Short() {
		t.Skip("regenerating templ components builds the templ command; skipped with -short")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("the go command is not on PATH")
	}
	out, err := exec.Command(goBin, "list", "-m", "-f", "{{.Version}}", "github.com/a-h/templ").Output()
	if err != nil {
		t.Fatalf("templ version from go.mod: %v", err)
	}
	version := strings.TrimSpace(string(out))

	sources, err := filepath.Glob("*.templ")
	if err != nil || len(sources) == 0 {
		t.Fatalf("no templ sources: %v", err)
	}
	tmp := t.TempDir()
	for _, src := range sources {
		data, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(tmp, src), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(goBin, "run", "github.com/a-h/templ/cmd/templ@"+version, "generate", "-path", tmp)
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("templ generate: %v\n%s", err, msg)
	}
	for _, src := range sources {
		gen := strings.TrimSuffix(src, ".templ") + "_templ.go"
		want, err := os.ReadFile(filepath.Join(tmp, gen))
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(gen)
		if err != nil {
			t.Errorf("%s is missing: run make generate", gen)
			continue
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is stale: run make generate and commit it", gen)
		}
	}
	// No generated file without its source.
	generated, _ := filepath.Glob("*_templ.go")
	if len(generated) != len(sources) {
		t.Errorf("%d generated files for %d sources: remove the stale ones", len(generated), len(sources))
	}
}
