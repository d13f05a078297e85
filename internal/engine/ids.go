package engine

import (
	"crypto/sha1" //nolint:gosec // a name-based UUID, not a secret: RFC 4122 version 5 is SHA-1 by definition
	"encoding/hex"
	"strconv"
)

// idNamespace is the namespace of NameBasedID (a random UUID of gobpm's
// own, as RFC 4122 §4.3 asks).
var idNamespace = [16]byte{0x6b, 0x1f, 0x3c, 0x52, 0x9a, 0x0e, 0x4d, 0x7b, 0xa4, 0x61, 0x2e, 0x88, 0x05, 0xd3, 0xc9, 0x17}

// NameBasedID returns the deterministic UUID (RFC 4122 version 5: SHA-1 of
// a namespace and a name) named by instance and the wait counter n: the
// id a call activity's child gets when Options.MintIDFunc is nil, so pure
// engine runs are reproducible. It is 36 characters whatever the length
// of instance, so ids do not grow along a call chain.
func NameBasedID(instance string, n int64) string {
	h := sha1.New() //nolint:gosec // see the import
	h.Write(idNamespace[:])
	h.Write([]byte(instance))
	h.Write([]byte("/w"))
	h.Write([]byte(strconv.FormatInt(n, 10)))
	var b [16]byte
	copy(b[:], h.Sum(nil))
	b[6] = b[6]&0x0f | 0x50 // version 5
	b[8] = b[8]&0x3f | 0x80 // RFC 4122 variant
	var out [36]byte
	hex.Encode(out[0:8], b[0:4])
	out[8] = '-'
	hex.Encode(out[9:13], b[4:6])
	out[13] = '-'
	hex.Encode(out[14:18], b[6:8])
	out[18] = '-'
	hex.Encode(out[19:23], b[8:10])
	out[23] = '-'
	hex.Encode(out[24:], b[10:])
	return string(out[:])
}
