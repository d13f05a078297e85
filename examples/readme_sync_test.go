package examples_test

import (
	"os"
	"strings"
	"testing"
)

// TestREADMEQuotesTestedCode checks that the README's "From Go" snippets
// are the tested code, verbatim (tabs and all), so they cannot drift.
func TestREADMEQuotesTestedCode(t *testing.T) {
	t.Parallel()
	readme := mustRead(t, "../README.md")
	tests := []struct {
		file, from, to string
		dedent         bool
	}{
		{"readme_test.go", "func TestFulfilmentShips", "\n}\n", false},
		{"../client/example_test.go", "\tc, _ := client.New(", "\n\n", true},
	}
	for _, tt := range tests {
		src := mustRead(t, tt.file)
		i := strings.Index(src, tt.from)
		if i < 0 {
			t.Fatalf("%s: no %q", tt.file, tt.from)
		}
		j := strings.Index(src[i:], tt.to)
		if j < 0 {
			t.Fatalf("%s: no end after %q", tt.file, tt.from)
		}
		snippet := src[i : i+j+1]
		if tt.dedent {
			snippet = strings.ReplaceAll("\n"+snippet, "\n\t", "\n")[1:]
		}
		if !strings.Contains(readme, snippet) {
			t.Errorf("README.md does not quote %s verbatim:\n%s", tt.file, snippet)
		}
	}
}

func mustRead(tb testing.TB, path string) string {
	tb.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	return string(b)
}
