package feel

import (
	"strings"
)

// String functions beyond the core ones in builtins.go. Patterns are XML
// Schema / XPath regular expressions (see regex.go).

func init() {
	register("substring before", "string:string, match:string", func(_ *evaluator, a []any) any {
		s, m := a[0].(string), a[1].(string)
		if i := strings.Index(s, m); i >= 0 {
			return s[:i]
		}
		return ""
	})
	register("substring after", "string:string, match:string", func(_ *evaluator, a []any) any {
		s, m := a[0].(string), a[1].(string)
		if i := strings.Index(s, m); i >= 0 {
			return s[i+len(m):]
		}
		return ""
	})
	register("matches", "input:string, pattern:string, [flags:string?]", func(ev *evaluator, a []any) any {
		re := ev.regexArg("matches", a[1:])
		if re == nil {
			return nil
		}
		ok, err := matchString(re, a[0].(string), ev.tick)
		if err != nil {
			return ev.fail(err)
		}
		return ok
	})
	register("replace", "input:string, pattern:string, replacement:string, [flags:string?]", fnReplace)
	register("split", "string:string, delimiter:string", func(ev *evaluator, a []any) any {
		re := ev.regexArg("split", a[1:2])
		if re == nil {
			return nil
		}
		if empty, err := matchString(re, "", ev.tick); empty || err != nil {
			if err != nil {
				return ev.fail(err)
			}
			return ev.errorf("split: the delimiter %q matches the empty string", a[1])
		}
		parts, err := splitAll(re, a[0].(string), ev.tick)
		if err != nil {
			return ev.fail(err)
		}
		if !ev.tick(len(parts)) {
			return nil
		}
		out := make([]any, len(parts))
		for i, p := range parts {
			out[i] = p
		}
		return out
	})
	register("string join", "list:list, [delimiter:string?]", fnStringJoin)
}

// regexArg compiles pattern a[0] with the optional flags a[1], recording
// an error when either is invalid, and pays for compiling it (whether
// the compiled pattern was cached or not, so the budget never depends on
// the cache).
func (ev *evaluator) regexArg(name string, a []any) matcher {
	pat := a[0].(string)
	flags := ""
	if len(a) > 1 && a[1] != nil {
		flags = a[1].(string)
	}
	re, err := compileRegex(pat, flags)
	if err != nil {
		ev.errorf("%s: invalid regular expression %q: %v", name, pat, err)
		return nil
	}
	if !ev.tick(re.cost()) {
		return nil
	}
	return re
}

func fnReplace(ev *evaluator, a []any) any {
	s, repl := a[0].(string), a[2].(string)
	args := []any{a[1]}
	if len(a) > 3 {
		args = append(args, a[3])
	}
	re := ev.regexArg("replace", args)
	if re == nil {
		return nil
	}
	if empty, err := matchString(re, "", ev.tick); empty || err != nil {
		if err != nil {
			return ev.fail(err)
		}
		return ev.errorf("replace: the pattern %q matches the empty string", a[1])
	}
	literal := len(a) > 3 && a[3] != nil && strings.ContainsRune(a[3].(string), 'q')
	var tmpl string
	if literal {
		tmpl = strings.ReplaceAll(repl, "$", "$$")
	} else {
		var ok bool
		if tmpl, ok = xpathReplacement(repl, re.numSubexp()); !ok {
			return ev.errorf("replace: invalid replacement %q", repl)
		}
	}
	out, err := replaceAll(re, s, tmpl, ev.tick)
	if err != nil {
		return ev.fail(err)
	}
	if !ev.tick(textCost(len(out))) {
		return nil
	}
	return out
}

// xpathReplacement converts an XPath replacement ($1 groups, \$ and \\
// escapes) to a Go template.
func xpathReplacement(r string, groups int) (string, bool) {
	var b strings.Builder
	for i := 0; i < len(r); i++ {
		c := r[i]
		switch c {
		case '\\':
			if i+1 >= len(r) || (r[i+1] != '\\' && r[i+1] != '$') {
				return "", false
			}
			i++
			if r[i] == '$' {
				b.WriteString("$$")
			} else {
				b.WriteByte('\\')
			}
		case '$':
			j := i + 1
			if j >= len(r) || !isDigit(r[j]) {
				return "", false
			}
			n := int(r[j] - '0')
			j++
			for j < len(r) && isDigit(r[j]) && n*10+int(r[j]-'0') <= groups {
				n = n*10 + int(r[j]-'0')
				j++
			}
			if n <= groups {
				b.WriteString("${" + itoa(n) + "}")
			}
			i = j - 1
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), true
}

func itoa(n int) string { return intDec(n).String() }

func fnStringJoin(ev *evaluator, a []any) any {
	l := a[0].([]any)
	sep := ""
	if len(a) > 1 && a[1] != nil {
		sep = a[1].(string)
	}
	var b strings.Builder
	first := true
	for _, el := range l {
		el = norm(el)
		if el == nil {
			continue
		}
		s, ok := el.(string)
		if !ok {
			return ev.errorf("string join: the list holds a %s, not only strings", typeName(el))
		}
		if !first {
			b.WriteString(sep)
		}
		first = false
		b.WriteString(s)
		if b.Len() > maxStringLen {
			return ev.fail(errStringTooLong)
		}
	}
	if !ev.tick(len(l) + textCost(b.Len())) {
		return nil
	}
	return b.String()
}
