package cockpit

import (
	"bytes"
	"encoding/xml"
)

// flowEnd is where a sequence flow comes from and leads to (element ids).
type flowEnd struct {
	Source, Target string
}

// flowEnds reads the ends of the model's sequence flows by flow id, from
// the deployed XML.
func flowEnds(data []byte) map[string]flowEnd {
	out := map[string]flowEnd{}
	if !bytes.Contains(data, []byte("sequenceFlow")) {
		return out
	}
	d := xml.NewDecoder(bytes.NewReader(data))
	for {
		tok, err := d.RawToken()
		if err != nil {
			return out
		}
		se, ok := tok.(xml.StartElement)
		if !ok || se.Name.Local != "sequenceFlow" {
			continue
		}
		var id string
		var end flowEnd
		for _, a := range se.Attr {
			if a.Name.Space != "" {
				continue
			}
			switch a.Name.Local {
			case "id":
				id = a.Value
			case "sourceRef":
				end.Source = a.Value
			case "targetRef":
				end.Target = a.Value
			}
		}
		if id != "" {
			out[id] = end
		}
	}
}

// flowWords names a flow an element took: by its name ("the flow «Yes,
// big»"), else by the elements it joins ("the flow from Big order? to
// Ship the order", each by name, else id), else by its id.
func flowWords(id string, names map[string]string, flows map[string]flowEnd) string {
	if n := names[id]; n != "" {
		return "the flow «" + n + "»"
	}
	if end, ok := flows[id]; ok && end.Source != "" && end.Target != "" {
		return "the flow from " + nameOf(end.Source, names) + " to " + nameOf(end.Target, names)
	}
	return "the flow " + id
}
