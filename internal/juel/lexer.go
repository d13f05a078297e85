package juel

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// kind is the kind of a token inside an eval expression.
type kind int

const (
	tEOF kind = iota
	tEnd      // } closing the eval expression
	tInt
	tFloat
	tString
	tIdent
	tTrue
	tFalse
	tNull
	tEmpty
	tNot
	tAnd
	tOr
	tEq
	tNe
	tLt
	tGt
	tLe
	tGe
	tPlus
	tMinus
	tMul
	tDiv
	tMod
	tLParen
	tRParen
	tLBrack
	tRBrack
	tDot
	tComma
	tQuestion
	tColon
	tInstanceof
	// EL 3.0 syntax, recognised only to be refused with a clear message.
	tAssign // =
	tSemi   // ;
	tArrow  // ->
	tConcat // +=
	tLBrace // {
)

// keywords are EL 2.2's reserved words.
var keywords = map[string]kind{
	"and": tAnd, "or": tOr, "not": tNot,
	"eq": tEq, "ne": tNe, "lt": tLt, "gt": tGt, "le": tLe, "ge": tGe,
	"div": tDiv, "mod": tMod, "empty": tEmpty, "instanceof": tInstanceof,
	"true": tTrue, "false": tFalse, "null": tNull,
}

// token is one lexeme. pos is its 0-based byte offset in the source; text
// is the source text, val the decoded value of a string literal.
type token struct {
	kind kind
	pos  int
	text string
	val  string
}

// describe names the token in "unexpected …" messages.
func (t token) describe() string {
	switch t.kind {
	case tEOF:
		return "end of text (missing '}')"
	case tEnd:
		return "'}'"
	case tInt, tFloat:
		return "number " + t.text
	case tString:
		return "string " + t.text
	case tIdent:
		return "identifier '" + t.text + "'"
	}
	return "'" + t.text + "'"
}

// lexer splits the inside of one ${…} into tokens; it stops at the
// closing brace, which the caller consumes.
type lexer struct {
	src string
	pos int
}

// next returns the next token, skipping Java whitespace.
func (l *lexer) next() (token, error) {
	for l.pos < len(l.src) {
		r, n := utf8.DecodeRuneInString(l.src[l.pos:])
		if !isJavaSpace(r) {
			break
		}
		l.pos += n
	}
	start := l.pos
	if start >= len(l.src) {
		return token{kind: tEOF, pos: start}, nil
	}
	c := l.src[start]
	var c2 byte
	if start+1 < len(l.src) {
		c2 = l.src[start+1]
	}
	one := func(k kind) (token, error) {
		l.pos++
		return token{kind: k, pos: start, text: l.src[start:l.pos]}, nil
	}
	two := func(k kind) (token, error) {
		l.pos += 2
		return token{kind: k, pos: start, text: l.src[start:l.pos]}, nil
	}
	switch c {
	case '}':
		return one(tEnd)
	case '{':
		return one(tLBrace)
	case '*':
		return one(tMul)
	case '/':
		return one(tDiv)
	case '%':
		return one(tMod)
	case '+':
		if c2 == '=' {
			return two(tConcat)
		}
		return one(tPlus)
	case '-':
		if c2 == '>' {
			return two(tArrow)
		}
		return one(tMinus)
	case '?':
		return one(tQuestion)
	case ':':
		return one(tColon)
	case '[':
		return one(tLBrack)
	case ']':
		return one(tRBrack)
	case '(':
		return one(tLParen)
	case ')':
		return one(tRParen)
	case ',':
		return one(tComma)
	case ';':
		return one(tSemi)
	case '=':
		if c2 == '=' {
			return two(tEq)
		}
		return one(tAssign)
	case '!':
		if c2 == '=' {
			return two(tNe)
		}
		return one(tNot)
	case '<':
		if c2 == '=' {
			return two(tLe)
		}
		return one(tLt)
	case '>':
		if c2 == '=' {
			return two(tGe)
		}
		return one(tGt)
	case '&':
		if c2 == '&' {
			return two(tAnd)
		}
	case '|':
		if c2 == '|' {
			return two(tOr)
		}
	case '.':
		if !isDigit(c2) {
			return one(tDot)
		}
		return l.number()
	case '\'', '"':
		return l.str()
	}
	if isDigit(c) {
		return l.number()
	}
	r, n := utf8.DecodeRuneInString(l.src[start:])
	if r == utf8.RuneError && n <= 1 {
		return token{}, errorAt(start, ErrSyntax, "invalid UTF-8 byte")
	}
	if isIdentStart(r) {
		l.pos += n
		for l.pos < len(l.src) {
			r, n := utf8.DecodeRuneInString(l.src[l.pos:])
			if !isIdentPart(r) || (r == utf8.RuneError && n <= 1) {
				break
			}
			l.pos += n
		}
		text := l.src[start:l.pos]
		if k, ok := keywords[text]; ok {
			return token{kind: k, pos: start, text: text}, nil
		}
		return token{kind: tIdent, pos: start, text: text}, nil
	}
	switch c {
	case '&', '|':
		return token{}, errorAt(start, ErrSyntax, "invalid character '%c' (use '%c%c')", c, c, c)
	}
	return token{}, errorAt(start, ErrSyntax, "invalid character %q", r)
}

// number scans an integer ([0-9]+) or floating-point literal
// ([0-9]+.[0-9]* or .[0-9]+, then an optional exponent; or [0-9]+ with an
// exponent). An 'e' not followed by digits is not part of the number.
func (l *lexer) number() (token, error) {
	start := l.pos
	i := start
	for i < len(l.src) && isDigit(l.src[i]) {
		i++
	}
	k := tInt
	if i < len(l.src) && l.src[i] == '.' {
		k = tFloat
		i++
		for i < len(l.src) && isDigit(l.src[i]) {
			i++
		}
	}
	if i < len(l.src) && (l.src[i] == 'e' || l.src[i] == 'E') {
		j := i + 1
		if j < len(l.src) && (l.src[j] == '+' || l.src[j] == '-') {
			j++
		}
		if j < len(l.src) && isDigit(l.src[j]) {
			for j < len(l.src) && isDigit(l.src[j]) {
				j++
			}
			k = tFloat
			i = j
		}
	}
	l.pos = i
	return token{kind: k, pos: start, text: l.src[start:i]}, nil
}

// str scans a string literal. As in JUEL, the only escapes are \\ and a
// backslash before the quote that opened the literal.
func (l *lexer) str() (token, error) {
	start := l.pos
	q := l.src[start]
	var b strings.Builder
	i := start + 1
	for i < len(l.src) {
		c := l.src[i]
		switch {
		case c == '\\':
			if i+1 >= len(l.src) {
				return token{}, errorAt(start, ErrSyntax, "unterminated string")
			}
			e := l.src[i+1]
			if e != '\\' && e != q {
				return token{}, errorAt(i, ErrSyntax, `invalid escape sequence \%c in string (only \%c and \\)`, e, q)
			}
			b.WriteByte(e)
			i += 2
		case c == q:
			i++
			l.pos = i
			return token{kind: tString, pos: start, text: l.src[start:i], val: b.String()}, nil
		default:
			b.WriteByte(c)
			i++
		}
	}
	return token{}, errorAt(start, ErrSyntax, "unterminated string")
}

// isJavaSpace is Character.isWhitespace: Unicode space separators other
// than the no-break spaces, and the ASCII controls \t \n \v \f \r and
// U+001C–U+001F.
func isJavaSpace(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', 0x1c, 0x1d, 0x1e, 0x1f, ' ':
		return true
	case 0xa0, 0x2007, 0x202f:
		return false
	}
	return r > 0x7f && (unicode.Is(unicode.Zs, r) || r == 0x2028 || r == 0x2029)
}

// isIdentStart is Character.isJavaIdentifierStart: letters, letter
// numbers, currency symbols ($) and connector punctuation (_).
func isIdentStart(r rune) bool {
	return unicode.IsLetter(r) || unicode.Is(unicode.Nl, r) || unicode.Is(unicode.Sc, r) || unicode.Is(unicode.Pc, r)
}

// isIdentPart is Character.isJavaIdentifierPart without the ignorable
// control characters.
func isIdentPart(r rune) bool {
	return isIdentStart(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Mc, r)
}
