package auth_test

import (
	"encoding/base64"
	"errors"
	"regexp"
	"strings"
	"testing"

	"github.com/gobpm/gobpm/internal/auth"
	"golang.org/x/crypto/argon2"
)

func mustHash(tb testing.TB, password string, p auth.Params) string {
	tb.Helper()
	h, err := auth.HashPassword(seeded(1), password, p)
	if err != nil {
		tb.Fatalf("HashPassword: %v", err)
	}
	return h
}

func TestHashPasswordFormat(t *testing.T) {
	t.Parallel()
	h := mustHash(t, "correct horse battery", auth.TestParams())
	re := regexp.MustCompile(`^\$argon2id\$v=19\$m=64,t=1,p=1\$([A-Za-z0-9+/]{22})\$([A-Za-z0-9+/]{43})$`)
	m := re.FindStringSubmatch(h)
	if m == nil {
		t.Fatalf("hash %q is not a PHC argon2id string", h)
	}
	// The key in the string is argon2id over the salt in the string.
	salt, _ := base64.RawStdEncoding.DecodeString(m[1])
	key, _ := base64.RawStdEncoding.DecodeString(m[2])
	want := argon2.IDKey([]byte("correct horse battery"), salt, 1, 64, 1, 32)
	if string(key) != string(want) {
		t.Errorf("key in hash is not argon2id(password, salt)")
	}
	// The same randomness gives the same hash; other randomness another salt.
	if again := mustHash(t, "correct horse battery", auth.TestParams()); again != h {
		t.Errorf("same seed, different hash: %q vs %q", again, h)
	}
	other, err := auth.HashPassword(seeded(2), "correct horse battery", auth.TestParams())
	if err != nil || other == h {
		t.Errorf("other seed: hash %q, err %v; want a different hash", other, err)
	}
}

func TestVerifyPassword(t *testing.T) {
	t.Parallel()
	const pw = "correct horse battery"
	good := mustHash(t, pw, auth.TestParams())
	parts := strings.Split(good, "$") // "", argon2id, v=19, m=..., salt, key
	with := func(i int, v string) string {
		p := append([]string{}, parts...)
		p[i] = v
		return strings.Join(p, "$")
	}
	flip := func(s string) string { // change the first base64 character
		c := byte('A')
		if s[0] == 'A' {
			c = 'B'
		}
		return string(c) + s[1:]
	}
	tests := []struct {
		name     string
		encoded  string
		password string
		want     error
	}{
		{"right password", good, pw, nil},
		{"wrong password", good, pw + "!", auth.ErrMismatch},
		{"case matters", good, strings.ToUpper(pw), auth.ErrMismatch},
		{"empty password", good, "", auth.ErrPasswordEmpty},
		{"too long password", good, strings.Repeat("a", auth.MaxPasswordBytes+1), auth.ErrPasswordTooLong},
		{"tampered key", with(5, flip(parts[5])), pw, auth.ErrMismatch},
		{"tampered salt", with(4, flip(parts[4])), pw, auth.ErrMismatch},
		{"tampered time", with(3, "m=64,t=2,p=1"), pw, auth.ErrMismatch},
		{"tampered memory", with(3, "m=128,t=1,p=1"), pw, auth.ErrMismatch},
		{"argon2i", with(1, "argon2i"), pw, auth.ErrMalformedHash},
		{"old version", with(2, "v=16"), pw, auth.ErrMalformedHash},
		{"params out of order", with(3, "t=1,m=64,p=1"), pw, auth.ErrMalformedHash},
		{"leading zero", with(3, "m=064,t=1,p=1"), pw, auth.ErrMalformedHash},
		{"signed number", with(3, "m=+64,t=1,p=1"), pw, auth.ErrMalformedHash},
		{"no lanes", with(3, "m=64,t=1,p=0"), pw, auth.ErrMalformedHash},
		{"too many lanes", with(3, "m=64,t=1,p=256"), pw, auth.ErrMalformedHash},
		{"memory over the bound", with(3, "m=2097152,t=1,p=1"), pw, auth.ErrMalformedHash},
		{"time over the bound", with(3, "m=64,t=65,p=1"), pw, auth.ErrMalformedHash},
		{"padded salt", with(4, parts[4]+"=="), pw, auth.ErrMalformedHash},
		{"short salt", with(4, "AAAA"), pw, auth.ErrMalformedHash},
		{"short key", with(5, "AAAAAAAA"), pw, auth.ErrMalformedHash},
		{"missing field", strings.Join(parts[:5], "$"), pw, auth.ErrMalformedHash},
		{"empty hash", "", pw, auth.ErrMalformedHash},
		{"bcrypt", "$2a$10$N9qo8uLOickgx2ZMRZoMyeIjZAgcfl7p92ldGxad68LJZdL17lhWy", pw, auth.ErrMalformedHash},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := auth.VerifyPassword(tt.encoded, tt.password)
			if tt.want == nil {
				if err != nil {
					t.Fatalf("VerifyPassword = %v, want nil", err)
				}
				return
			}
			if !errors.Is(err, tt.want) {
				t.Fatalf("VerifyPassword = %v, want %v", err, tt.want)
			}
		})
	}
}

func TestVerifyPasswordNormalises(t *testing.T) {
	t.Parallel()
	composed, decomposed := "caf\u00e9-au-lait", "cafe\u0301-au-lait"
	h := mustHash(t, composed, auth.TestParams())
	if err := auth.VerifyPassword(h, decomposed); err != nil {
		t.Errorf("decomposed form of the same password: %v", err)
	}
}

func TestHashPasswordRefuses(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		password string
		params   auth.Params
		want     error
	}{
		{"empty", "", auth.TestParams(), auth.ErrPasswordEmpty},
		{"too long", strings.Repeat("x", auth.MaxPasswordBytes+1), auth.TestParams(), auth.ErrPasswordTooLong},
		{"zero params", "long enough pw", auth.Params{}, auth.ErrInvalidConfig},
		{"memory below lanes", "long enough pw", auth.Params{Memory: 8, Time: 1, Threads: 2, SaltLen: 16, KeyLen: 32}, auth.ErrInvalidConfig},
		{"short salt", "long enough pw", auth.Params{Memory: 64, Time: 1, Threads: 1, SaltLen: 4, KeyLen: 32}, auth.ErrInvalidConfig},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h, err := auth.HashPassword(seeded(1), tt.password, tt.params)
			if !errors.Is(err, tt.want) || h != "" {
				t.Fatalf("HashPassword = %q, %v; want %v", h, err, tt.want)
			}
		})
	}
	if _, err := auth.HashPassword(failingReader{}, "long enough pw", auth.TestParams()); err == nil ||
		!strings.Contains(err.Error(), "entropy exhausted") {
		t.Errorf("HashPassword with a failing reader = %v, want the reader's error", err)
	}
	if _, err := auth.HashPassword(seeded(1), strings.Repeat("x", auth.MaxPasswordBytes), auth.TestParams()); err != nil {
		t.Errorf("a password of exactly MaxPasswordBytes: %v", err)
	}
}

func TestPasswordParamsAndRehash(t *testing.T) {
	t.Parallel()
	def := mustHash(t, "correct horse battery", auth.DefaultParams())
	got, err := auth.PasswordParams(def)
	if err != nil || got != auth.DefaultParams() {
		t.Fatalf("PasswordParams(default hash) = %+v, %v; want %+v", got, err, auth.DefaultParams())
	}
	if !strings.Contains(def, "$m=65536,t=1,p=2$") {
		t.Errorf("default hash %q does not carry m=65536,t=1,p=2", def)
	}
	cheap := mustHash(t, "correct horse battery", auth.TestParams())
	raised := auth.DefaultParams()
	raised.Time = 2
	tests := []struct {
		name    string
		encoded string
		want    auth.Params
		rehash  bool
	}{
		{"default hash, default params", def, auth.DefaultParams(), false},
		{"test hash, default params", cheap, auth.DefaultParams(), true},
		{"test hash, test params", cheap, auth.TestParams(), false},
		{"default hash, raised params", def, raised, true},
		{"malformed hash", "$argon2id$nonsense", auth.DefaultParams(), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := auth.NeedsRehash(tt.encoded, tt.want); got != tt.rehash {
				t.Errorf("NeedsRehash = %v, want %v", got, tt.rehash)
			}
		})
	}
	if _, err := auth.PasswordParams("$argon2id$nonsense"); !errors.Is(err, auth.ErrMalformedHash) {
		t.Errorf("PasswordParams(malformed) = %v, want ErrMalformedHash", err)
	}
}

func TestCheckPasswordPolicy(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		password string
		want     error
	}{
		{"ten ascii", "0123456789", nil},
		{"nine ascii", "012345678", auth.ErrPasswordTooShort},
		{"ten runes, more bytes", "ääääääääää", nil},
		{"nine runes, many bytes", "äääääääää", auth.ErrPasswordTooShort},
		{"empty", "", auth.ErrPasswordEmpty},
		{"too long", strings.Repeat("x", auth.MaxPasswordBytes+1), auth.ErrPasswordTooLong},
		{"invalid UTF-8", "0123456789\xff", auth.ErrMalformedCredential},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := auth.CheckPasswordPolicy(tt.password)
			if (tt.want == nil && err != nil) || (tt.want != nil && !errors.Is(err, tt.want)) {
				t.Fatalf("CheckPasswordPolicy = %v, want %v", err, tt.want)
			}
		})
	}
}
