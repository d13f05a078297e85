package auth_test

import (
	"encoding/base64"
	"encoding/hex"
	"errors"
	"testing"
	"time"

	"github.com/gobpm/gobpm/internal/auth"
)

func TestSession(t *testing.T) {
	t.Parallel()
	policy := auth.SessionPolicy{TTL: 8 * time.Hour, Idle: 30 * time.Minute}
	cookie, s, err := auth.NewSession(seeded(1), t0, "ann", []auth.GroupID{"clerks"}, policy)
	if err != nil {
		t.Fatalf("NewSession: %v", err)
	}
	if len(cookie) != 43 {
		t.Errorf("cookie %q: %d characters, want 43", cookie, len(cookie))
	}
	if s.User != "ann" || !s.CreatedAt.Equal(t0) || !s.LastSeenAt.Equal(t0) || !s.ExpiresAt.Equal(t0.Add(8*time.Hour)) ||
		len(s.Groups) != 1 || s.Groups[0] != "clerks" {
		t.Errorf("session = %+v", s.LogValue())
	}
	key, err := auth.SessionKey(cookie)
	if err != nil || key != s.IDHash {
		t.Fatalf("SessionKey(cookie) = %v, want the stored IDHash", err)
	}
	other, _, err := auth.NewSession(seeded(2), t0, "ann", nil, policy)
	if err != nil || other == cookie {
		t.Fatalf("a second session: %q, %v", other, err)
	}
	seen := s
	seen.LastSeenAt = t0.Add(7 * time.Hour)
	tests := []struct {
		name   string
		s      auth.Session
		cookie string
		now    time.Time
		want   error
	}{
		{"fresh", s, cookie, t0, nil},
		{"just before idle", s, cookie, t0.Add(30*time.Minute - 1), nil},
		{"idle", s, cookie, t0.Add(30 * time.Minute), auth.ErrExpired},
		{"recently seen", seen, cookie, t0.Add(7*time.Hour + 29*time.Minute), nil},
		{"past TTL though recently seen", seen, cookie, t0.Add(8 * time.Hour), auth.ErrExpired},
		{"another session's cookie", s, other, t0, auth.ErrMismatch},
		{"no cookie", s, "", t0, auth.ErrMalformedCredential},
		{"padded cookie", s, cookie + "=", t0, auth.ErrMalformedCredential},
		{"short cookie", s, cookie[:42], t0, auth.ErrMalformedCredential},
		{"stored without hash", auth.Session{User: "ann", ExpiresAt: t0.Add(time.Hour), LastSeenAt: t0}, cookie, t0, auth.ErrMismatch},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := tt.s.Check(tt.cookie, tt.now, policy)
			if (tt.want == nil && err != nil) || (tt.want != nil && !errors.Is(err, tt.want)) {
				t.Fatalf("Check = %v, want %v", err, tt.want)
			}
		})
	}
	if err := s.Check(cookie, t0.Add(7*time.Hour), auth.SessionPolicy{TTL: 8 * time.Hour}); err != nil {
		t.Errorf("Idle 0 means no idle limit: %v", err)
	}
	raw, _ := base64.RawURLEncoding.DecodeString(cookie)
	h := s.IDHash
	assertNoLeak(t, s, cookie, cookie[:12], hex.EncodeToString(h[:8]), hex.EncodeToString(raw[:8]), byteList(h[:4]))
}

func TestNewSessionRefuses(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		user   auth.UserID
		policy auth.SessionPolicy
	}{
		{"no user", "", auth.DefaultSessionPolicy()},
		{"no TTL", "ann", auth.SessionPolicy{}},
		{"negative idle", "ann", auth.SessionPolicy{TTL: time.Hour, Idle: -1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if c, _, err := auth.NewSession(seeded(1), t0, tt.user, nil, tt.policy); !errors.Is(err, auth.ErrInvalidConfig) || c != "" {
				t.Fatalf("NewSession = %q, %v; want ErrInvalidConfig", c, err)
			}
		})
	}
	if _, _, err := auth.NewSession(failingReader{}, t0, "ann", nil, auth.DefaultSessionPolicy()); err == nil {
		t.Error("NewSession with a failing reader succeeded")
	}
}

func TestSecretHashStorage(t *testing.T) {
	t.Parallel()
	h := auth.HashSecret([]byte("x"))
	v, err := h.Value()
	if err != nil {
		t.Fatal(err)
	}
	var back auth.SecretHash
	if err := back.Scan(v); err != nil || !back.Equal(h) {
		t.Fatalf("Scan(Value()) = %v, equal %v", err, back.Equal(h))
	}
	for _, bad := range []any{"text", []byte{1, 2, 3}, nil, int64(4)} {
		if err := back.Scan(bad); !errors.Is(err, auth.ErrMalformedHash) {
			t.Errorf("Scan(%T) = %v, want ErrMalformedHash", bad, err)
		}
	}
	if _, err := auth.SecretHashFromBytes(make([]byte, 31)); !errors.Is(err, auth.ErrMalformedHash) {
		t.Errorf("SecretHashFromBytes(31 bytes) = %v", err)
	}
	if h.Equal(auth.HashSecret([]byte("y"))) || h.IsZero() || !(auth.SecretHash{}).IsZero() {
		t.Error("Equal or IsZero is wrong")
	}
	sec := auth.Secret("client-secret-value")
	assertNoLeak(t, sec, "client-secret-value")
	assertNoLeak(t, auth.OIDCConfig{ClientSecret: sec, ClientID: "gobpm"}, "client-secret-value")
}
