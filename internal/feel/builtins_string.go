package feel

import (
	"regexp"
	"strings"
	"sync"
)

// String functions beyond the core ones in builtins.go. Patterns are XML
// Schema / XPath regular expressions, run by Go's RE2 engine (linear
// time); the flags s, m, i, x and q are supported.

func init() {
	register("substring before", "string, match", 2, 2, func(_ *evaluator, a []any) any {
		s, ok1 := a[0].(string)
		m, ok2 := a[1].(string)
		if !ok1 || !ok2 {
			return nil
		}
		if i := strings.Index(s, m); i >= 0 {
			return s[:i]
		}
		return ""
	})
	register("substring after", "string, match", 2, 2, func(_ *evaluator, a []any) any {
		s, ok1 := a[0].(string)
		m, ok2 := a[1].(string)
		if !ok1 || !ok2 {
			return nil
		}
		if i := strings.Index(s, m); i >= 0 {
			return s[i+len(m):]
		}
		return ""
	})
	register("matches", "input, pattern, flags", 2, 3, func(_ *evaluator, a []any) any {
		s, ok := a[0].(string)
		re := regexArg(a[1:])
		if !ok || re == nil {
			return nil
		}
		return re.MatchString(s)
	})
	register("replace", "input, pattern, replacement, flags", 3, 4, fnReplace)
	register("split", "string, delimiter", 2, 2, func(_ *evaluator, a []any) any {
		s, ok := a[0].(string)
		re := regexArg(a[1:2])
		if !ok || re == nil || re.MatchString("") {
			return nil
		}
		parts := re.Split(s, -1)
		out := make([]any, len(parts))
		for i, p := range parts {
			out[i] = p
		}
		return out
	})
	register("string join", "list, delimiter", 1, 2, fnStringJoin)
}

// regexArg compiles pattern a[0] with the optional flags a[1]; nil when
// either is invalid.
func regexArg(a []any) *regexp.Regexp {
	pat, ok := a[0].(string)
	if !ok {
		return nil
	}
	flags := ""
	if len(a) > 1 && a[1] != nil {
		if flags, ok = a[1].(string); !ok {
			return nil
		}
	}
	return compileRegex(pat, flags)
}

var (
	regexCache   sync.Map // pattern "\x00" flags → *regexp.Regexp
	regexCacheMu sync.Mutex
	regexCount   int
)

// compileRegex translates an XPath pattern and flags to Go syntax.
func compileRegex(pat, flags string) *regexp.Regexp {
	if len(pat) > 4096 {
		return nil
	}
	key := pat + "\x00" + flags
	if v, ok := regexCache.Load(key); ok {
		return v.(*regexp.Regexp)
	}
	prefix := ""
	for _, f := range flags {
		switch f {
		case 's', 'm', 'i':
			if !strings.ContainsRune(prefix, f) {
				prefix += string(f)
			}
		case 'x':
			pat = stripRegexSpace(pat)
		case 'q':
			pat = regexp.QuoteMeta(pat)
		default:
			return nil
		}
	}
	if prefix != "" {
		pat = "(?" + prefix + ")" + pat
	}
	re, err := regexp.Compile(pat)
	if err != nil {
		return nil
	}
	regexCacheMu.Lock()
	if regexCount < 512 {
		regexCount++
		regexCache.Store(key, re)
	}
	regexCacheMu.Unlock()
	return re
}

// stripRegexSpace removes white space outside character classes (flag x).
func stripRegexSpace(p string) string {
	var b strings.Builder
	inClass := false
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c == '\\' && i+1 < len(p):
			b.WriteByte(c)
			i++
			b.WriteByte(p[i])
			continue
		case c == '[':
			inClass = true
		case c == ']':
			inClass = false
		case !inClass && (c == ' ' || c == '\t' || c == '\n' || c == '\r'):
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

func fnReplace(ev *evaluator, a []any) any {
	s, ok1 := a[0].(string)
	repl, ok2 := a[2].(string)
	args := []any{a[1]}
	if len(a) > 3 {
		args = append(args, a[3])
	}
	re := regexArg(args)
	if !ok1 || !ok2 || re == nil || re.MatchString("") {
		return nil
	}
	tmpl, ok := xpathReplacement(repl, re.NumSubexp())
	if !ok {
		return nil
	}
	if int64(len(s))*int64(len(tmpl)+1) > 64<<20 {
		return ev.fail(errStringTooLong)
	}
	out := re.ReplaceAllString(s, tmpl)
	if len(out) > maxStringLen {
		return ev.fail(errStringTooLong)
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
	l, ok := a[0].([]any)
	if !ok {
		return nil
	}
	sep := ""
	if len(a) > 1 && a[1] != nil {
		if sep, ok = a[1].(string); !ok {
			return nil
		}
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
			return nil
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
	return b.String()
}
