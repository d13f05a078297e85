package auth_test

import (
	"bytes"
	"encoding/base32"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/gobpm/gobpm/internal/auth"
	"github.com/gobpm/gobpm/internal/clock"
)

// t0 is the fixed time tests start at.
var t0 = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

// seeded returns a deterministic random source for seed.
func seeded(seed byte) io.Reader {
	var s [32]byte
	s[0] = seed
	return rand.NewChaCha8(s)
}

// failingReader is a random source that always fails.
type failingReader struct{}

func (failingReader) Read([]byte) (int, error) { return 0, errors.New("entropy exhausted") }

// newFakeClock is a manual clock standing at t0, which tests move by hand.
func newFakeClock() *clock.Manual { return clock.NewManual(t0) }

// renderings returns v as every way it could reach a log or an answer: fmt
// verbs, nested in a struct, slog text and JSON handlers, encoding/json.
func renderings(tb testing.TB, v any) map[string]string {
	tb.Helper()
	out := map[string]string{}
	for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%X", "%d"} {
		out["fmt "+verb] = fmt.Sprintf(verb, v)
		out["fmt nested "+verb] = fmt.Sprintf(verb, struct{ V any }{v})
		out["fmt slice "+verb] = fmt.Sprintf(verb, []any{v})
	}
	var text, js bytes.Buffer
	slog.New(slog.NewTextHandler(&text, nil)).Info("msg", "value", v)
	slog.New(slog.NewJSONHandler(&js, nil)).Info("msg", "value", v)
	out["slog text"] = text.String()
	out["slog json"] = js.String()
	b, err := json.Marshal(v)
	if err != nil {
		tb.Fatalf("json.Marshal(%T): %v", v, err)
	}
	out["json"] = string(b)
	return out
}

// assertNoLeak fails if any rendering of v contains any of secrets.
func assertNoLeak(tb testing.TB, v any, secrets ...string) {
	tb.Helper()
	for how, s := range renderings(tb, v) {
		for _, secret := range secrets {
			if secret == "" {
				tb.Fatal("empty secret to look for")
			}
			if strings.Contains(strings.ToLower(s), strings.ToLower(secret)) {
				tb.Errorf("%s of %T shows %q:\n%s", how, v, secret, s)
			}
		}
	}
}

// base32Decode decodes a token part (lowercase unpadded base32).
func base32Decode(s string) ([]byte, error) {
	return base32.StdEncoding.WithPadding(base32.NoPadding).DecodeString(strings.ToUpper(s))
}

// byteList renders b as fmt prints a byte array, "[1 2 3", without the
// closing bracket so it also matches a prefix of a longer array.
func byteList(b []byte) string {
	return strings.TrimSuffix(fmt.Sprint(b), "]")
}

func mustGrant(tb testing.TB, perm auth.Permission, kind auth.ResourceKind, pattern string) auth.Grant {
	tb.Helper()
	g, err := auth.NewGrant(perm, kind, pattern)
	if err != nil {
		tb.Fatalf("NewGrant: %v", err)
	}
	return g
}
