package store

import (
	"database/sql/driver"
	"encoding/hex"
	"fmt"

	"github.com/gobpm/gobpm/internal/runtime"
)

// dbID is an instance, wait or job id, or a part key, as the database
// stores it (migration 0005): a canonical UUID (36 lowercase characters, 8-4-4-4-12) as its 16
// bytes, any other id as TEXT. A BLOB never equals a TEXT in SQLite, so
// the encodings cannot collide, and every id round-trips exactly. Pass
// dbID(id) as an argument and scan into (*dbID)(&s).
type dbID string

// Value implements driver.Valuer.
func (id dbID) Value() (driver.Value, error) {
	if b, ok := uuidBytes(string(id)); ok {
		return b, nil
	}
	return string(id), nil
}

// Scan implements sql.Scanner: a 16-byte BLOB is a UUID, TEXT is the id.
func (id *dbID) Scan(src any) error {
	switch v := src.(type) {
	case string:
		*id = dbID(v)
	case []byte:
		if len(v) != 16 {
			return fmt.Errorf("id: %d-byte blob is not a UUID", len(v))
		}
		*id = dbID(formatUUID(v))
	case nil:
		*id = ""
	default:
		return fmt.Errorf("id: unexpected %T", src)
	}
	return nil
}

// idDest returns a scan destination that decodes an id column into p, a
// *string or a *runtime.InstanceID.
func idDest(p any) *dbID {
	switch p := p.(type) {
	case *string:
		return (*dbID)(p)
	case *runtime.InstanceID:
		return (*dbID)((*string)(p))
	default:
		panic(fmt.Sprintf("store: idDest of %T", p))
	}
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
