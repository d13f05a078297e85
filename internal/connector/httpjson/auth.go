package httpjson

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// authenticate adds the credentials of the authentication input to a
// call: none (noAuth), basic, bearer, apiKey (headers or query) or an
// OAuth 2.0 client credentials token from its token endpoint, cached per
// client. For a token, key names its cache entry and cached reports
// whether it came from the cache.
func (c *caller) authenticate(ctx context.Context, a map[string]any, h http.Header, q url.Values) (key string, cached bool, err error) {
	typ := strings.TrimSpace(str(a["type"]))
	switch typ {
	case "", "noAuth", "none":
	case "basic":
		req := &http.Request{Header: h}
		req.SetBasicAuth(str(a["username"]), str(a["password"]))
	case "bearer":
		h.Set("Authorization", "Bearer "+str(a["token"]))
	case "apiKey":
		name := str(a["name"])
		if name == "" {
			return "", false, &inputError{"authentication.name: the API key needs a name"}
		}
		if str(a["apiKeyLocation"]) == "query" {
			q.Set(name, str(a["value"]))
		} else {
			h.Set(name, str(a["value"]))
		}
	case "oauth-client-credentials-flow", "oauth-client-credentials":
		token, key, cached, err := c.oauthToken(ctx, a)
		if err != nil {
			return "", false, err
		}
		h.Set("Authorization", "Bearer "+token)
		return key, cached, nil
	default:
		return "", false, &inputError{fmt.Sprintf("authentication.type %q: want noAuth, basic, bearer, apiKey or oauth-client-credentials-flow", typ)}
	}
	return "", false, nil
}

// oauthToken asks the token endpoint for an access token with the client
// credentials grant, the client authenticated by a Basic header
// (clientAuthentication basicAuthHeader) or in the body (credentialsBody,
// the default). A token the cache holds for the same client is used
// again until shortly before its expires_in; key names the client's entry.
func (c *caller) oauthToken(ctx context.Context, a map[string]any) (token, key string, cached bool, err error) {
	endpoint := strings.TrimSpace(str(a["oauthTokenEndpoint"]))
	u, err := url.Parse(endpoint)
	if endpoint == "" || err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return "", "", false, &inputError{"authentication.oauthTokenEndpoint: want an http:// or https:// URL"}
	}
	id, secret := str(a["clientId"]), str(a["clientSecret"])
	basic := str(a["clientAuthentication"]) == "basicAuthHeader"
	key = tokenKey(endpoint, id, secret, str(a["audience"]), str(a["scopes"]), basic)
	if t, ok := c.tokens.get(key); ok {
		return t, key, true, nil
	}
	form := url.Values{"grant_type": {"client_credentials"}}
	if s := str(a["audience"]); s != "" {
		form.Set("audience", s)
	}
	if s := str(a["scopes"]); s != "" {
		form.Set("scope", s)
	}
	if !basic {
		form.Set("client_id", id)
		form.Set("client_secret", secret)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, strings.NewReader(form.Encode()))
	if err != nil {
		return "", "", false, &inputError{"authentication.oauthTokenEndpoint: " + err.Error()}
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	if basic {
		req.SetBasicAuth(url.QueryEscape(id), url.QueryEscape(secret))
	}
	resp, err := c.send(req, defaultTimeoutSeconds*1e9)
	if err != nil {
		return "", "", false, fmt.Errorf("oauth token: %w", err)
	}
	if resp.status >= 400 {
		return "", "", false, fmt.Errorf("oauth token: %w", &httpError{resp})
	}
	var tok struct {
		AccessToken string `json:"access_token"`
		ExpiresIn   any    `json:"expires_in"`
	}
	b, _ := json.Marshal(resp.body)
	if err := json.Unmarshal(b, &tok); err != nil || tok.AccessToken == "" {
		return "", "", false, fmt.Errorf("oauth token: the answer of %s has no access_token", u.Host)
	}
	if s, err := strconv.ParseFloat(str(tok.ExpiresIn), 64); err == nil && s > 0 {
		c.tokens.put(key, tok.AccessToken, time.Duration(s*float64(time.Second)))
	}
	return tok.AccessToken, key, false, nil
}
