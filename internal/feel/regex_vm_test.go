package feel

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// rxPattern draws a small RE2 pattern over a, b and newlines, with every
// construct the translation of XPath patterns produces.
func rxPattern(depth int) *rapid.Generator[string] {
	return rapid.Custom(func(t *rapid.T) string {
		if depth <= 0 {
			return rapid.SampledFrom([]string{"a", "b", ".", "[ab]", "[^a]", `\n`, "^", "$", "ab", "(?:)"}).Draw(t, "atom")
		}
		sub := rxPattern(depth - 1)
		switch rapid.IntRange(0, 9).Draw(t, "op") {
		case 0:
			return sub.Draw(t, "x") + sub.Draw(t, "y")
		case 1:
			return sub.Draw(t, "x") + "|" + sub.Draw(t, "y")
		case 2:
			return "(" + sub.Draw(t, "x") + ")*"
		case 3:
			return "(?:" + sub.Draw(t, "x") + ")+?"
		case 4:
			return "(" + sub.Draw(t, "x") + ")?"
		case 5:
			return "(?:" + sub.Draw(t, "x") + "){1,3}"
		case 6:
			return "(" + sub.Draw(t, "x") + ")"
		case 7:
			return "(?m:" + sub.Draw(t, "x") + ")"
		case 8:
			return "(?i:" + sub.Draw(t, "x") + ")"
		default:
			return "(?:" + sub.Draw(t, "x") + ")*"
		}
	})
}

// TestPropVMAgreesWithRegexp: the budgeted Pike VM finds exactly the
// matches (and groups) Go's regexp finds, and splits and replaces alike.
func TestPropVMAgreesWithRegexp(t *testing.T) {
	t.Parallel()
	unlimited := func(int) bool { return true }
	rapid.Check(t, func(t *rapid.T) {
		pat := rxPattern(3).Draw(t, "pattern")
		s := rapid.StringOf(rapid.SampledFrom([]rune{'a', 'b', 'A', '\n', 'é'})).Draw(t, "input")
		want := regexp.MustCompile(pat)
		vm, err := compileVM(pat)
		if err != nil {
			t.Fatalf("compileVM(%q): %v", pat, err)
		}
		got, err := findAll(vm, s, unlimited)
		if err != nil {
			t.Fatal(err)
		}
		if w := want.FindAllStringSubmatchIndex(s, -1); !slices.EqualFunc(got, w, slices.Equal) && !(len(got) == 0 && len(w) == 0) {
			t.Fatalf("%q on %q: VM %v, regexp %v", pat, s, got, w)
		}
		if ok, _ := matchString(vm, s, unlimited); ok != want.MatchString(s) {
			t.Fatalf("%q on %q: VM matches %v, regexp %v", pat, s, ok, !ok)
		}
		if parts, _ := splitAll(vm, s, unlimited); !slices.Equal(parts, want.Split(s, -1)) {
			t.Fatalf("split %q by %q: VM %q, regexp %q", s, pat, parts, want.Split(s, -1))
		}
		tmpl := "<${1}$$>"
		if out, _ := replaceAll(vm, s, tmpl, unlimited); out != want.ReplaceAllString(s, tmpl) {
			t.Fatalf("replace %q in %q: VM %q, regexp %q", pat, s, out, want.ReplaceAllString(s, tmpl))
		}
	})
}

// TestVMStopsWhenTheBudgetIsGone: a search refused by its budget fails
// with errSpent rather than reading as "no match".
func TestVMStopsWhenTheBudgetIsGone(t *testing.T) {
	t.Parallel()
	vm, err := compileVM(`a*b|a`)
	if err != nil {
		t.Fatal(err)
	}
	spent := 0
	_, err = findAll(vm, strings.Repeat("a", 10000), func(n int) bool { spent += n; return spent < 1000 })
	if err != errSpent {
		t.Fatalf("findAll = %v, want errSpent", err)
	}
	if spent > 1000+maxRegexInsts {
		t.Fatalf("spent %d steps after the budget of 1000 was refused", spent)
	}
}
