package engine

import (
	"strconv"

	"github.com/google/uuid"
)

// idNamespace is the namespace of NameBasedID (a random UUID of gobpm's
// own, as RFC 4122 §4.3 asks).
var idNamespace = uuid.UUID{0x6b, 0x1f, 0x3c, 0x52, 0x9a, 0x0e, 0x4d, 0x7b, 0xa4, 0x61, 0x2e, 0x88, 0x05, 0xd3, 0xc9, 0x17}

// NameBasedID returns the deterministic UUID (RFC 4122 version 5: SHA-1 of
// a namespace and a name) named by instance and the wait counter n: the
// id a call activity's child gets when Options.MintIDFunc is nil, so pure
// engine runs are reproducible. It is 36 characters whatever the length
// of instance, so ids do not grow along a call chain.
func NameBasedID(instance string, n int64) string {
	name := make([]byte, 0, len(instance)+24)
	name = append(name, instance...)
	name = append(name, "/w"...)
	name = strconv.AppendInt(name, n, 10)
	return uuid.NewSHA1(idNamespace, name).String()
}
