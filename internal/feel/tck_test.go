package feel

import (
	"html"
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

// TestTCKExpressionsCompile compiles every FEEL text of the DMN TCK
// compliance-level-2 models (input entries as unary tests, with the
// model's names as Options.Names). It skips when the TCK is not present.
func TestTCKExpressionsCompile(t *testing.T) {
	files, _ := filepath.Glob("../../../shared/conformance/dmn-tck/compliance-level-2/*/*.dmn")
	if len(files) == 0 {
		t.Skip("DMN TCK not found")
	}
	nameRe := regexp.MustCompile(`name="([^"]*)"`)
	inRe := regexp.MustCompile(`(?s)<(?:\w+:)?inputEntry[^>]*>\s*<(?:\w+:)?text>(.*?)</(?:\w+:)?text>`)
	exRe := regexp.MustCompile(`(?s)<(?:\w+:)?(?:outputEntry|literalExpression|inputExpression)[^>]*>\s*<(?:\w+:)?text>(.*?)</(?:\w+:)?text>`)
	total := 0
	for _, f := range files {
		b, _ := os.ReadFile(f)
		var names []string
		for _, m := range nameRe.FindAllStringSubmatch(string(b), -1) {
			names = append(names, html.UnescapeString(m[1]))
		}
		for _, m := range inRe.FindAllStringSubmatch(string(b), -1) {
			total++
			if _, err := CompileUnaryTests(html.UnescapeString(m[1]), Options{Names: names}); err != nil {
				t.Errorf("%s: unary %q: %v", filepath.Base(f), m[1], err)
			}
		}
		for _, m := range exRe.FindAllStringSubmatch(string(b), -1) {
			total++
			if _, err := CompileWith(html.UnescapeString(m[1]), Options{Names: names}); err != nil {
				t.Errorf("%s: expr %q: %v", filepath.Base(f), m[1], err)
			}
		}
	}
	t.Logf("%d texts", total)
}
