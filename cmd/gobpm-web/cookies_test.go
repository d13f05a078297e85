package main

import (
	"bytes"
	"context"
	"net/http"
	"strings"
	"testing"
)

// TestAuthCookiesBehindTLSProxy: behind a TLS proxy the server speaks
// plain HTTP, so only its flags say the browser uses HTTPS. With
// --secure-cookies or an https --public-url, the session cookie of the
// API's login (and of its logout) is Secure, as the cockpit's are.
func TestAuthCookiesBehindTLSProxy(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		args []string
		host string
	}{
		{"--secure-cookies", []string{"--secure-cookies"}, ""},
		{"an https --public-url", []string{"--public-url", "https://bpm.example.test"}, "bpm.example.test"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			m, _ := startAuth(t, tc.args...)
			var out bytes.Buffer
			if err := runAdmin(context.Background(), []string{"create", "--db", m.cfg.DB, "--user", "ann", "--role", "viewer"},
				func(string) string { return "" }, strings.NewReader("correct horse battery\n"), &out); err != nil {
				t.Fatal(err)
			}
			for _, path := range []string{"/api/v1/auth/login", "/api/v1/auth/logout"} {
				req, _ := http.NewRequest("POST", "http://"+m.Addr()+path, strings.NewReader(`{"user":"ann","password":"correct horse battery"}`))
				req.Header.Set("Content-Type", "application/json")
				if tc.host != "" {
					req.Host = tc.host
				}
				res, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				res.Body.Close()
				if res.StatusCode/100 != 2 || len(res.Cookies()) != 1 || !res.Cookies()[0].Secure {
					t.Errorf("%s over the proxy's plain HTTP: %d, cookies %v (want one, Secure)", path, res.StatusCode, res.Cookies())
				}
			}
		})
	}
}
