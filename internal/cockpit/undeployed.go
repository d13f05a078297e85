package cockpit

import (
	"bytes"
	"encoding/xml"
)

// idsInDocument returns the id attributes of the elements with the local
// name tag ("" for every element) of an XML document the runtime holds no
// parsed model of: the modeler's draft before it is deployed, or an upload
// a deployment refused. Deployed models are read through the runtime's
// outlines instead. A document that is not well-formed XML yields the ids
// read before the error.
func idsInDocument(data []byte, tag string) map[string]bool {
	out := map[string]bool{}
	if tag != "" && !bytes.Contains(data, []byte(tag)) {
		return out
	}
	d := xml.NewDecoder(bytes.NewReader(data))
	for {
		tok, err := d.RawToken()
		if err != nil {
			return out
		}
		se, ok := tok.(xml.StartElement)
		if !ok || (tag != "" && se.Name.Local != tag) {
			continue
		}
		for _, a := range se.Attr {
			if a.Name.Space == "" && a.Name.Local == "id" {
				out[a.Value] = true
			}
		}
	}
}
