package auth_test

import (
	"encoding/base64"
	"encoding/hex"
	"errors"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gobpm/gobpm/internal/auth"
)

func mustMint(tb testing.TB, seed byte, req auth.TokenRequest) (string, auth.Token) {
	tb.Helper()
	s, tok, err := auth.MintToken(seeded(seed), t0, req)
	if err != nil {
		tb.Fatalf("MintToken: %v", err)
	}
	return s, tok
}

func mustParse(tb testing.TB, s string) auth.PresentedToken {
	tb.Helper()
	p, err := auth.ParseToken(s)
	if err != nil {
		tb.Fatalf("ParseToken: %v", err)
	}
	return p
}

func TestMintToken(t *testing.T) {
	t.Parallel()
	work := mustGrant(t, auth.PermWork, auth.KindJobType, "invoice")
	req := auth.TokenRequest{Owner: "svc-invoice", Name: "invoice worker",
		Restriction: &auth.Restriction{Grants: []auth.Grant{work}}, TTL: 30 * 24 * time.Hour}
	s, tok := mustMint(t, 1, req)
	if !regexp.MustCompile(`^gobpm_[a-z2-7]{16}_[a-z2-7]{52}$`).MatchString(s) {
		t.Fatalf("token %q does not have the gobpm_<id>_<secret> layout", s)
	}
	if !auth.HasTokenPrefix(s) || auth.HasTokenPrefix("eyJhbGciOi.x.y") {
		t.Errorf("HasTokenPrefix does not tell a token from a JWT")
	}
	if want := auth.TokenID(s[len("gobpm_"):][:16]); tok.ID != want {
		t.Errorf("Token.ID = %q, want the id part %q", tok.ID, want)
	}
	if tok.Owner != "svc-invoice" || tok.Name != "invoice worker" || !tok.CreatedAt.Equal(t0) ||
		!tok.ExpiresAt.Equal(t0.Add(30*24*time.Hour)) || !tok.LastUsedAt.IsZero() || !tok.RevokedAt.IsZero() {
		t.Errorf("Token metadata = %v %+v", tok, tok.LogValue())
	}
	if tok.Hash.IsZero() {
		t.Error("Token.Hash is zero")
	}
	// The token keeps its own copy of the restriction.
	req.Restriction.Grants[0] = mustGrant(t, auth.PermWork, auth.KindJobType, "*")
	if tok.Restriction.Grants[0] != work {
		t.Error("changing the request changed the minted token's restriction")
	}
	if s2, tok2 := mustMint(t, 1, req); s2 != s || tok2.ID != tok.ID {
		t.Error("same seed minted a different token")
	}
	if s3, tok3 := mustMint(t, 2, req); s3 == s || tok3.ID == tok.ID {
		t.Error("another seed minted the same token")
	}
	if _, tok4 := mustMint(t, 3, auth.TokenRequest{Owner: "ann", Name: "cli"}); !tok4.ExpiresAt.IsZero() {
		t.Errorf("TTL 0: ExpiresAt = %v, want zero (never)", tok4.ExpiresAt)
	}
}

func TestMintTokenRefuses(t *testing.T) {
	t.Parallel()
	bad := auth.Grant{Permission: auth.PermWork, Kind: auth.KindProcess, Pattern: auth.Any()}
	tests := []struct {
		name string
		req  auth.TokenRequest
		want error
	}{
		{"no owner", auth.TokenRequest{Name: "x"}, auth.ErrInvalidConfig},
		{"no name", auth.TokenRequest{Owner: "ann", Name: "  "}, auth.ErrInvalidConfig},
		{"negative TTL", auth.TokenRequest{Owner: "ann", Name: "x", TTL: -time.Second}, auth.ErrInvalidConfig},
		{"invalid restriction", auth.TokenRequest{Owner: "ann", Name: "x", Restriction: &auth.Restriction{Grants: []auth.Grant{bad}}}, auth.ErrInvalidGrant},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if s, _, err := auth.MintToken(seeded(1), t0, tt.req); !errors.Is(err, tt.want) || s != "" {
				t.Fatalf("MintToken = %q, %v; want %v", s, err, tt.want)
			}
		})
	}
	if _, _, err := auth.MintToken(failingReader{}, t0, auth.TokenRequest{Owner: "ann", Name: "x"}); err == nil {
		t.Error("MintToken with a failing reader succeeded")
	}
}

func TestParseToken(t *testing.T) {
	t.Parallel()
	s, tok := mustMint(t, 1, auth.TokenRequest{Owner: "ann", Name: "cli"})
	if p := mustParse(t, s); p.ID() != tok.ID {
		t.Fatalf("ParseToken(%q).ID() = %q, want %q", s, p.ID(), tok.ID)
	}
	id, secret := s[6:22], s[23:]
	tests := []struct{ name, s string }{
		{"empty", ""},
		{"no prefix", s[6:]},
		{"other prefix", "ghp_" + s[6:]},
		{"upper case", strings.ToUpper(s)},
		{"short", s[:len(s)-1]},
		{"long", s + "a"},
		{"wrong separator", "gobpm_" + id + "-" + secret},
		{"not base32", "gobpm_" + id + "_" + "0" + secret[1:]},
		{"non-canonical last character", "gobpm_" + id + "_" + secret[:51] + "b"},
		{"white space", " " + s},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := auth.ParseToken(tt.s)
			if !errors.Is(err, auth.ErrMalformedCredential) {
				t.Fatalf("ParseToken = %v, want ErrMalformedCredential", err)
			}
			if tt.s != "" && len(tt.s) > 20 && strings.Contains(err.Error(), tt.s[len(tt.s)-20:]) {
				t.Errorf("error %q echoes the presented token", err)
			}
		})
	}
}

func TestTokenVerify(t *testing.T) {
	t.Parallel()
	s, tok := mustMint(t, 1, auth.TokenRequest{Owner: "ann", Name: "cli", TTL: time.Hour})
	other, otherTok := mustMint(t, 2, auth.TokenRequest{Owner: "ann", Name: "other"})
	// The same id with another (canonical) secret.
	c := byte('a')
	if s[23] == 'a' {
		c = 'b'
	}
	wrongSecret := s[:23] + string(c) + s[24:]
	revoked := tok
	revoked.RevokedAt = t0.Add(time.Minute)
	noHash := tok
	noHash.Hash = auth.SecretHash{}
	tests := []struct {
		name      string
		tok       auth.Token
		presented string
		now       time.Time
		want      error
	}{
		{"fresh", tok, s, t0, nil},
		{"just before expiry", tok, s, t0.Add(time.Hour - time.Nanosecond), nil},
		{"at expiry", tok, s, t0.Add(time.Hour), auth.ErrExpired},
		{"after expiry", tok, s, t0.Add(2 * time.Hour), auth.ErrExpired},
		{"never expires", otherTok, other, t0.Add(100 * 365 * 24 * time.Hour), nil},
		{"wrong secret", tok, wrongSecret, t0, auth.ErrMismatch},
		{"another token's string", tok, other, t0, auth.ErrMismatch},
		{"revoked", revoked, s, t0, auth.ErrRevoked},
		{"revoked, wrong secret, says nothing of revocation", revoked, wrongSecret, t0, auth.ErrMismatch},
		{"expired, wrong secret", tok, wrongSecret, t0.Add(2 * time.Hour), auth.ErrMismatch},
		{"stored without hash", noHash, s, t0, auth.ErrMismatch},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := tt.tok.Verify(mustParse(t, tt.presented), tt.now)
			if (tt.want == nil && err != nil) || (tt.want != nil && !errors.Is(err, tt.want)) {
				t.Fatalf("Verify = %v, want %v", err, tt.want)
			}
		})
	}
}

func TestTokenNeverShowsSecretOrHash(t *testing.T) {
	t.Parallel()
	s, tok := mustMint(t, 1, auth.TokenRequest{Owner: "ann", Name: "cli", TTL: time.Hour,
		Restriction: &auth.Restriction{Grants: []auth.Grant{mustGrant(t, auth.PermRead, auth.KindProcess, "order-*")}}})
	tok.LastUsedAt = t0.Add(time.Minute)
	secret := s[23:]
	rawSecret, err := base32Decode(secret)
	if err != nil {
		t.Fatal(err)
	}
	h := tok.Hash
	leaks := []string{
		secret, secret[:16], s,
		hex.EncodeToString(h[:]), hex.EncodeToString(h[:8]),
		base64.StdEncoding.EncodeToString(h[:])[:16], base64.RawURLEncoding.EncodeToString(h[:])[:16],
		hex.EncodeToString(rawSecret[:8]),
		byteList(h[:4]),
	}
	for _, v := range []any{tok, &tok, []auth.Token{tok}, h, mustParse(t, s)} {
		assertNoLeak(t, v, leaks...)
	}
	// What is shown is still useful.
	for how, out := range renderings(t, tok) {
		if strings.Contains(how, "%x") || strings.Contains(how, "%X") {
			continue // hex of the description
		}
		if !strings.Contains(out, string(tok.ID)) {
			t.Errorf("%s does not show the token id:\n%s", how, out)
		}
	}
	if js := renderings(t, tok)["json"]; !strings.Contains(js, `"lastUsedAt":"2025-03-01T12:01:00Z"`) ||
		!strings.Contains(js, `"pattern":"order-*"`) {
		t.Errorf("JSON misses metadata: %s", js)
	}
}
