// Package xmldoc loads untrusted XML model documents safely for the BPMN and
// DMN parsers: it caps size and nesting depth, refuses any DOCTYPE (no DTDs,
// no entity expansion), decodes the declared charset (UTF-8, UTF-16,
// ISO-8859-1, windows-1252) and records each element's line for problem
// reports. It imports nothing from gobpm.
package xmldoc

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/beevik/etree"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/unicode"
	"golang.org/x/text/transform"
)

// Limits applied before a document is parsed.
const (
	// MaxDocumentSize is the largest document Load accepts, in bytes.
	MaxDocumentSize = 10 << 20
	// MaxDepth is the deepest element nesting Load accepts.
	MaxDepth = 256
)

// Rules of the document-level problems Load reports.
const (
	// RuleMalformed: the bytes are not well-formed XML, or their declared
	// encoding cannot be decoded.
	RuleMalformed = "malformed-xml"
	// RuleDoctype: the document contains a <!DOCTYPE> (refused: no entity expansion).
	RuleDoctype = "doctype-forbidden"
	// RuleTooLarge: the document exceeds MaxDocumentSize bytes.
	RuleTooLarge = "document-too-large"
	// RuleTooDeep: elements nest deeper than MaxDepth.
	RuleTooDeep = "document-too-deep"
)

// Error is a document-level problem: the document cannot be read at all.
type Error struct {
	Rule   string
	Detail string
}

// Error implements error.
func (e *Error) Error() string { return e.Rule + ": " + e.Detail }

// Document is a well-formed XML document with the line of each element's start tag.
type Document struct {
	Doc   *etree.Document
	Lines map[*etree.Element]int
}

// Load checks the limits, decodes the charset and parses data. The error,
// if any, is the document-level problem that stops it.
func Load(data []byte) (*Document, *Error) {
	if len(data) > MaxDocumentSize {
		return nil, &Error{Rule: RuleTooLarge, Detail: fmt.Sprintf("document is %d bytes; the limit is %d", len(data), MaxDocumentSize)}
	}
	if hasDoctype(data) {
		return nil, &Error{Rule: RuleDoctype, Detail: "document contains a <!DOCTYPE> declaration; DTDs and entities are refused"}
	}
	buf, utf16, err := toUTF8(data)
	if err != nil {
		return nil, &Error{Rule: RuleMalformed, Detail: err.Error()}
	}
	if utf16 && hasDoctype(buf) {
		return nil, &Error{Rule: RuleDoctype, Detail: "document contains a <!DOCTYPE> declaration; DTDs and entities are refused"}
	}
	cr := charsetReader(utf16)

	lines, p := scan(buf, cr)
	if p != nil {
		return nil, p
	}

	doc := etree.NewDocument()
	doc.ReadSettings.CharsetReader = cr
	doc.ReadSettings.MaxDepth = MaxDepth + 1
	if err := doc.ReadFromBytes(buf); err != nil {
		return nil, &Error{Rule: RuleMalformed, Detail: "XML: " + err.Error()}
	}
	if doc.Root() == nil {
		return nil, &Error{Rule: RuleMalformed, Detail: "document has no root element"}
	}
	d := &Document{Doc: doc, Lines: make(map[*etree.Element]int, len(lines))}
	i := 0
	var walk func(e *etree.Element)
	walk = func(e *etree.Element) {
		if i < len(lines) {
			d.Lines[e] = lines[i]
		}
		i++
		for _, c := range e.ChildElements() {
			walk(c)
		}
	}
	walk(doc.Root())
	return d, nil
}

// hasDoctype reports whether b contains "<!DOCTYPE" (any case).
func hasDoctype(b []byte) bool {
	const kw = "doctype"
	for {
		i := bytes.Index(b, []byte("<!"))
		if i < 0 {
			return false
		}
		b = b[i+2:]
		if len(b) >= len(kw) && strings.EqualFold(string(b[:len(kw)]), kw) {
			return true
		}
	}
}

// toUTF8 converts a UTF-16 document (detected by its BOM or by the UTF-16
// form of "<?") to UTF-8 and strips a UTF-8 BOM. Other encodings are
// converted later by the charset reader the XML declaration selects.
func toUTF8(data []byte) (out []byte, utf16 bool, err error) {
	var e unicode.Endianness
	switch {
	case bytes.HasPrefix(data, []byte{0xEF, 0xBB, 0xBF}):
		return data[3:], false, nil
	case bytes.HasPrefix(data, []byte{0xFF, 0xFE}), bytes.HasPrefix(data, []byte{'<', 0, '?', 0}):
		e = unicode.LittleEndian
	case bytes.HasPrefix(data, []byte{0xFE, 0xFF}), bytes.HasPrefix(data, []byte{0, '<', 0, '?'}):
		e = unicode.BigEndian
	default:
		return data, false, nil
	}
	dec := unicode.UTF16(e, unicode.IgnoreBOM).NewDecoder()
	if len(data)%2 != 0 {
		return nil, false, errors.New("UTF-16 document has an odd number of bytes")
	}
	out, _, err = transform.Bytes(dec, data)
	if err != nil {
		return nil, false, fmt.Errorf("decoding UTF-16: %w", err)
	}
	return bytes.TrimPrefix(out, []byte{0xEF, 0xBB, 0xBF}), true, nil
}

// charsetReader returns the CharsetReader for the declared encoding.
// decodedUTF16 reports that the bytes were already converted from UTF-16.
func charsetReader(decodedUTF16 bool) func(string, io.Reader) (io.Reader, error) {
	return func(charset string, in io.Reader) (io.Reader, error) {
		name := strings.ToLower(strings.TrimSpace(charset))
		isUTF16 := name == "utf-16" || name == "utf-16le" || name == "utf-16be" || name == "utf16"
		if decodedUTF16 {
			if isUTF16 || name == "utf-8" || name == "utf8" {
				return in, nil
			}
			return nil, fmt.Errorf("document is UTF-16 encoded but declares encoding %q", charset)
		}
		switch name {
		case "utf-8", "utf8", "us-ascii", "ascii":
			return in, nil
		case "iso-8859-1", "iso8859-1", "iso_8859-1", "iso_8859-1:1987", "latin1", "latin-1", "l1", "cp819", "ibm819", "iso-ir-100":
			return charmap.ISO8859_1.NewDecoder().Reader(in), nil
		case "windows-1252", "cp1252", "x-cp1252":
			return charmap.Windows1252.NewDecoder().Reader(in), nil
		case "iso-8859-15", "iso8859-15", "iso_8859-15", "latin9", "latin-9":
			return charmap.ISO8859_15.NewDecoder().Reader(in), nil
		}
		if isUTF16 {
			return nil, fmt.Errorf("document declares encoding %q but is not UTF-16 encoded", charset)
		}
		return nil, fmt.Errorf("unsupported encoding %q (supported: UTF-8, UTF-16, ISO-8859-1, ISO-8859-15, windows-1252)", charset)
	}
}

// scan reads the document once with the strict decoder: it checks
// well-formedness, the nesting depth and the absence of directives, and
// records the line of every start tag in document order.
func scan(buf []byte, cr func(string, io.Reader) (io.Reader, error)) ([]int, *Error) {
	dec := xml.NewDecoder(bytes.NewReader(buf))
	dec.Strict = true
	dec.CharsetReader = cr
	var lines []int
	depth, roots := 0, 0
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, &Error{Rule: RuleMalformed, Detail: "XML: " + err.Error()}
		}
		switch t := tok.(type) {
		case xml.StartElement:
			depth++
			if depth > MaxDepth {
				line, _ := dec.InputPos()
				return nil, &Error{Rule: RuleTooDeep, Detail: fmt.Sprintf("elements nest deeper than %d levels (line %d)", MaxDepth, line)}
			}
			if depth == 1 {
				roots++
				if roots > 1 {
					line, _ := dec.InputPos()
					return nil, &Error{Rule: RuleMalformed, Detail: fmt.Sprintf("XML: more than one root element (line %d)", line)}
				}
			}
			line, _ := dec.InputPos()
			lines = append(lines, line)
		case xml.EndElement:
			depth--
		case xml.Directive:
			return nil, &Error{Rule: RuleDoctype, Detail: "document contains a <!…> declaration; DTDs and entities are refused"}
		case xml.CharData:
			if depth == 0 && len(bytes.TrimSpace(t)) > 0 {
				line, _ := dec.InputPos()
				return nil, &Error{Rule: RuleMalformed, Detail: fmt.Sprintf("XML: text outside the root element (line %d)", line)}
			}
		}
	}
	if len(lines) == 0 {
		return nil, &Error{Rule: RuleMalformed, Detail: "XML: document has no root element"}
	}
	return lines, nil
}
