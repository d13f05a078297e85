package feel

import (
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// FEEL's matches, replace and split take XML Schema / XPath regular
// expressions (XPath and XQuery Functions and Operators 3.1 §5.6). They
// are translated to Go's RE2 syntax and run on a Pike VM that pays for
// its work from the evaluation's budget (regex_vm.go):
//
//   - character classes become explicit code point ranges, so class
//     subtraction ([A-Z-[OI]]), the multi-character escapes (\s \d \w
//     \i \c and their negations), categories (\p{Lu}) and Unicode blocks
//     (\p{IsBasicLatin}) all work;
//   - '.' matches any character but \n and \r (any character with the
//     flag s);
//   - a pattern with back-references (\1) runs on a small backtracking
//     matcher instead (regex_bt.go), which pays for its work too;
//   - the flags are s, m, i, x (white space in the pattern is ignored
//     outside classes) and q (the pattern is a literal string).
//
// A pattern that is not a valid XPath regular expression is an error.

var (
	regexCache   sync.Map // pattern "\x00" flags → matcher
	regexCacheMu sync.Mutex
	regexCount   int
)

// compileRegex translates an XPath pattern with flags and compiles it.
func compileRegex(pat, flags string) (matcher, error) {
	if len(pat) > 4096 {
		return nil, errors.New("the pattern is longer than 4096 bytes")
	}
	key := pat + "\x00" + flags
	if v, ok := regexCache.Load(key); ok {
		return v.(matcher), nil
	}
	prefix := ""
	dotAll, literal, extended := false, false, false
	for _, f := range flags {
		switch f {
		case 's':
			dotAll = true
		case 'm', 'i':
			if !strings.ContainsRune(prefix, f) {
				prefix += string(f)
			}
		case 'x':
			extended = true
		case 'q':
			literal = true
		default:
			return nil, fmt.Errorf("invalid flag %q", f)
		}
	}
	var src string
	if literal {
		src = regexp.QuoteMeta(pat)
	} else {
		if extended {
			pat = stripRegexSpace(pat)
		}
		var err error
		ci := strings.ContainsRune(flags, 'i')
		src, err = translateRegex(pat, dotAll, ci)
		if errors.Is(err, errBackref) {
			bt, err := compileBacktrack(pat, dotAll, ci, strings.ContainsRune(flags, 'm'))
			if err != nil {
				return nil, err
			}
			cacheRegex(key, bt)
			return bt, nil
		}
		if err != nil {
			return nil, err
		}
	}
	if prefix != "" {
		src = "(?" + prefix + ")" + src
	}
	re, err := compileVM(src)
	if err != nil {
		return nil, err
	}
	cacheRegex(key, re)
	return re, nil
}

// cacheRegex keeps up to 512 compiled patterns.
func cacheRegex(key string, m matcher) {
	regexCacheMu.Lock()
	if regexCount < 512 {
		regexCount++
		regexCache.Store(key, m)
	}
	regexCacheMu.Unlock()
}

// stripRegexSpace removes white space outside character classes (flag x).
func stripRegexSpace(p string) string {
	var b strings.Builder
	inClass := 0
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c == '\\' && i+1 < len(p) && inClass == 0 && p[i+1] != ' ':
			b.WriteByte(c)
			i++
			b.WriteByte(p[i])
			continue
		case c == '\\' && i+1 < len(p) && inClass > 0:
			b.WriteByte(c)
			i++
			b.WriteByte(p[i])
			continue
		case c == '[':
			inClass++
		case c == ']' && inClass > 0:
			inClass--
		case inClass == 0 && (c == ' ' || c == '\t' || c == '\n' || c == '\r'):
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

// rxParser translates one XPath pattern.
type rxParser struct {
	src    string
	i      int
	out    strings.Builder
	dotAll bool
	ci     bool // case-insensitive: classes are folded before negation
	groups int  // capturing groups opened so far
	closed map[int]bool
}

func translateRegex(pat string, dotAll, ci bool) (string, error) {
	p := &rxParser{src: pat, dotAll: dotAll, ci: ci, closed: map[int]bool{}}
	if err := p.branches(0); err != nil {
		return "", err
	}
	if p.i < len(p.src) {
		return "", fmt.Errorf("unexpected %q at %d", p.src[p.i], p.i+1)
	}
	return p.out.String(), nil
}

func (p *rxParser) peek() (rune, int) {
	if p.i >= len(p.src) {
		return 0, 0
	}
	return utf8.DecodeRuneInString(p.src[p.i:])
}

// branches reads branch ('|' branch)* up to a ')' (depth > 0) or the end.
func (p *rxParser) branches(depth int) error {
	for {
		if err := p.branch(depth); err != nil {
			return err
		}
		r, _ := p.peek()
		if p.i < len(p.src) && r == '|' {
			p.i++
			p.out.WriteByte('|')
			continue
		}
		return nil
	}
}

// branch reads pieces: atom quantifier?.
func (p *rxParser) branch(depth int) error {
	for p.i < len(p.src) {
		r, size := p.peek()
		switch r {
		case '|':
			return nil
		case ')':
			if depth == 0 {
				return fmt.Errorf("unmatched ')' at %d", p.i+1)
			}
			return nil
		}
		switch r {
		case '(':
			p.i++
			capturing := true
			if strings.HasPrefix(p.src[p.i:], "?:") {
				p.i += 2
				capturing = false
				p.out.WriteString("(?:")
			} else {
				p.groups++
				p.out.WriteByte('(')
			}
			n := p.groups
			if err := p.branches(depth + 1); err != nil {
				return err
			}
			if r, _ := p.peek(); p.i >= len(p.src) || r != ')' {
				return errors.New("missing ')'")
			}
			p.i++
			p.out.WriteByte(')')
			if capturing {
				p.closed[n] = true
			}
		case '[':
			set, err := p.class()
			if err != nil {
				return err
			}
			p.out.WriteString(set.String())
		case '.':
			p.i++
			if p.dotAll {
				p.out.WriteString(`(?s:.)`)
			} else {
				p.out.WriteString(`[^\n\r]`)
			}
		case '^', '$':
			p.i++
			p.out.WriteRune(r)
		case '\\':
			if err := p.escape(); err != nil {
				return err
			}
		case '*', '+', '?', '{':
			return fmt.Errorf("quantifier %q without an atom at %d", r, p.i+1)
		case ']', '}':
			return fmt.Errorf("unescaped %q at %d", r, p.i+1)
		default:
			p.i += size
			p.out.WriteString(regexp.QuoteMeta(string(r)))
		}
		if err := p.quantifier(); err != nil {
			return err
		}
	}
	return nil
}

// quantifier copies an optional quantifier (and reluctance '?').
func (p *rxParser) quantifier() error {
	r, _ := p.peek()
	if p.i >= len(p.src) {
		return nil
	}
	switch r {
	case '*', '+', '?':
		p.i++
		p.out.WriteRune(r)
	case '{':
		end := strings.IndexByte(p.src[p.i:], '}')
		if end < 0 {
			return errors.New("unterminated quantifier")
		}
		q := p.src[p.i+1 : p.i+end]
		lo, hi, comma := strings.Cut(q, ",")
		if !digits(lo) || (comma && hi != "" && !digits(hi)) {
			return fmt.Errorf("invalid quantifier {%s}", q)
		}
		if comma && hi != "" {
			a, _ := strconv.Atoi(lo)
			b, _ := strconv.Atoi(hi)
			if a > b {
				return fmt.Errorf("invalid quantifier {%s}", q)
			}
		}
		p.out.WriteString(p.src[p.i : p.i+end+1])
		p.i += end + 1
	default:
		return nil
	}
	if r, _ := p.peek(); p.i < len(p.src) && r == '?' {
		p.i++
		p.out.WriteByte('?')
	}
	return nil
}

// escape translates an escape outside a class.
func (p *rxParser) escape() error {
	if p.i+1 >= len(p.src) {
		return errors.New("trailing backslash")
	}
	c := p.src[p.i+1]
	if c >= '1' && c <= '9' {
		// A back-reference: \1 to \9, more digits while such a group exists.
		j := p.i + 2
		n := int(c - '0')
		for j < len(p.src) && isDigit(p.src[j]) && n*10+int(p.src[j]-'0') <= p.groups {
			n = n*10 + int(p.src[j]-'0')
			j++
		}
		if n > p.groups || !p.closed[n] {
			return fmt.Errorf("back-reference \\%d names no group before it", n)
		}
		return errBackref
	}
	if c == '0' {
		return errors.New(`\0 is not a valid escape`)
	}
	set, lit, err := p.escapeSet()
	if err != nil {
		return err
	}
	if set != nil {
		p.out.WriteString(set.String())
	} else {
		p.out.WriteString(regexp.QuoteMeta(string(lit)))
	}
	return nil
}

// escapeSet reads an escape at p.i ('\'): a multi-character escape or
// category as a set, or a single character.
func (p *rxParser) escapeSet() (*runeSet, rune, error) {
	p.i++ // backslash
	c := p.src[p.i]
	p.i++
	switch c {
	case 'n':
		return nil, '\n', nil
	case 'r':
		return nil, '\r', nil
	case 't':
		return nil, '\t', nil
	case '\\', '|', '.', '?', '*', '+', '(', ')', '{', '}', '-', '[', ']', '^', '$':
		return nil, rune(c), nil
	case 's', 'S':
		return maybeNeg(setOf(' ', '\t', '\n', '\r'), c == 'S'), 0, nil
	case 'd', 'D':
		return maybeNeg(tableSet(unicode.Nd), c == 'D'), 0, nil
	case 'w', 'W':
		// \w is every character but punctuation, separators and "other".
		notWord := tableSet(unicode.P).union(tableSet(unicode.Z)).union(tableSet(unicode.C))
		return maybeNeg(notWord.negate(), c == 'W'), 0, nil
	case 'i', 'I':
		s := tableSet(unicode.L).union(setOf('_', ':'))
		return maybeNeg(s, c == 'I'), 0, nil
	case 'c', 'C':
		s := tableSet(unicode.L).union(tableSet(unicode.Nd)).union(setOf('_', ':', '.', '-', 0xB7)).
			union(tableSet(unicode.Mn)).union(tableSet(unicode.Mc))
		return maybeNeg(s, c == 'C'), 0, nil
	case 'p', 'P':
		if p.i >= len(p.src) || p.src[p.i] != '{' {
			return nil, 0, errors.New(`\p needs {name}`)
		}
		end := strings.IndexByte(p.src[p.i:], '}')
		if end < 0 {
			return nil, 0, errors.New(`unterminated \p{…}`)
		}
		name := p.src[p.i+1 : p.i+end]
		p.i += end + 1
		s, err := categorySet(name)
		if err != nil {
			return nil, 0, err
		}
		return maybeNeg(s, c == 'P'), 0, nil
	}
	return nil, 0, fmt.Errorf("invalid escape \\%c", c)
}

// class reads a character class expression [...] at p.i.
func (p *rxParser) class() (*runeSet, error) {
	p.i++ // [
	neg := false
	if p.i < len(p.src) && p.src[p.i] == '^' {
		neg = true
		p.i++
	}
	set := &runeSet{}
	first := true
	for {
		if p.i >= len(p.src) {
			return nil, errors.New("unterminated character class")
		}
		c := p.src[p.i]
		if c == ']' && !first {
			p.i++
			break
		}
		if c == '-' && !first && p.i+1 < len(p.src) && p.src[p.i+1] == '[' {
			p.i++
			sub, err := p.class()
			if err != nil {
				return nil, err
			}
			if p.i >= len(p.src) || p.src[p.i] != ']' {
				return nil, errors.New("a class subtraction must end the class")
			}
			p.i++
			set = p.folded(set).minus(p.folded(sub))
			break
		}
		first = false
		lo, loSet, err := p.classChar()
		if err != nil {
			return nil, err
		}
		if loSet != nil {
			set = set.union(loSet)
			continue
		}
		if p.i+1 < len(p.src) && p.src[p.i] == '-' && p.src[p.i+1] != ']' && p.src[p.i+1] != '[' {
			p.i++
			hi, hiSet, err := p.classChar()
			if err != nil {
				return nil, err
			}
			if hiSet != nil || hi < lo {
				return nil, errors.New("invalid range in a character class")
			}
			set = set.union(&runeSet{ranges: []rng{{lo, hi}}})
			continue
		}
		set = set.union(setOf(lo))
	}
	if neg {
		set = p.folded(set).negate()
	}
	return set, nil
}

// folded adds the case variants of s's characters when matching is
// case-insensitive, so that [^Q] with the flag i matches neither Q nor
// q (RE2 would fold the negated set instead).
func (p *rxParser) folded(s *runeSet) *runeSet {
	if !p.ci {
		return s
	}
	size := 0
	for _, r := range s.ranges {
		size += int(r.hi-r.lo) + 1
	}
	if size > 1<<16 {
		return s
	}
	out := &runeSet{ranges: append([]rng(nil), s.ranges...)}
	for _, r := range s.ranges {
		for c := r.lo; c <= r.hi; c++ {
			for f := unicode.SimpleFold(c); f != c; f = unicode.SimpleFold(f) {
				out.ranges = append(out.ranges, rng{f, f})
			}
		}
	}
	return out.normalize()
}

// classChar reads one character (or escape) inside a class.
func (p *rxParser) classChar() (rune, *runeSet, error) {
	c := p.src[p.i]
	if c == '\\' {
		if p.i+1 >= len(p.src) {
			return 0, nil, errors.New("trailing backslash")
		}
		if d := p.src[p.i+1]; d >= '0' && d <= '9' {
			return 0, nil, fmt.Errorf("\\%c is not allowed in a character class", d)
		}
		set, r, err := p.escapeSet()
		return r, set, err
	}
	if c == '[' {
		return 0, nil, errors.New("unescaped '[' in a character class")
	}
	r, size := utf8.DecodeRuneInString(p.src[p.i:])
	p.i += size
	return r, nil, nil
}

// rng is an inclusive range of code points.
type rng struct{ lo, hi rune }

// runeSet is a set of code points as sorted, disjoint ranges.
type runeSet struct{ ranges []rng }

func setOf(rs ...rune) *runeSet {
	s := &runeSet{}
	for _, r := range rs {
		s.ranges = append(s.ranges, rng{r, r})
	}
	return s.normalize()
}

func maybeNeg(s *runeSet, neg bool) *runeSet {
	if neg {
		return s.negate()
	}
	return s
}

func tableSet(t *unicode.RangeTable) *runeSet {
	s := &runeSet{}
	for _, r := range t.R16 {
		for c := rune(r.Lo); c <= rune(r.Hi); c += rune(r.Stride) {
			if r.Stride == 1 {
				s.ranges = append(s.ranges, rng{rune(r.Lo), rune(r.Hi)})
				break
			}
			s.ranges = append(s.ranges, rng{c, c})
		}
	}
	for _, r := range t.R32 {
		for c := rune(r.Lo); c <= rune(r.Hi); c += rune(r.Stride) {
			if r.Stride == 1 {
				s.ranges = append(s.ranges, rng{rune(r.Lo), rune(r.Hi)})
				break
			}
			s.ranges = append(s.ranges, rng{c, c})
		}
	}
	return s.normalize()
}

func (s *runeSet) normalize() *runeSet {
	sort.Slice(s.ranges, func(i, j int) bool { return s.ranges[i].lo < s.ranges[j].lo })
	var out []rng
	for _, r := range s.ranges {
		if n := len(out); n > 0 && r.lo <= out[n-1].hi+1 {
			if r.hi > out[n-1].hi {
				out[n-1].hi = r.hi
			}
			continue
		}
		out = append(out, r)
	}
	s.ranges = out
	return s
}

func (s *runeSet) union(o *runeSet) *runeSet {
	out := &runeSet{ranges: append(append([]rng(nil), s.ranges...), o.ranges...)}
	return out.normalize()
}

func (s *runeSet) negate() *runeSet {
	out := &runeSet{}
	next := rune(0)
	for _, r := range s.ranges {
		if r.lo > next {
			out.ranges = append(out.ranges, rng{next, r.lo - 1})
		}
		next = r.hi + 1
	}
	if next <= unicode.MaxRune {
		out.ranges = append(out.ranges, rng{next, unicode.MaxRune})
	}
	return out
}

func (s *runeSet) minus(o *runeSet) *runeSet {
	return s.negate().union(o).negate()
}

// String writes the set as an RE2 class.
func (s *runeSet) String() string {
	if len(s.ranges) == 0 {
		return `[^\x00-\x{10FFFF}]`
	}
	var b strings.Builder
	b.WriteByte('[')
	for _, r := range s.ranges {
		fmt.Fprintf(&b, `\x{%X}`, r.lo)
		if r.hi != r.lo {
			fmt.Fprintf(&b, `-\x{%X}`, r.hi)
		}
	}
	b.WriteByte(']')
	return b.String()
}

// categorySet resolves \p{name}: a Unicode general category (L, Lu, …)
// or a block (IsBasicLatin, …).
func categorySet(name string) (*runeSet, error) {
	if t, ok := unicode.Categories[name]; ok {
		return tableSet(t), nil
	}
	if strings.HasPrefix(name, "Is") {
		if b, ok := unicodeBlocks[name[2:]]; ok {
			return &runeSet{ranges: []rng{b}}, nil
		}
	}
	return nil, fmt.Errorf("unknown category or block \\p{%s}", name)
}

// unicodeBlocks are the Unicode block names XML Schema regular
// expressions know (\p{IsBasicLatin}).
var unicodeBlocks = map[string]rng{
	"BasicLatin": {0x0000, 0x007F}, "Latin-1Supplement": {0x0080, 0x00FF}, "LatinExtended-A": {0x0100, 0x017F},
	"LatinExtended-B": {0x0180, 0x024F}, "IPAExtensions": {0x0250, 0x02AF}, "SpacingModifierLetters": {0x02B0, 0x02FF},
	"CombiningDiacriticalMarks": {0x0300, 0x036F}, "Greek": {0x0370, 0x03FF}, "GreekandCoptic": {0x0370, 0x03FF},
	"Cyrillic": {0x0400, 0x04FF}, "Armenian": {0x0530, 0x058F}, "Hebrew": {0x0590, 0x05FF}, "Arabic": {0x0600, 0x06FF},
	"Syriac": {0x0700, 0x074F}, "Thaana": {0x0780, 0x07BF}, "Devanagari": {0x0900, 0x097F}, "Bengali": {0x0980, 0x09FF},
	"Gurmukhi": {0x0A00, 0x0A7F}, "Gujarati": {0x0A80, 0x0AFF}, "Oriya": {0x0B00, 0x0B7F}, "Tamil": {0x0B80, 0x0BFF},
	"Telugu": {0x0C00, 0x0C7F}, "Kannada": {0x0C80, 0x0CFF}, "Malayalam": {0x0D00, 0x0D7F}, "Sinhala": {0x0D80, 0x0DFF},
	"Thai": {0x0E00, 0x0E7F}, "Lao": {0x0E80, 0x0EFF}, "Tibetan": {0x0F00, 0x0FFF}, "Myanmar": {0x1000, 0x109F},
	"Georgian": {0x10A0, 0x10FF}, "HangulJamo": {0x1100, 0x11FF}, "Ethiopic": {0x1200, 0x137F}, "Cherokee": {0x13A0, 0x13FF},
	"UnifiedCanadianAboriginalSyllabics": {0x1400, 0x167F}, "Ogham": {0x1680, 0x169F}, "Runic": {0x16A0, 0x16FF},
	"Khmer": {0x1780, 0x17FF}, "Mongolian": {0x1800, 0x18AF}, "LatinExtendedAdditional": {0x1E00, 0x1EFF},
	"GreekExtended": {0x1F00, 0x1FFF}, "GeneralPunctuation": {0x2000, 0x206F}, "SuperscriptsandSubscripts": {0x2070, 0x209F},
	"CurrencySymbols": {0x20A0, 0x20CF}, "CombiningMarksforSymbols": {0x20D0, 0x20FF}, "LetterlikeSymbols": {0x2100, 0x214F},
	"NumberForms": {0x2150, 0x218F}, "Arrows": {0x2190, 0x21FF}, "MathematicalOperators": {0x2200, 0x22FF},
	"MiscellaneousTechnical": {0x2300, 0x23FF}, "ControlPictures": {0x2400, 0x243F}, "OpticalCharacterRecognition": {0x2440, 0x245F},
	"EnclosedAlphanumerics": {0x2460, 0x24FF}, "BoxDrawing": {0x2500, 0x257F}, "BlockElements": {0x2580, 0x259F},
	"GeometricShapes": {0x25A0, 0x25FF}, "MiscellaneousSymbols": {0x2600, 0x26FF}, "Dingbats": {0x2700, 0x27BF},
	"BraillePatterns": {0x2800, 0x28FF}, "CJKRadicalsSupplement": {0x2E80, 0x2EFF}, "KangxiRadicals": {0x2F00, 0x2FDF},
	"IdeographicDescriptionCharacters": {0x2FF0, 0x2FFF}, "CJKSymbolsandPunctuation": {0x3000, 0x303F},
	"Hiragana": {0x3040, 0x309F}, "Katakana": {0x30A0, 0x30FF}, "Bopomofo": {0x3100, 0x312F},
	"HangulCompatibilityJamo": {0x3130, 0x318F}, "Kanbun": {0x3190, 0x319F}, "BopomofoExtended": {0x31A0, 0x31BF},
	"EnclosedCJKLettersandMonths": {0x3200, 0x32FF}, "CJKCompatibility": {0x3300, 0x33FF},
	"CJKUnifiedIdeographsExtensionA": {0x3400, 0x4DB5}, "CJKUnifiedIdeographs": {0x4E00, 0x9FFF}, "YiSyllables": {0xA000, 0xA48F},
	"YiRadicals": {0xA490, 0xA4CF}, "HangulSyllables": {0xAC00, 0xD7A3}, "PrivateUse": {0xE000, 0xF8FF},
	"CJKCompatibilityIdeographs": {0xF900, 0xFAFF}, "AlphabeticPresentationForms": {0xFB00, 0xFB4F},
	"ArabicPresentationForms-A": {0xFB50, 0xFDFF}, "CombiningHalfMarks": {0xFE20, 0xFE2F}, "CJKCompatibilityForms": {0xFE30, 0xFE4F},
	"SmallFormVariants": {0xFE50, 0xFE6F}, "ArabicPresentationForms-B": {0xFE70, 0xFEFE}, "Specials": {0xFFF0, 0xFFFF},
	"HalfwidthandFullwidthForms": {0xFF00, 0xFFEF},
}
