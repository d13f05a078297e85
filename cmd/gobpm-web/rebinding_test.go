package main

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
)

// Without credentials the server trusts whoever reaches it on loopback. A
// web page whose DNS name is rebound to 127.0.0.1 reaches it as its own
// origin, past the cross-origin checks and with the cockpit's CSRF token
// readable; its requests name the page's host, so the server answers only
// requests for a loopback host.
func TestLoopbackServerRefusesForeignHosts(t *testing.T) {
	t.Parallel()
	cfg, err := ParseConfig([]string{"--addr", "127.0.0.1:0", "--db", filepath.Join(t.TempDir(), "gobpm.db")}, func(string) string { return "" }, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	m := NewMain(cfg, slog.New(slog.DiscardHandler))
	if err := m.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	_, port, _ := strings.Cut(m.Addr(), ":")
	send := func(method, path, host string) (*http.Response, []byte) {
		t.Helper()
		req, _ := http.NewRequest(method, "http://"+m.Addr()+path, strings.NewReader(`{"name":"go"}`))
		req.Host = host
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		body, _ := io.ReadAll(res.Body)
		return res, body
	}
	for _, host := range []string{"rebound.example:" + port, "rebound.example", "10.0.0.1:" + port} {
		for _, tc := range []struct{ method, path string }{{"GET", "/api/v1/instances"}, {"POST", "/api/v1/signals"}, {"GET", "/tasks"}} {
			res, body := send(tc.method, tc.path, host)
			var p map[string]any
			if res.StatusCode != http.StatusForbidden || res.Header.Get("Content-Type") != "application/problem+json" ||
				json.Unmarshal(body, &p) != nil || p["type"] != "https://gobpm.dev/problems/forbidden" {
				t.Errorf("%s %s as %s: %d %s %s", tc.method, tc.path, host, res.StatusCode, res.Header.Get("Content-Type"), body)
			}
		}
	}
	for _, host := range []string{"127.0.0.1:" + port, "localhost:" + port, "LOCALHOST", "[::1]:" + port, "127.0.0.2"} {
		if res, body := send("GET", "/api/v1/processes", host); res.StatusCode != http.StatusOK {
			t.Errorf("GET as %s: %d %s", host, res.StatusCode, body)
		}
	}
}
