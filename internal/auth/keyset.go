package auth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"sync"
	"time"

	jose "github.com/go-jose/go-jose/v4"
)

// maxJWKSBytes bounds the provider's key set document.
const maxJWKSBytes = 1 << 20

// signingAlgs are the JWS algorithms a provider may sign with: asymmetric
// only, never "none" or HMAC.
func signingAlgs() []jose.SignatureAlgorithm {
	return []jose.SignatureAlgorithm{
		jose.RS256, jose.RS384, jose.RS512, jose.ES256, jose.ES384, jose.ES512,
		jose.PS256, jose.PS384, jose.PS512, jose.EdDSA,
	}
}

// keySet holds an OIDC provider's public signing keys, fetched from its
// jwks_uri. It implements go-oidc's KeySet in place of go-oidc's own remote
// key set, which fetches the keys again for every token whose signature
// fails: anyone could then make gobpm hit the provider once per request
// with garbage tokens. keySet fetches again only for a token that names a
// key id it does not hold (or names none), and at most once per
// minRefresh, which is what key rotation needs.
type keySet struct {
	url        string
	client     *http.Client
	now        func() time.Time
	minRefresh time.Duration
	algs       []jose.SignatureAlgorithm

	fetchMu sync.Mutex // held while fetching, so one fetch runs at a time

	mu      sync.Mutex // guards keys and fetched
	keys    []jose.JSONWebKey
	fetched time.Time // when keys were last fetched; zero: never
}

// VerifySignature verifies the compact JWS raw against the provider's keys
// and returns its payload.
func (k *keySet) VerifySignature(ctx context.Context, raw string) ([]byte, error) {
	jws, err := jose.ParseSignedCompact(raw, k.algs)
	if err != nil {
		return nil, fmt.Errorf("parse jwt: %w", err)
	}
	if len(jws.Signatures) != 1 {
		return nil, fmt.Errorf("jwt has %d signatures, want 1", len(jws.Signatures))
	}
	kid := jws.Signatures[0].Header.KeyID
	keys, fetched := k.snapshot()
	if payload, ok := verifyWith(jws, keys, kid); ok {
		return payload, nil
	}
	known := kid != "" && slices.ContainsFunc(keys, func(key jose.JSONWebKey) bool { return key.KeyID == kid })
	if known {
		// A key we hold did not verify it: fetching again will not help.
		return nil, errors.New("jwt signature does not verify")
	}
	keys, err = k.refresh(ctx, fetched)
	if err != nil {
		return nil, err
	}
	if payload, ok := verifyWith(jws, keys, kid); ok {
		return payload, nil
	}
	return nil, fmt.Errorf("jwt signature does not verify (key id %q)", kid)
}

func (k *keySet) snapshot() ([]jose.JSONWebKey, time.Time) {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.keys, k.fetched
}

// verifyWith tries the keys with id kid (every key when kid is empty).
func verifyWith(jws *jose.JSONWebSignature, keys []jose.JSONWebKey, kid string) ([]byte, bool) {
	for i := range keys {
		if kid != "" && keys[i].KeyID != kid {
			continue
		}
		if payload, err := jws.Verify(&keys[i]); err == nil {
			return payload, true
		}
	}
	return nil, false
}

// refresh fetches the keys unless another caller fetched them since seen,
// or the last fetch was less than minRefresh ago; either way it returns the
// keys held afterwards.
func (k *keySet) refresh(ctx context.Context, seen time.Time) ([]jose.JSONWebKey, error) {
	k.fetchMu.Lock()
	defer k.fetchMu.Unlock()
	keys, fetched := k.snapshot()
	if !fetched.Equal(seen) {
		return keys, nil
	}
	now := k.now()
	if !fetched.IsZero() && now.Sub(fetched) < k.minRefresh {
		return keys, nil
	}
	keys, err := k.fetch(ctx)
	if err != nil {
		return nil, fmt.Errorf("fetch signing keys from %s: %w", k.url, err)
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	k.keys, k.fetched = keys, now
	return keys, nil
}

// fetch reads the key set, keeping the public signing keys go-jose
// understands and skipping the others (RFC 7517 §5: ignore what you do not
// understand).
func (k *keySet) fetch(ctx context.Context) ([]jose.JSONWebKey, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, k.url, nil)
	if err != nil {
		return nil, fmt.Errorf("request: %w", err)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := k.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("get: %w", err)
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("get: status %s", resp.Status)
	}
	var doc struct {
		Keys []json.RawMessage `json:"keys"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxJWKSBytes)).Decode(&doc); err != nil {
		return nil, fmt.Errorf("decode: %w", err)
	}
	var keys []jose.JSONWebKey
	for _, raw := range doc.Keys {
		var key jose.JSONWebKey
		if err := json.Unmarshal(raw, &key); err != nil {
			continue
		}
		if !key.IsPublic() || !key.Valid() || (key.Use != "" && key.Use != "sig") {
			continue
		}
		if key.Algorithm != "" && !slices.Contains(k.algs, jose.SignatureAlgorithm(key.Algorithm)) {
			continue
		}
		keys = append(keys, key)
	}
	if len(keys) == 0 {
		return nil, errors.New("no usable signing key")
	}
	return keys, nil
}
