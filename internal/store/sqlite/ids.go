package sqlite

import (
	"database/sql/driver"
	"encoding/hex"
	"fmt"
	"math"
	"strings"

	"github.com/gobpm/gobpm/internal/store"
)

// dbID is an instance, wait or job id, or a part key, as the database
// stores it (migration 0005):
//
//   - a canonical UUID (36 lowercase characters, 8-4-4-4-12) as its 16
//     bytes;
//   - a canonical UUID followed by "-w" and a counter written as "%06d"
//     (the engine's wait ids, "<instance>-w000001") as the UUID's 16
//     bytes followed by the counter in an order-preserving varint
//     (ordVarint): 17 bytes instead of 44 for the first 240 waits;
//   - any other id as TEXT.
//
// A BLOB never equals a TEXT in SQLite and the two BLOB shapes differ in
// length, so the encodings cannot collide, and every id round-trips
// exactly (a suffix that "%06d" would not produce, such as "-w01" or
// "-w0000001", stays TEXT). BLOBs compare as the ids' text does for ids of
// one shape: hex digits sort as their values, and the counter's varint
// sorts as the number. Pass dbID(id) as an argument and scan into
// (*dbID)(&s).
type dbID string

// Value implements driver.Valuer.
func (id dbID) Value() (driver.Value, error) {
	if b, ok := idBytes(string(id)); ok {
		return b, nil
	}
	return string(id), nil
}

// Scan implements sql.Scanner: a BLOB is a UUID or a UUID-based wait id,
// TEXT is the id.
func (id *dbID) Scan(src any) error {
	switch v := src.(type) {
	case string:
		*id = dbID(v)
	case []byte:
		s, err := decodeIDBytes(v)
		if err != nil {
			return err
		}
		*id = dbID(s)
	case nil:
		*id = ""
	default:
		return fmt.Errorf("id: unexpected %T", src)
	}
	return nil
}

// idDest returns a scan destination that decodes an id column into p, a
// *string or a *store.InstanceID.
func idDest(p any) *dbID {
	switch p := p.(type) {
	case *string:
		return (*dbID)(p)
	case *store.InstanceID:
		return (*dbID)((*string)(p))
	default:
		panic(fmt.Sprintf("store: idDest of %T", p))
	}
}

// partKey is the key of a part of instance id as instance_parts stores it
// (migration 0005): the counter n of a key "<id>-w%06d" as an INTEGER, any
// other key as dbID. Scan a key with scanPartKey.
func partKey(id store.InstanceID, key string) any {
	if rest, ok := strings.CutPrefix(key, string(id)+waitSep); ok && id != "" {
		if n, ok := waitCounter(rest); ok && n <= math.MaxInt64 {
			return int64(n)
		}
	}
	return dbID(key)
}

// partKeyDest scans a key column of instance id into p.
type partKeyDest struct {
	id store.InstanceID
	p  *string
}

// Scan implements sql.Scanner.
func (d partKeyDest) Scan(src any) error {
	if n, ok := src.(int64); ok {
		*d.p = fmt.Sprintf("%s%s%06d", d.id, waitSep, n)
		return nil
	}
	return (*dbID)(d.p).Scan(src)
}

// waitSep separates an instance id from the counter of a wait id.
const waitSep = "-w"

// idBytes returns the BLOB encoding of a UUID or a UUID-based wait id.
func idBytes(s string) ([]byte, bool) {
	if len(s) == 36 {
		return uuidBytes(s)
	}
	if len(s) < 36+len(waitSep)+6 || s[36:36+len(waitSep)] != waitSep {
		return nil, false
	}
	n, ok := waitCounter(s[36+len(waitSep):])
	if !ok {
		return nil, false
	}
	b, ok := uuidBytes(s[:36])
	if !ok {
		return nil, false
	}
	return appendOrdVarint(b, n), true
}

// waitCounter parses the counter of a wait id: digits exactly as "%06d"
// writes a number (at least six, no leading zero beyond the padding).
func waitCounter(s string) (uint64, bool) {
	if len(s) < 6 || len(s) > 19 || (len(s) > 6 && s[0] == '0') {
		return 0, false
	}
	var n uint64
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + uint64(c-'0')
	}
	return n, true
}

// decodeIDBytes decodes a BLOB id.
func decodeIDBytes(b []byte) (string, error) {
	switch {
	case len(b) == 16:
		return formatUUID(b), nil
	case len(b) > 16:
		n, rest, ok := readOrdVarint(b[16:])
		if !ok || len(rest) != 0 {
			return "", fmt.Errorf("id: malformed %d-byte blob", len(b))
		}
		return fmt.Sprintf("%s%s%06d", formatUUID(b[:16]), waitSep, n), nil
	default:
		return "", fmt.Errorf("id: %d-byte blob is not a UUID", len(b))
	}
}

// appendOrdVarint appends n as an order-preserving varint: n <= 240 is
// one byte; a larger n is the byte 240+k followed by its k big-endian
// bytes (k minimal). Comparing encodings bytewise compares the numbers.
func appendOrdVarint(b []byte, n uint64) []byte {
	if n <= 240 {
		return append(b, byte(n))
	}
	k := 1
	for n>>(8*k) != 0 {
		k++
	}
	b = append(b, byte(240+k))
	for i := k - 1; i >= 0; i-- {
		b = append(b, byte(n>>(8*i)))
	}
	return b
}

// readOrdVarint reads an appendOrdVarint number from b and returns the
// rest; ok is false if b is short or the encoding is not minimal.
func readOrdVarint(b []byte) (n uint64, rest []byte, ok bool) {
	if len(b) == 0 {
		return 0, nil, false
	}
	if b[0] <= 240 {
		return uint64(b[0]), b[1:], true
	}
	k := int(b[0]) - 240
	if k > 8 || len(b) < 1+k || b[1] == 0 {
		return 0, nil, false
	}
	for _, c := range b[1 : 1+k] {
		n = n<<8 | uint64(c)
	}
	if n <= 240 {
		return 0, nil, false
	}
	return n, b[1+k:], true
}

// uuidBytes returns the 16 bytes of a canonical lowercase UUID.
func uuidBytes(s string) ([]byte, bool) {
	if len(s) != 36 || s[8] != '-' || s[13] != '-' || s[18] != '-' || s[23] != '-' {
		return nil, false
	}
	var hexd [32]byte
	n := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case i == 8 || i == 13 || i == 18 || i == 23:
			continue
		case c >= '0' && c <= '9', c >= 'a' && c <= 'f':
			hexd[n] = c
			n++
		default:
			return nil, false
		}
	}
	b := make([]byte, 16)
	if _, err := hex.Decode(b, hexd[:]); err != nil {
		return nil, false
	}
	return b, true
}

// formatUUID formats 16 bytes as a canonical lowercase UUID.
func formatUUID(b []byte) string {
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

// EncodeID returns id as the database stores it in an id column (see
// dbID), for tools and tests that read the SQLite file directly.
func EncodeID(id string) any {
	v, _ := dbID(id).Value() // never fails
	return v
}

// DecodeID returns the id a stored id column holds, read as any; it
// reverses EncodeID.
func DecodeID(v any) (string, error) {
	var id dbID
	err := id.Scan(v)
	return string(id), err
}
