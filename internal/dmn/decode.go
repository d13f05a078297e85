package dmn

import (
	"github.com/beevik/etree"

	"github.com/gobpm/gobpm/internal/xmldoc"
)

// Limits applied before a document is parsed (see package xmldoc).
const (
	// MaxDocumentSize is the largest document Parse accepts, in bytes.
	MaxDocumentSize = xmldoc.MaxDocumentSize
	// MaxDepth is the deepest element nesting Parse accepts.
	MaxDepth = xmldoc.MaxDepth
)

// document is a well-formed XML document with the line of each element's start tag.
type document struct {
	doc   *etree.Document
	lines map[*etree.Element]int
}

// load checks the limits, decodes the charset and parses data (package
// xmldoc). It returns the problems that stop it; they are all
// document-level (no element id).
func load(data []byte) (*document, problems) {
	d, err := xmldoc.Load(data)
	if err != nil {
		var ps problems
		ps.add("", Rule(err.Rule), "%s", err.Detail)
		return nil, ps
	}
	return &document{doc: d.Doc, lines: d.Lines}, nil
}
