package auth

import (
	"encoding/base32"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"
	"time"
)

// API token layout: TokenPrefix, the public id, '_', the secret. Both parts
// are lowercase unpadded base32, so a token survives copying, URLs and
// double-click selection, and "gobpm_" makes a leaked one easy to recognise
// and scan for.
const (
	// TokenPrefix starts every API token.
	TokenPrefix = "gobpm_"
	// tokenIDBytes random bytes make the public id: 80 bits, unique without
	// coordination, not secret.
	tokenIDBytes = 10
	// tokenSecretBytes random bytes make the secret: 256 bits.
	tokenSecretBytes = 32
)

// Lengths of the encoded parts (ceil(8n/5) characters for n bytes; a test
// holds them equal to the encoding's own EncodedLen).
const (
	tokenIDChars     = 16
	tokenSecretChars = 52
	tokenLen         = len(TokenPrefix) + tokenIDChars + 1 + tokenSecretChars
)

func tokenEncoding() *base32.Encoding {
	return base32.NewEncoding("abcdefghijklmnopqrstuvwxyz234567").WithPadding(base32.NoPadding)
}

// TokenID is an API token's public id: the part of the token string the
// store looks it up by. It is not secret and may be logged.
type TokenID string

// Token is what the store keeps about an API token: metadata and the
// SHA-256 of its secret, never the secret itself. fmt, slog and
// encoding/json show the metadata only.
type Token struct {
	// ID is the public id, unique per token.
	ID TokenID
	// Owner is the user the token acts as; it can never do more than Owner.
	Owner UserID
	// Name is the owner's label for the token ("invoice worker").
	Name string
	// Restriction, when not nil, narrows the token below its owner's rights
	// (see Principal.Restrictions).
	Restriction *Restriction
	// Hash is the SHA-256 of the secret.
	Hash SecretHash
	// CreatedAt is when the token was minted.
	CreatedAt time.Time
	// ExpiresAt is when the token stops working; zero means never.
	ExpiresAt time.Time
	// LastUsedAt is when the token last authenticated a request; zero means
	// never. The store maintains it.
	LastUsedAt time.Time
	// RevokedAt is when the token was revoked; zero means it was not.
	RevokedAt time.Time
}

// TokenRequest says what token to mint.
type TokenRequest struct {
	// Owner is the user the token acts as. Required.
	Owner UserID
	// Name labels the token. Required.
	Name string
	// Restriction narrows the token (nil: all its owner may do).
	Restriction *Restriction
	// TTL is how long the token lives; zero means it never expires.
	TTL time.Duration
}

// MintToken makes a new API token for req at time now, reading randomness
// from rand (crypto/rand when nil). It returns the token string, to be shown
// once to whoever asked and then forgotten, and the Token to store. It
// refuses a request without owner or name, with a negative TTL, or with an
// invalid restriction grant.
func MintToken(rand io.Reader, now time.Time, req TokenRequest) (string, Token, error) {
	switch {
	case req.Owner == "":
		return "", Token{}, fmt.Errorf("mint token: no owner: %w", ErrInvalidConfig)
	case strings.TrimSpace(req.Name) == "":
		return "", Token{}, fmt.Errorf("mint token for %s: no name: %w", req.Owner, ErrInvalidConfig)
	case req.TTL < 0:
		return "", Token{}, fmt.Errorf("mint token for %s: negative TTL: %w", req.Owner, ErrInvalidConfig)
	}
	if req.Restriction != nil {
		for _, g := range req.Restriction.Grants {
			if err := g.Validate(); err != nil {
				return "", Token{}, fmt.Errorf("mint token for %s: restriction: %w", req.Owner, err)
			}
		}
	}
	b, err := randomBytes(rand, tokenIDBytes+tokenSecretBytes)
	if err != nil {
		return "", Token{}, fmt.Errorf("mint token for %s: %w", req.Owner, err)
	}
	enc := tokenEncoding()
	id := TokenID(enc.EncodeToString(b[:tokenIDBytes]))
	secret := b[tokenIDBytes:]
	tok := Token{
		ID:          id,
		Owner:       req.Owner,
		Name:        req.Name,
		Restriction: cloneRestriction(req.Restriction),
		Hash:        HashSecret(secret),
		CreatedAt:   now,
	}
	if req.TTL > 0 {
		tok.ExpiresAt = now.Add(req.TTL)
	}
	return TokenPrefix + string(id) + "_" + enc.EncodeToString(secret), tok, nil
}

// HasTokenPrefix reports whether s looks like an API token rather than,
// say, an OIDC JWT, so a bearer credential can be routed to ParseToken
// without parsing it twice.
func HasTokenPrefix(s string) bool { return strings.HasPrefix(s, TokenPrefix) }

// PresentedToken is a token string as a request presented it, parsed: the
// id to look the Token up by and the hash of the secret to verify it with.
// The secret itself is not kept.
type PresentedToken struct {
	id   TokenID
	hash SecretHash
}

// ParseToken parses a token string made by MintToken, or returns an error
// wrapping ErrMalformedCredential. It accepts exactly the canonical form,
// so each token has one spelling.
func ParseToken(s string) (PresentedToken, error) {
	fail := func(why string) (PresentedToken, error) {
		// Never echo s: it may be a real secret with a typo.
		return PresentedToken{}, fmt.Errorf("parse token: %s: %w", why, ErrMalformedCredential)
	}
	rest, ok := strings.CutPrefix(s, TokenPrefix)
	if !ok {
		return fail("no " + TokenPrefix + " prefix")
	}
	if len(s) != tokenLen || rest[tokenIDChars] != '_' {
		return fail("wrong length or layout")
	}
	enc := tokenEncoding()
	idPart, secretPart := rest[:tokenIDChars], rest[tokenIDChars+1:]
	idBytes, err := enc.DecodeString(idPart)
	if err != nil || enc.EncodeToString(idBytes) != idPart {
		return fail("id is not base32")
	}
	secret, err := enc.DecodeString(secretPart)
	if err != nil || enc.EncodeToString(secret) != secretPart {
		return fail("secret is not base32")
	}
	return PresentedToken{id: TokenID(idPart), hash: HashSecret(secret)}, nil
}

// ID returns the id to look the stored Token up by.
func (p PresentedToken) ID() TokenID { return p.id }

// String returns the token's id only.
func (p PresentedToken) String() string { return "token " + string(p.id) }

// GoString is String.
func (p PresentedToken) GoString() string { return p.String() }

// Format writes String for every verb, so no verb can reach the hash.
func (p PresentedToken) Format(f fmt.State, _ rune) { _, _ = io.WriteString(f, p.String()) }

// LogValue logs the token's id only.
func (p PresentedToken) LogValue() slog.Value { return slog.StringValue(string(p.id)) }

// Verify checks that presented is t's secret and that t may be used at
// now. It returns an error wrapping ErrMismatch if the id or secret differ
// (the secret compared in constant time), ErrRevoked if t was revoked and
// ErrExpired if t has expired, in that order, so nobody learns a token's
// state without its secret. Revocation takes effect at once because the
// caller verifies against the stored Token on every request.
func (t Token) Verify(presented PresentedToken, now time.Time) error {
	if presented.id != t.ID || t.Hash.IsZero() || !t.Hash.Equal(presented.hash) {
		return fmt.Errorf("verify token %s: %w", presented.id, ErrMismatch)
	}
	if !t.RevokedAt.IsZero() {
		return fmt.Errorf("verify token %s: revoked at %s: %w", t.ID, t.RevokedAt.Format(time.RFC3339), ErrRevoked)
	}
	if !t.ExpiresAt.IsZero() && !now.Before(t.ExpiresAt) {
		return fmt.Errorf("verify token %s: expired at %s: %w", t.ID, t.ExpiresAt.Format(time.RFC3339), ErrExpired)
	}
	return nil
}

// Principal returns the principal the token authenticates, given its
// owner's: the owner's user, groups, roles and grants, and any
// restrictions the owner already carries, plus the token's own restriction.
// Restrictions only ever narrow, so the token can never do more than its
// owner.
func (t Token) Principal(owner Principal) Principal {
	p := owner
	p.User = t.Owner
	p.Restrictions = slices.Clone(owner.Restrictions)
	if t.Restriction != nil {
		p.Restrictions = append(p.Restrictions, *cloneRestriction(t.Restriction))
	}
	return p
}

// tokenView is Token without its hash: what String, LogValue and
// MarshalJSON show.
type tokenView struct {
	ID          TokenID      `json:"id"`
	Owner       UserID       `json:"owner"`
	Name        string       `json:"name"`
	Restriction *Restriction `json:"restriction,omitempty"`
	CreatedAt   time.Time    `json:"createdAt"`
	ExpiresAt   *time.Time   `json:"expiresAt,omitempty"`
	LastUsedAt  *time.Time   `json:"lastUsedAt,omitempty"`
	RevokedAt   *time.Time   `json:"revokedAt,omitempty"`
}

func (t Token) view() tokenView {
	opt := func(at time.Time) *time.Time {
		if at.IsZero() {
			return nil
		}
		return &at
	}
	return tokenView{
		ID: t.ID, Owner: t.Owner, Name: t.Name, Restriction: t.Restriction, CreatedAt: t.CreatedAt,
		ExpiresAt: opt(t.ExpiresAt), LastUsedAt: opt(t.LastUsedAt), RevokedAt: opt(t.RevokedAt),
	}
}

// MarshalJSON encodes the token's metadata; the hash is left out.
func (t Token) MarshalJSON() ([]byte, error) {
	b, err := json.Marshal(t.view())
	if err != nil {
		return nil, fmt.Errorf("marshal token %s: %w", t.ID, err)
	}
	return b, nil
}

// String describes the token by id, owner and name; the hash is left out.
func (t Token) String() string {
	return fmt.Sprintf("token %s (owner %s, name %q)", t.ID, t.Owner, t.Name)
}

// GoString is String, so %#v cannot print the hash's bytes either.
func (t Token) GoString() string { return t.String() }

// Format writes String for every verb, so no verb can reach the hash.
func (t Token) Format(f fmt.State, _ rune) { _, _ = io.WriteString(f, t.String()) }

// LogValue logs the token's metadata; the hash is left out.
func (t Token) LogValue() slog.Value {
	attrs := []slog.Attr{
		slog.String("id", string(t.ID)),
		slog.String("owner", string(t.Owner)),
		slog.String("name", t.Name),
		slog.Bool("restricted", t.Restriction != nil),
	}
	if !t.ExpiresAt.IsZero() {
		attrs = append(attrs, slog.Time("expires_at", t.ExpiresAt))
	}
	if !t.RevokedAt.IsZero() {
		attrs = append(attrs, slog.Time("revoked_at", t.RevokedAt))
	}
	return slog.GroupValue(attrs...)
}

func cloneRestriction(r *Restriction) *Restriction {
	if r == nil {
		return nil
	}
	return &Restriction{Grants: append([]Grant{}, r.Grants...)}
}
