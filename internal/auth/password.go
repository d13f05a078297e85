package auth

import (
	"crypto/subtle"
	"encoding/base64"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/crypto/argon2"
	"golang.org/x/text/unicode/norm"
)

// Password limits. MaxPasswordBytes is enforced by HashPassword and
// VerifyPassword (it bounds the work one request can ask for);
// MinPasswordRunes only by CheckPasswordPolicy, which the caller applies
// when a password is set, never when one is verified.
const (
	// MaxPasswordBytes is the longest password accepted, in bytes.
	MaxPasswordBytes = 1024
	// MinPasswordRunes is the shortest password CheckPasswordPolicy accepts,
	// in characters (runes after NFKC normalisation).
	MinPasswordRunes = 10
)

// Bounds on argon2id parameters, applied both to the Params a hash is made
// with and to those parsed from a stored hash: a tampered row must not make
// a login allocate gigabytes or spin for minutes.
const (
	minMemoryPerThread = 8       // KiB; argon2's own floor is 8 KiB per lane
	maxMemory          = 1 << 20 // KiB, 1 GiB
	maxTime            = 64
	minSaltLen         = 8
	maxSaltLen         = 64
	minKeyLen          = 16
	maxKeyLen          = 64
)

// argon2 identifiers in the PHC string format.
const (
	phcAlgorithm = "argon2id"
	phcVersion   = argon2.Version // 0x13 = 19
)

// Params are the argon2id cost parameters of a password hash. They are
// written into every hash, so VerifyPassword needs no Params and raising the
// defaults later only makes NeedsRehash report old hashes, which the caller
// re-hashes at the next successful login.
type Params struct {
	// Memory is the memory cost in KiB.
	Memory uint32
	// Time is the number of passes over the memory.
	Time uint32
	// Threads is the degree of parallelism (argon2's lanes).
	Threads uint8
	// SaltLen is the length of the random salt in bytes.
	SaltLen uint32
	// KeyLen is the length of the derived key in bytes.
	KeyLen uint32
}

// DefaultParams returns the parameters for real passwords: 64 MiB, one
// pass, two lanes, a 16-byte salt and a 32-byte key. That is above OWASP's
// minimum for argon2id (46 MiB, t=1, p=1) and takes some tens of
// milliseconds; every concurrent login holds 64 MiB while it hashes, so the
// caller limits how many hash at once.
func DefaultParams() Params {
	return Params{Memory: 64 * 1024, Time: 1, Threads: 2, SaltLen: 16, KeyLen: 32}
}

// TestParams returns the cheapest parameters Validate accepts (64 KiB, one
// pass, one lane), for tests that hash many passwords. They are insecure:
// never use them for a real password. A hash made with them reports
// NeedsRehash against DefaultParams, so one that slips into a real store is
// replaced at its owner's next login.
func TestParams() Params {
	return Params{Memory: 64, Time: 1, Threads: 1, SaltLen: 16, KeyLen: 32}
}

// Validate reports whether p is within the bounds this package accepts,
// wrapping ErrInvalidConfig if not.
func (p Params) Validate() error {
	if why := p.outOfBounds(); why != "" {
		return fmt.Errorf("argon2id params: %s: %w", why, ErrInvalidConfig)
	}
	return nil
}

// outOfBounds says which bound p breaks, or "" if none.
func (p Params) outOfBounds() string {
	switch {
	case p.Threads < 1:
		return "threads < 1"
	case p.Memory < minMemoryPerThread*uint32(p.Threads) || p.Memory > maxMemory:
		return fmt.Sprintf("memory %d KiB outside [%d, %d]", p.Memory, minMemoryPerThread*uint32(p.Threads), maxMemory)
	case p.Time < 1 || p.Time > maxTime:
		return fmt.Sprintf("time %d outside [1, %d]", p.Time, maxTime)
	case p.SaltLen < minSaltLen || p.SaltLen > maxSaltLen:
		return fmt.Sprintf("salt length %d outside [%d, %d]", p.SaltLen, minSaltLen, maxSaltLen)
	case p.KeyLen < minKeyLen || p.KeyLen > maxKeyLen:
		return fmt.Sprintf("key length %d outside [%d, %d]", p.KeyLen, minKeyLen, maxKeyLen)
	}
	return ""
}

// HashPassword hashes password with argon2id under p and a fresh salt read
// from rand (crypto/rand when nil), and returns the PHC string
//
//	$argon2id$v=19$m=65536,t=1,p=2$<salt>$<key>
//
// with salt and key in unpadded standard base64. The password is NFKC
// normalised first (NIST SP 800-63B §5.1.1.2), so the same characters typed
// on different systems hash alike. It refuses an empty password
// (ErrPasswordEmpty) and one over MaxPasswordBytes (ErrPasswordTooLong); it
// does not apply CheckPasswordPolicy.
func HashPassword(rand io.Reader, password string, p Params) (string, error) {
	if err := checkPasswordBounds(password); err != nil {
		return "", fmt.Errorf("hash password: %w", err)
	}
	if err := p.Validate(); err != nil {
		return "", fmt.Errorf("hash password: %w", err)
	}
	salt, err := randomBytes(rand, int(p.SaltLen))
	if err != nil {
		return "", fmt.Errorf("hash password: salt: %w", err)
	}
	key := derive(password, salt, p)
	return fmt.Sprintf("$%s$v=%d$m=%d,t=%d,p=%d$%s$%s", phcAlgorithm, phcVersion, p.Memory, p.Time, p.Threads,
		base64.RawStdEncoding.EncodeToString(salt), base64.RawStdEncoding.EncodeToString(key)), nil
}

// VerifyPassword checks password against encoded, a hash made by
// HashPassword, with the parameters written in encoded. It returns nil on a
// match, an error wrapping ErrMismatch on a wrong password, ErrMalformedHash
// on a hash it cannot parse, and ErrPasswordEmpty or ErrPasswordTooLong for
// a password HashPassword would have refused. The comparison takes the same
// time wherever the keys differ.
//
// To keep an unknown user name from answering faster than a wrong password,
// the caller verifies the presented password against a hash it made at
// start-up and then answers ErrMismatch anyway.
func VerifyPassword(encoded, password string) error {
	if err := checkPasswordBounds(password); err != nil {
		return fmt.Errorf("verify password: %w", err)
	}
	p, salt, key, err := parsePHC(encoded)
	if err != nil {
		return fmt.Errorf("verify password: %w", err)
	}
	got := derive(password, salt, p)
	if subtle.ConstantTimeCompare(got, key) != 1 {
		return fmt.Errorf("verify password: %w", ErrMismatch)
	}
	return nil
}

// PasswordParams returns the parameters written in encoded, or an error
// wrapping ErrMalformedHash.
func PasswordParams(encoded string) (Params, error) {
	p, _, _, err := parsePHC(encoded)
	if err != nil {
		return Params{}, fmt.Errorf("password params: %w", err)
	}
	return p, nil
}

// NeedsRehash reports whether encoded was made with parameters other than
// want, or cannot be parsed at all. The caller re-hashes the password after
// a successful VerifyPassword when it does. Any difference counts, lower or
// higher, so lowering the defaults deliberately also takes effect.
func NeedsRehash(encoded string, want Params) bool {
	got, err := PasswordParams(encoded)
	return err != nil || got != want
}

// CheckPasswordPolicy reports whether password may be set as a new
// password: valid UTF-8, at least MinPasswordRunes characters after NFKC
// normalisation (ErrPasswordTooShort) and at most MaxPasswordBytes bytes
// (ErrPasswordTooLong). It sets no composition rules (NIST SP 800-63B
// advises against them); the caller may add a breached-password check.
func CheckPasswordPolicy(password string) error {
	if err := checkPasswordBounds(password); err != nil {
		return fmt.Errorf("password policy: %w", err)
	}
	if !utf8.ValidString(password) {
		return fmt.Errorf("password policy: not valid UTF-8: %w", ErrMalformedCredential)
	}
	if n := utf8.RuneCountInString(norm.NFKC.String(password)); n < MinPasswordRunes {
		return fmt.Errorf("password policy: %d characters, want at least %d: %w", n, MinPasswordRunes, ErrPasswordTooShort)
	}
	return nil
}

func checkPasswordBounds(password string) error {
	switch {
	case password == "":
		return ErrPasswordEmpty
	case len(password) > MaxPasswordBytes:
		return fmt.Errorf("%d bytes, at most %d: %w", len(password), MaxPasswordBytes, ErrPasswordTooLong)
	}
	return nil
}

func derive(password string, salt []byte, p Params) []byte {
	return argon2.IDKey([]byte(norm.NFKC.String(password)), salt, p.Time, p.Memory, p.Threads, p.KeyLen)
}

// parsePHC parses "$argon2id$v=19$m=M,t=T,p=P$salt$key" strictly: fields in
// this order, decimal numbers without signs or leading zeros, canonical
// unpadded base64, and Params within Validate's bounds.
func parsePHC(encoded string) (Params, []byte, []byte, error) {
	fail := func(why string) (Params, []byte, []byte, error) {
		return Params{}, nil, nil, fmt.Errorf("argon2id hash: %s: %w", why, ErrMalformedHash)
	}
	parts := strings.Split(encoded, "$")
	if len(parts) != 6 || parts[0] != "" {
		return fail("want 5 $-separated fields")
	}
	if parts[1] != phcAlgorithm {
		return fail("algorithm is not " + phcAlgorithm)
	}
	if v, ok := strings.CutPrefix(parts[2], "v="); !ok || v != strconv.Itoa(phcVersion) {
		return fail("version is not " + strconv.Itoa(phcVersion))
	}
	fields := strings.Split(parts[3], ",")
	if len(fields) != 3 {
		return fail("want m=,t=,p=")
	}
	var nums [3]uint32
	for i, name := range []string{"m=", "t=", "p="} {
		s, ok := strings.CutPrefix(fields[i], name)
		if !ok {
			return fail("want " + name)
		}
		n, err := strconv.ParseUint(s, 10, 32)
		if err != nil || strconv.FormatUint(n, 10) != s {
			return fail("bad number in " + name)
		}
		nums[i] = uint32(n)
	}
	if nums[2] > 255 {
		return fail("p > 255")
	}
	salt, err := base64.RawStdEncoding.Strict().DecodeString(parts[4])
	if err != nil {
		return fail("salt is not unpadded base64")
	}
	key, err := base64.RawStdEncoding.Strict().DecodeString(parts[5])
	if err != nil {
		return fail("key is not unpadded base64")
	}
	p := Params{Memory: nums[0], Time: nums[1], Threads: uint8(nums[2]), SaltLen: uint32(len(salt)), KeyLen: uint32(len(key))}
	if why := p.outOfBounds(); why != "" {
		return fail(why)
	}
	return p, salt, key, nil
}
