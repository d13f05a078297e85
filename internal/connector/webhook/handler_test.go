package webhook

import (
	"crypto/hmac"
	"crypto/sha1" //nolint:gosec // the test signs as a sha_1 webhook sender does
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"hash"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestValidHMAC(t *testing.T) {
	t.Parallel()
	body := []byte(`{"a":1}`)
	mac := func(fn func() hash.Hash, secret string) []byte {
		m := hmac.New(fn, []byte(secret))
		m.Write(body)
		return m.Sum(nil)
	}
	tests := []struct {
		name, alg, sig string
		want           bool
	}{
		{"sha256Hex", "sha_256", hex.EncodeToString(mac(sha256.New, "s")), true},
		{"sha256Prefixed", "sha_256", "sha256=" + hex.EncodeToString(mac(sha256.New, "s")), true},
		{"sha256Base64", "sha_256", base64.StdEncoding.EncodeToString(mac(sha256.New, "s")), true},
		{"sha1", "sha_1", "sha1=" + hex.EncodeToString(mac(sha1.New, "s")), true},
		{"sha512", "sha_512", hex.EncodeToString(mac(sha512.New, "s")), true},
		{"wrongSecret", "sha_256", hex.EncodeToString(mac(sha256.New, "t")), false},
		{"wrongAlgorithm", "sha_512", hex.EncodeToString(mac(sha256.New, "s")), false},
		{"empty", "sha_256", "", false},
		{"garbage", "sha_256", "sha256=zz", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := validHMAC(tt.alg, "s", body, tt.sig); got != tt.want {
				t.Fatalf("validHMAC = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestBuckets(t *testing.T) {
	t.Parallel()
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	b := newBuckets(2, 3, func() time.Time { return now })
	for i := range 3 {
		if _, ok := b.take("a"); !ok {
			t.Fatalf("take %d refused within the burst", i)
		}
	}
	wait, ok := b.take("a")
	if ok || wait != 500*time.Millisecond {
		t.Fatalf("take after the burst = %v, %v; want refused, 500ms", wait, ok)
	}
	if _, ok := b.take("b"); !ok {
		t.Fatal("another path shares the bucket")
	}
	now = now.Add(500 * time.Millisecond)
	if _, ok := b.take("a"); !ok {
		t.Fatal("no token after the refill")
	}
	if _, ok := newBuckets(-1, 1, time.Now).take("a"); !ok {
		t.Fatal("a negative rate limits")
	}
}

// A base64 signature that itself starts with "sha" (and holds a "=" of
// padding) is checked as sent, not cut at its "=" as if it were a
// "sha256=" prefix.
func TestValidHMACBase64StartingWithSha(t *testing.T) {
	t.Parallel()
	for i := 0; i < 1<<22; i++ {
		body := []byte("body-" + strconv.Itoa(i))
		m := hmac.New(sha256.New, []byte("s"))
		m.Write(body)
		sig := base64.StdEncoding.EncodeToString(m.Sum(nil))
		if !strings.HasPrefix(sig, "sha") {
			continue
		}
		if !validHMAC("sha_256", "s", body, sig) {
			t.Fatalf("the base64 signature %q of %q is refused", sig, body)
		}
		if !validHMAC("sha_256", "s", body, "sha256="+sig) {
			t.Fatalf("the prefixed base64 signature of %q is refused", body)
		}
		return
	}
	t.Fatal("no body with a base64 signature starting with sha found")
}
