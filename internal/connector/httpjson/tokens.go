package httpjson

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"sync"
	"time"
)

// maxCachedTokens bounds the OAuth token cache of a worker.
const maxCachedTokens = 256

// tokenCache keeps the OAuth access tokens a worker fetched, per client
// (tokenKey), until shortly before they expire. It belongs to one Worker
// (no state is shared between workers); tokens never leave memory.
type tokenCache struct {
	now func() time.Time

	mu     sync.Mutex // guards tokens
	tokens map[string]cachedToken
}

// cachedToken is one access token and when the cache stops handing it out.
type cachedToken struct {
	token string
	until time.Time
}

func newTokenCache(now func() time.Time) *tokenCache {
	if now == nil {
		now = time.Now
	}
	return &tokenCache{now: now, tokens: map[string]cachedToken{}}
}

// tokenKey names the client a token was issued to: the token endpoint,
// client id, audience, scopes and how the client authenticates — and a
// hash of its secret, so a model with a wrong secret never gets the token
// another one fetched.
func tokenKey(endpoint, id, secret, audience, scopes string, basic bool) string {
	h := sha256.Sum256([]byte(secret))
	auth := "body"
	if basic {
		auth = "basic"
	}
	return strings.Join([]string{endpoint, id, hex.EncodeToString(h[:]), audience, scopes, auth}, "\x00")
}

// get returns key's token while it is fresh.
func (c *tokenCache) get(key string) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	t, ok := c.tokens[key]
	if !ok || !c.now().Before(t.until) {
		return "", false
	}
	return t.token, true
}

// put keeps token for key for expiresIn less a margin (a tenth of its
// lifetime, at most 30 s), so that a call never sends a token about to
// expire; a token without a lifetime is not kept. A full cache drops its
// expired tokens, else the one that expires first.
func (c *tokenCache) put(key, token string, expiresIn time.Duration) {
	if expiresIn <= 0 {
		return
	}
	until := c.now().Add(expiresIn - min(expiresIn/10, 30*time.Second))
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.tokens[key]; !ok && len(c.tokens) >= maxCachedTokens {
		now := c.now()
		first := ""
		for k, t := range c.tokens {
			if !now.Before(t.until) {
				delete(c.tokens, k)
				continue
			}
			if first == "" || t.until.Before(c.tokens[first].until) {
				first = k
			}
		}
		if len(c.tokens) >= maxCachedTokens {
			delete(c.tokens, first)
		}
	}
	c.tokens[key] = cachedToken{token: token, until: until}
}

// drop forgets key's token (the service refused it).
func (c *tokenCache) drop(key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.tokens, key)
}
