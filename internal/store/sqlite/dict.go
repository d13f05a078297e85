package sqlite

import "bytes"

// Packed form of the opaque JSON the store keeps for an instance (its state
// header, part data and fact details), written since the second form of
// abbreviate: the byte packedMark followed by the data in which
//
//   - each occurrence of the instance's own id is the byte abbrevID;
//   - each phrase of packedPhrases is the byte firstPhrase+i (0x03–0x1f);
//   - each byte 0x01–0x1f of the data itself is preceded by abbrevEscape.
//
// JSON as encoding/json writes it never holds a raw byte below 0x20, so
// phrases and the id cost one byte each and nothing else grows. The
// phrases are the keys and punctuation that every instance repeats (a
// waiting start → job instance stored ≈1,100 bytes with only the id
// abbreviated, ≈800 packed). The table is part of the file format: a
// phrase may never be changed, removed or moved, and there is no room for
// more (a new table needs a new mark byte, as packedMark itself followed
// abbrevMark).
const (
	packedMark  = 0xfe
	firstPhrase = 0x03
)

// packedPhrases are the phrases of the packed form, code firstPhrase+i.
var packedPhrases = [...]string{
	`{"format":2,"instanceId":"`,
	`,"processKey":"`,
	`,"processVersion":`,
	`,"businessKey":"`,
	`,"status":"running"`,
	`,"nextTrack":`,
	`,"nextFact":`,
	`,"nextWait":`,
	`{"id":"`,
	`,"path":"/`,
	`,"vars":{`,
	`},"seq":`,
	`,"scope":"root"`,
	`,"node":"`,
	`,"state":"waiting"`,
	`,"via":"`,
	`-w0000`,
	`,"kind":"job"`,
	`,"track":"`,
	`,"name":"`,
	`,"retries":`,
	`,"createdAt":"20`,
	`{"type":"`,
	`{"processKey":"`,
	`,"version":`,
	`{"jobKey":"`,
	`,"type":"`,
	`,"kind":"`,
	`,"scope":"`,
}

// phraseIndex lists, per first byte, the codes of the phrases starting
// with it, longest first, so that pack takes the longest phrase that
// matches.
type phraseIndex [256][]byte

// phrases is built once from packedPhrases; it is never written after.
var phrases = func() *phraseIndex {
	var ix phraseIndex
	for i, p := range packedPhrases {
		c := byte(firstPhrase + i)
		list := ix[p[0]]
		at := len(list)
		for j, other := range list {
			if len(packedPhrases[other-firstPhrase]) < len(p) {
				at = j
				break
			}
		}
		ix[p[0]] = append(list[:at:at], append([]byte{c}, list[at:]...)...)
	}
	return &ix
}()

// pack returns the packed form of data of the instance id (the id is
// abbreviated only when at least minAbbrevID bytes long).
func pack(id string, data []byte) []byte {
	useID := len(id) >= minAbbrevID
	out := make([]byte, 0, len(data)/2+16)
	out = append(out, packedMark)
	for i := 0; i < len(data); {
		c := data[i]
		if useID && c == id[0] && bytes.HasPrefix(data[i:], []byte(id)) {
			out = append(out, abbrevID)
			i += len(id)
			continue
		}
		if code, n := matchPhrase(data[i:]); n > 0 {
			out = append(out, code)
			i += n
			continue
		}
		if c >= abbrevID && c < 0x20 {
			out = append(out, abbrevEscape)
		}
		out = append(out, c)
		i++
	}
	return out
}

// matchPhrase returns the code and length of the longest phrase b starts
// with, or n 0.
func matchPhrase(b []byte) (code byte, n int) {
	for _, c := range phrases[b[0]] {
		p := packedPhrases[c-firstPhrase]
		if len(b) >= len(p) && string(b[:len(p)]) == p {
			return c, len(p)
		}
	}
	return 0, 0
}

// unpack returns the data of the instance id whose packed form (after
// packedMark) is b.
func unpack(id string, b []byte) []byte {
	out := make([]byte, 0, 2*len(b)+64)
	for i := 0; i < len(b); i++ {
		switch c := b[i]; {
		case c == abbrevID:
			out = append(out, id...)
		case c == abbrevEscape:
			if i+1 < len(b) {
				i++
				out = append(out, b[i])
			}
		case c >= firstPhrase && c < firstPhrase+byte(len(packedPhrases)):
			out = append(out, packedPhrases[c-firstPhrase]...)
		default:
			out = append(out, c)
		}
	}
	return out
}
