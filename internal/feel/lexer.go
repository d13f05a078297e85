package feel

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// tokKind classifies a token.
type tokKind uint8

const (
	tokEOF    tokKind = iota
	tokNumber         // 12, 1.5, .5
	tokString         // "text" (text holds the decoded value)
	tokName           // a single word: letters, digits, _ and ?; keywords too
	tokPunct          // operators and brackets: + - * ** / = != < <= > >= ( ) [ ] { } , . .. : ->
	tokAt             // @"…" temporal literal (text holds the decoded string)
)

// token is one lexical unit. Names are mostly single words: a name with
// spaces ("string length", "first name") is assembled by the parser from
// adjacent word tokens. Names known in advance (Options.Names) are matched
// by the lexer as one token, longest first, so they may also contain
// keywords and the characters FEEL allows in names (- + * / ' .).
type token struct {
	kind  tokKind
	text  string // punctuation, the word, the number text or the decoded string
	pos   int    // 0-based byte offset of the token's first byte
	end   int    // 0-based byte offset just past the token
	known bool   // a name matched from Options.Names; never a keyword
}

// keywords are words that can never start or continue a name. The words
// for, some, every, function, instance and of are keywords only where
// their construct starts (see the parser), so they stay usable as names.
var keywords = map[string]bool{
	"true": true, "false": true, "null": true,
	"and": true, "or": true,
	"if": true, "then": true, "else": true,
	"in": true, "between": true,
	"return": true, "satisfies": true,
}

func (t token) isPunct(p string) bool { return t.kind == tokPunct && t.text == p }
func (t token) isWord(w string) bool  { return t.kind == tokName && t.text == w }

// isKeyword reports whether t is a reserved word.
func (t token) isKeyword() bool { return t.kind == tokName && !t.known && keywords[t.text] }

// describe renders t for an error message.
func (t token) describe() string {
	switch t.kind {
	case tokEOF:
		return "end of expression"
	case tokNumber:
		return "number " + t.text
	case tokString:
		s := t.text
		if utf8.RuneCountInString(s) > 20 {
			s = string([]rune(s)[:20]) + "…"
		}
		return "string " + strconv.Quote(s)
	case tokAt:
		return "temporal literal @" + strconv.Quote(t.text)
	case tokName:
		if t.isKeyword() {
			return "keyword " + strconv.Quote(t.text)
		}
		return "name " + strconv.Quote(t.text)
	default:
		return strconv.Quote(t.text)
	}
}

// isNameStart and isNamePart follow FEEL's grammar (DMN 1.5 §10.3.1.2,
// rules 27 and 28): letters of every script, emoji and other symbols of
// the supplementary planes start a name; digits and combining marks may
// continue one.
func isNameStart(r rune) bool {
	switch {
	case r == '?' || r == '_' || (r >= 'A' && r <= 'Z') || (r >= 'a' && r <= 'z'):
		return true
	case r < 0xC0:
		return false
	}
	return (r >= 0xC0 && r <= 0xD6) || (r >= 0xD8 && r <= 0xF6) || (r >= 0xF8 && r <= 0x2FF) ||
		(r >= 0x370 && r <= 0x37D) || (r >= 0x37F && r <= 0x1FFF) || (r >= 0x200C && r <= 0x200D) ||
		(r >= 0x2070 && r <= 0x218F) || (r >= 0x2C00 && r <= 0x2FEF) || (r >= 0x3001 && r <= 0xD7FF) ||
		(r >= 0xF900 && r <= 0xFDCF) || (r >= 0xFDF0 && r <= 0xFFFD) || (r >= 0x10000 && r <= 0xEFFFF)
}

func isNamePart(r rune) bool {
	return isNameStart(r) || (r >= '0' && r <= '9') || r == 0xB7 || (r >= 0x300 && r <= 0x36F) ||
		(r >= 0x203F && r <= 0x2040)
}
func isDigit(b byte) bool { return b >= '0' && b <= '9' }

// lex splits src into tokens, ending with a tokEOF token. names holds
// the multi-word (or otherwise special) names to match as single tokens.
func lex(src string, names *nameSet) ([]token, error) {
	var toks []token
	i := 0
	for {
		// Skip white space and comments.
		for i < len(src) {
			r, size := utf8.DecodeRuneInString(src[i:])
			switch {
			case unicode.IsSpace(r):
				i += size
				continue
			case strings.HasPrefix(src[i:], "//"):
				if nl := strings.IndexByte(src[i:], '\n'); nl >= 0 {
					i += nl + 1
				} else {
					i = len(src)
				}
				continue
			case strings.HasPrefix(src[i:], "/*"):
				end := strings.Index(src[i+2:], "*/")
				if end < 0 {
					return nil, errorAt(i, "unterminated comment")
				}
				i += 2 + end + 2
				continue
			}
			break
		}
		if i >= len(src) {
			toks = append(toks, token{kind: tokEOF, pos: len(src), end: len(src)})
			return toks, nil
		}
		start := i
		c := src[i]
		switch {
		case isDigit(c) || (c == '.' && i+1 < len(src) && isDigit(src[i+1]) && !endsOperand(toks)):
			for i < len(src) && isDigit(src[i]) {
				i++
			}
			// A '.' belongs to the number only when a digit follows, so
			// "1..10" lexes as 1, .., 10.
			if i+1 < len(src) && src[i] == '.' && isDigit(src[i+1]) {
				i++
				for i < len(src) && isDigit(src[i]) {
					i++
				}
			}
			// An exponent: e or E, an optional sign, digits (1.2e3, 5E-2).
			if i < len(src) && (src[i] == 'e' || src[i] == 'E') {
				j := i + 1
				if j < len(src) && (src[j] == '+' || src[j] == '-') {
					j++
				}
				if j < len(src) && isDigit(src[j]) {
					for j < len(src) && isDigit(src[j]) {
						j++
					}
					i = j
				}
			}
			toks = append(toks, token{kind: tokNumber, text: src[start:i], pos: start, end: i})
		case c == '@' && i+1 < len(src) && src[i+1] == '"':
			s, n, err := lexString(src, i+1)
			if err != nil {
				return nil, err
			}
			i = n
			toks = append(toks, token{kind: tokAt, text: s, pos: start, end: i})
		case c == '"':
			s, n, err := lexString(src, i)
			if err != nil {
				return nil, err
			}
			i = n
			toks = append(toks, token{kind: tokString, text: s, pos: start, end: i})
		default:
			r, size := utf8.DecodeRuneInString(src[i:])
			if r == utf8.RuneError && size <= 1 {
				return nil, errorAt(i, "invalid UTF-8")
			}
			if isNameStart(r) {
				if name, n := names.match(src[i:]); n > 0 {
					i += n
					toks = append(toks, token{kind: tokName, text: name, pos: start, end: i, known: true})
					continue
				}
				i += size
				for i < len(src) {
					r, size = utf8.DecodeRuneInString(src[i:])
					if !isNamePart(r) {
						break
					}
					i += size
				}
				toks = append(toks, token{kind: tokName, text: src[start:i], pos: start, end: i})
				continue
			}
			p := punct(src[i:])
			if p == "" {
				if r == utf8.RuneError && size <= 1 {
					return nil, errorAt(i, "invalid UTF-8")
				}
				return nil, errorAt(i, fmt.Sprintf("unexpected character %q", r))
			}
			i += len(p)
			toks = append(toks, token{kind: tokPunct, text: p, pos: start, end: i})
		}
	}
}

// endsOperand reports whether the last token can end an operand, in which
// case a following ".5" is a path step, not a number.
func endsOperand(toks []token) bool {
	if len(toks) == 0 {
		return false
	}
	t := toks[len(toks)-1]
	switch t.kind {
	case tokNumber, tokString, tokAt:
		return true
	case tokName:
		return !t.isKeyword() || t.text == "true" || t.text == "false" || t.text == "null"
	case tokPunct:
		return t.text == ")" || t.text == "]" || t.text == "}"
	}
	return false
}

// nameSet holds the names to match as single tokens. Only names that
// plain lexing would split (spaces, - + * / ' .) are kept.
type nameSet struct {
	byFirst map[byte][]string // candidates by first byte, longest first
}

// newNameSet builds a nameSet; it collapses runs of white space.
func newNameSet(names []string) *nameSet {
	ns := &nameSet{byFirst: map[byte][]string{}}
	for _, n := range names {
		n = strings.Join(strings.Fields(n), " ")
		if n == "" || len(n) > 256 {
			continue
		}
		r, _ := utf8.DecodeRuneInString(n)
		if !isNameStart(r) {
			continue
		}
		simple := true
		for _, c := range n {
			if !isNamePart(c) {
				simple = false
				break
			}
		}
		if simple {
			continue
		}
		ns.byFirst[n[0]] = append(ns.byFirst[n[0]], n)
	}
	for _, l := range ns.byFirst {
		sort.Slice(l, func(i, j int) bool { return len(l[i]) > len(l[j]) })
	}
	return ns
}

// match returns the longest known name at the start of s (a space in the
// name matches any run of white space) and the bytes it spans; the match
// must end at a word boundary.
func (ns *nameSet) match(s string) (string, int) {
	if ns == nil || len(ns.byFirst) == 0 {
		return "", 0
	}
	best, bestN := "", 0
	for _, name := range ns.byFirst[s[0]] {
		if len(name) <= len(best) {
			break
		}
		n := matchName(s, name)
		if n == 0 {
			continue
		}
		if r, _ := utf8.DecodeRuneInString(s[n:]); n < len(s) && isNamePart(r) && isNamePart(lastRune(name)) {
			continue
		}
		best, bestN = name, n
	}
	return best, bestN
}

func lastRune(s string) rune {
	r, _ := utf8.DecodeLastRuneInString(s)
	return r
}

// matchName returns how many bytes of s spell name, or 0.
func matchName(s, name string) int {
	i := 0
	for j := 0; j < len(name); j++ {
		if name[j] == ' ' {
			k := i
			for k < len(s) && (s[k] == ' ' || s[k] == '\t' || s[k] == '\n' || s[k] == '\r') {
				k++
			}
			if k == i {
				return 0
			}
			i = k
			continue
		}
		if i >= len(s) || s[i] != name[j] {
			return 0
		}
		i++
	}
	return i
}

// punct returns the operator or bracket at the start of s, longest first.
func punct(s string) string {
	for _, p := range [...]string{"**", "!=", "<=", ">=", "..", "->"} {
		if strings.HasPrefix(s, p) {
			return p
		}
	}
	if strings.ContainsRune("+-*/=<>()[]{},.:", rune(s[0])) {
		return s[:1]
	}
	return ""
}

// lexString decodes the string literal starting at src[i] == '"' and
// returns its value and the offset just past the closing quote.
func lexString(src string, i int) (string, int, error) {
	start := i
	i++
	var b strings.Builder
	for i < len(src) {
		c := src[i]
		switch c {
		case '"':
			return b.String(), i + 1, nil
		case '\\':
			if i+1 >= len(src) {
				return "", 0, errorAt(i, "unterminated string")
			}
			esc := src[i+1]
			switch esc {
			case '"', '\'', '\\', '/':
				b.WriteByte(esc)
				i += 2
			case 'n':
				b.WriteByte('\n')
				i += 2
			case 'r':
				b.WriteByte('\r')
				i += 2
			case 't':
				b.WriteByte('\t')
				i += 2
			case 'b':
				b.WriteByte('\b')
				i += 2
			case 'f':
				b.WriteByte('\f')
				i += 2
			case 'u', 'U':
				n := 4
				if esc == 'U' {
					n = 6
				}
				if i+2+n > len(src) {
					return "", 0, errorAt(i, "invalid escape: \\"+string(esc)+" needs "+strconv.Itoa(n)+" hex digits")
				}
				v, err := strconv.ParseUint(src[i+2:i+2+n], 16, 32)
				if err != nil || v > unicode.MaxRune {
					return "", 0, errorAt(i, "invalid escape "+strconv.Quote(src[i:i+2+n]))
				}
				r := rune(v)
				i += 2 + n
				// Join a UTF-16 surrogate pair written as two \u escapes.
				if r >= 0xD800 && r < 0xDC00 && i+6 <= len(src) && src[i] == '\\' && src[i+1] == 'u' {
					if lo, err := strconv.ParseUint(src[i+2:i+6], 16, 32); err == nil && lo >= 0xDC00 && lo < 0xE000 {
						r = 0x10000 + (r-0xD800)<<10 + (rune(lo) - 0xDC00)
						i += 6
					}
				}
				if !utf8.ValidRune(r) {
					return "", 0, errorAt(i, "invalid escape: not a Unicode character")
				}
				b.WriteRune(r)
			default:
				// Not an escape: FEEL keeps the backslash, so regular
				// expressions such as "\d+" can be written plainly.
				b.WriteByte('\\')
				i++
			}
		default:
			r, size := utf8.DecodeRuneInString(src[i:])
			if r == utf8.RuneError && size <= 1 {
				return "", 0, errorAt(i, "invalid UTF-8 in string")
			}
			b.WriteString(src[i : i+size])
			i += size
		}
	}
	return "", 0, errorAt(start, "unterminated string")
}
