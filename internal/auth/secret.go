package auth

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"database/sql/driver"
	"fmt"
	"io"
	"log/slog"
)

// redacted is what every secret-bearing value prints instead of itself.
const redacted = "[redacted]"

// SecretHash is the SHA-256 of a token secret or a session id: what the
// store keeps and looks up by, never the secret itself. A 256-bit random
// secret needs no salt or slow hash: nobody can guess it, so its hash cannot
// be reversed by trying candidates.
//
// A SecretHash never shows itself: fmt (every verb), slog and encoding/json
// print "[redacted]". The store reads its bytes as h[:] or through the
// driver.Valuer and sql.Scanner methods, which are the only ways out.
type SecretHash [sha256.Size]byte

// HashSecret returns the SHA-256 of secret.
func HashSecret(secret []byte) SecretHash { return SecretHash(sha256.Sum256(secret)) }

// SecretHashFromBytes returns the SecretHash stored as b, or an error
// wrapping ErrMalformedHash if b is not 32 bytes long.
func SecretHashFromBytes(b []byte) (SecretHash, error) {
	var h SecretHash
	if len(b) != len(h) {
		return h, fmt.Errorf("secret hash from %d bytes: %w", len(b), ErrMalformedHash)
	}
	copy(h[:], b)
	return h, nil
}

// Equal reports, in constant time, whether h and other are the same hash.
func (h SecretHash) Equal(other SecretHash) bool {
	return subtle.ConstantTimeCompare(h[:], other[:]) == 1
}

// IsZero reports whether h is the zero hash (never set).
func (h SecretHash) IsZero() bool { return h == SecretHash{} }

// String returns "[redacted]".
func (h SecretHash) String() string { return redacted }

// GoString returns "[redacted]".
func (h SecretHash) GoString() string { return redacted }

// Format writes "[redacted]" for every verb, so %x and %v cannot print the
// bytes either.
func (h SecretHash) Format(f fmt.State, _ rune) { _, _ = io.WriteString(f, redacted) }

// LogValue returns "[redacted]".
func (h SecretHash) LogValue() slog.Value { return slog.StringValue(redacted) }

// MarshalJSON encodes the hash as the string "[redacted]".
func (h SecretHash) MarshalJSON() ([]byte, error) { return []byte(`"` + redacted + `"`), nil }

// Value stores the hash as a 32-byte blob.
func (h SecretHash) Value() (driver.Value, error) { return h[:], nil }

// Scan reads a hash stored as a 32-byte blob.
func (h *SecretHash) Scan(src any) error {
	b, ok := src.([]byte)
	if !ok {
		return fmt.Errorf("scan secret hash from %T: %w", src, ErrMalformedHash)
	}
	v, err := SecretHashFromBytes(b)
	if err != nil {
		return fmt.Errorf("scan secret hash: %w", err)
	}
	*h = v
	return nil
}

// Secret is a string that must never be logged or shown: a client secret,
// a PKCE verifier. fmt, slog and encoding/json print "[redacted]"; the value
// itself is string(s).
type Secret string

// String returns "[redacted]".
func (s Secret) String() string { return redacted }

// GoString returns "[redacted]".
func (s Secret) GoString() string { return redacted }

// Format writes "[redacted]" for every verb.
func (s Secret) Format(f fmt.State, _ rune) { _, _ = io.WriteString(f, redacted) }

// LogValue returns "[redacted]".
func (s Secret) LogValue() slog.Value { return slog.StringValue(redacted) }

// MarshalJSON encodes the secret as the string "[redacted]".
func (s Secret) MarshalJSON() ([]byte, error) { return []byte(`"` + redacted + `"`), nil }

// randomBytes reads n bytes from r, or from crypto/rand when r is nil.
func randomBytes(r io.Reader, n int) ([]byte, error) {
	if r == nil {
		r = rand.Reader
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(r, b); err != nil {
		return nil, fmt.Errorf("read %d random bytes: %w", n, err)
	}
	return b, nil
}
