package sqlite

import (
	"bytes"
	"encoding/binary"
	"fmt"

	"github.com/gobpm/gobpm/internal/store"
)

// The facts of one step are stored as one row of facts (migration 0005):
// the row's key is the seq of its last fact, its at the time of its first
// fact after the instance's creation, and its data the facts, each as
//
//	uvarint(last seq - seq) varint(at - previous at) uvarint(kind id)
//	node scope
//	uvarint(0) for no detail, or uvarint(len(detail)+1) detail
//
// where node and scope are each uvarint(0) if equal to the previous
// fact's ("" before the first), else uvarint(len+1) and the bytes (a
// step's facts often share them), and the detail is written by
// abbreviate with the instance's id.

// encodeFacts encodes facts (of one step, strictly increasing seqs) of an
// instance created at created: the row's seq and at, and its data. kindID
// maps a kind name to its id.
func encodeFacts(id store.InstanceID, created int64, facts []store.FactRow, kindID func(string) (int64, error)) (seq, at int64, data []byte, err error) {
	last := facts[len(facts)-1].Seq
	at = encodeTime(facts[0].At) - created
	prevAt := encodeTime(facts[0].At)
	var prevNode, prevScope string
	for i, f := range facts {
		if i > 0 && f.Seq <= facts[i-1].Seq {
			return 0, 0, nil, fmt.Errorf("fact seq %d does not follow %d", f.Seq, facts[i-1].Seq)
		}
		kind, err := kindID(f.Kind)
		if err != nil {
			return 0, 0, nil, err
		}
		t := encodeTime(f.At)
		data = binary.AppendUvarint(data, uint64(last-f.Seq))
		data = binary.AppendVarint(data, t-prevAt)
		prevAt = t
		data = binary.AppendUvarint(data, uint64(kind))
		data = appendRepeated(data, f.NodeID, prevNode)
		data = appendRepeated(data, f.ScopePath, prevScope)
		prevNode, prevScope = f.NodeID, f.ScopePath
		if len(f.Detail) == 0 {
			data = binary.AppendUvarint(data, 0)
			continue
		}
		d := abbreviate(string(id), f.Detail)
		data = binary.AppendUvarint(data, uint64(len(d))+1)
		data = append(data, d...)
	}
	return last, at, data, nil
}

// appendRepeated appends s as 0 if it equals prev, else as its length+1
// and its bytes.
func appendRepeated(dst []byte, s, prev string) []byte {
	if s == prev {
		return binary.AppendUvarint(dst, 0)
	}
	dst = binary.AppendUvarint(dst, uint64(len(s))+1)
	return append(dst, s...)
}

// decodeFacts decodes the facts of a row (seq, at, data) of instance id
// created at created and calls fn with each, in seq order, until fn
// returns false. kindName maps a kind id to its name.
func decodeFacts(id store.InstanceID, created, seq, at int64, data []byte, kindName func(int64) (string, error), fn func(store.FactRow) bool) error {
	r := factReader{b: data}
	t := created + at
	var node, scope string
	for len(r.b) > 0 {
		var f store.FactRow
		back := r.uvarint()
		t += r.varint()
		kind := r.uvarint()
		node, scope = r.repeated(node), r.repeated(scope)
		detailLen := r.uvarint()
		var detail []byte
		if detailLen > 0 {
			detail = r.take(detailLen - 1)
		}
		if r.err != nil {
			return fmt.Errorf("facts up to seq %d: %w", seq, r.err)
		}
		name, err := kindName(int64(kind))
		if err != nil {
			return err
		}
		f.Seq = seq - int64(back)
		f.At = decodeTime(t)
		f.Kind = name
		f.NodeID = node
		f.ScopePath = scope
		if detail != nil {
			f.Detail = expand(string(id), detail)
		}
		if !fn(f) {
			return nil
		}
	}
	return nil
}

// factReader reads the varints and bytes of a facts row; the first error
// sticks.
type factReader struct {
	b   []byte
	err error
}

func (r *factReader) uvarint() uint64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.err = fmt.Errorf("malformed varint")
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *factReader) varint() int64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Varint(r.b)
	if n <= 0 {
		r.err = fmt.Errorf("malformed varint")
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *factReader) take(n uint64) []byte {
	if r.err != nil {
		return nil
	}
	if n > uint64(len(r.b)) {
		r.err = fmt.Errorf("truncated")
		return nil
	}
	out := bytes.Clone(r.b[:n])
	r.b = r.b[n:]
	return out
}

// repeated reads an appendRepeated string whose previous value is prev.
func (r *factReader) repeated(prev string) string {
	n := r.uvarint()
	if n == 0 {
		return prev
	}
	return string(r.take(n - 1))
}

// Abbreviation of the instance's own id in the opaque JSON the store
// keeps for it (the state header, part data, fact details): the engine
// writes the id into the header and into every wait id ("<id>-w000001")
// it names, 36 bytes each time. The first stored form, which rows written
// before the packed form (dict.go) still hold, is the byte 0xff followed
// by the data with each occurrence of the id written as the byte 0x01 and
// each byte 0x01 or 0x02 of the data preceded by 0x02. Data that starts
// with neither mark (UTF-8, hence JSON, never does) is stored as it is;
// the rare data that does is escaped, so every value round-trips exactly.
const (
	abbrevMark   = 0xff
	abbrevID     = 0x01
	abbrevEscape = 0x02
	// minAbbrevID is the shortest id worth abbreviating.
	minAbbrevID = 8
)

// abbreviate returns the stored form of data of the instance id: its
// packed form (pack) when that is shorter or data starts with a mark byte,
// else data as it is. (Rows written before the packed form hold the first
// form, abbrevMark and the id abbreviated; expand reads both.)
func abbreviate(id string, data []byte) []byte {
	if len(data) == 0 {
		return data
	}
	packed := pack(id, data)
	if len(packed) < len(data) || data[0] == abbrevMark || data[0] == packedMark {
		return packed
	}
	return data
}

// expand returns the data of the instance id whose stored form is b.
func expand(id string, b []byte) []byte {
	if len(b) > 0 && b[0] == packedMark {
		return unpack(id, b[1:])
	}
	if len(b) == 0 || b[0] != abbrevMark {
		return b
	}
	out := make([]byte, 0, len(b)+64)
	for i := 1; i < len(b); i++ {
		switch b[i] {
		case abbrevID:
			out = append(out, id...)
		case abbrevEscape:
			if i+1 < len(b) {
				i++
				out = append(out, b[i])
			}
		default:
			out = append(out, b[i])
		}
	}
	return out
}
