package main

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"io"
	"log/slog"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// lockedBuffer is a log sink the server writes while the test reads.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// startAuth runs a server with --auth builtin on a fresh database and
// returns it with its log.
func startAuth(t *testing.T, extra ...string) (*Main, *lockedBuffer) {
	t.Helper()
	return startLogged(t, append([]string{"--auth", "builtin"}, extra...)...)
}

// startLogged runs a server with extra flags on a fresh database and
// returns it with its log.
func startLogged(t *testing.T, extra ...string) (*Main, *lockedBuffer) {
	t.Helper()
	args := append([]string{"--addr", "127.0.0.1:0", "--db", filepath.Join(t.TempDir(), "gobpm.db")}, extra...)
	cfg, err := ParseConfig(args, func(string) string { return "" }, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	logs := &lockedBuffer{}
	m := NewMain(cfg, slog.New(slog.NewJSONHandler(logs, nil)))
	if err := m.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = m.Close() })
	return m, logs
}

// TestAuthBuiltinServer follows the README: a new server logs a set-up
// token; the admin CLI creates the first admin and a worker token limited
// to one job type; the API refuses requests without a credential, accepts
// the admin's session and the worker's token for exactly its job type.
func TestAuthBuiltinServer(t *testing.T) {
	t.Parallel()
	m, logs := startAuth(t)
	if !strings.Contains(logs.String(), "setupToken") {
		t.Fatalf("no set-up token in the log:\n%s", logs)
	}
	base := "http://" + m.Addr()
	if res, err := http.Get(base + "/api/v1/processes"); err != nil || res.StatusCode != http.StatusUnauthorized {
		t.Fatalf("GET /processes without a credential: %v %v", res, err)
	}

	// The cockpit is wired to the same access service: on a new server it
	// sends a visitor to the first-run page.
	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	if res, err := noFollow.Get(base + "/"); err != nil || res.StatusCode/100 != 3 || res.Header.Get("Location") != "/setup" {
		t.Fatalf("GET / on a new server: %v %v, want a redirect to /setup", res, err)
	}

	// The CLI works on the same database while the server runs.
	ctx := context.Background()
	var out bytes.Buffer
	if err := runAdmin(ctx, []string{"create", "--db", m.cfg.DB, "--user", "ann", "--role", "admin"}, func(string) string { return "" },
		strings.NewReader("correct horse battery\n"), &out); err != nil {
		t.Fatal(err)
	}
	// The README's narrow worker: a user without a role (the default),
	// given work on invoice-* jobs, and its token restricted to them.
	if err := runAdmin(ctx, []string{"create", "--db", m.cfg.DB, "--user", "invoice-worker", "--no-password"}, func(string) string { return "" },
		nil, &out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "created user invoice-worker with no role") {
		t.Errorf("admin create without --role says %q", out.String())
	}
	if err := runAdmin(ctx, []string{"grant", "--db", m.cfg.DB, "--user", "invoice-worker", "--grant", "work:job-type:invoice-*"}, func(string) string { return "" },
		nil, &out); err != nil {
		t.Fatal(err)
	}
	if err := runAdmin(ctx, []string{"grant", "--db", m.cfg.DB, "--user", "nobody-here", "--grant", "work:job-type:invoice-*"}, func(string) string { return "" },
		nil, &out); err == nil {
		t.Error("admin grant to an unknown user succeeded")
	}
	// The set-up log names the command that exists.
	if !strings.Contains(logs.String(), "gobpm-web admin create --user NAME --role admin") {
		t.Errorf("the set-up hint names no real command:\n%s", logs)
	}
	out.Reset()
	if err := runAdmin(ctx, []string{"token", "--db", m.cfg.DB, "--user", "invoice-worker", "--name", "invoices", "--grant", "work:job-type:invoice-*"},
		func(string) string { return "" }, nil, &out); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	token := lines[len(lines)-1]
	if !strings.HasPrefix(token, "gobpm_") {
		t.Fatalf("admin token printed %q", out.String())
	}

	post := func(path, bearer, body string) *http.Response {
		t.Helper()
		req, _ := http.NewRequest("POST", base+path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		if bearer != "" {
			req.Header.Set("Authorization", "Bearer "+bearer)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res
	}
	if res := post("/api/v1/jobs/activate", token, `{"type":"invoice-check","worker":"w","maxJobs":1,"lockDurationMs":1000}`); res.StatusCode != http.StatusOK {
		t.Errorf("worker token on its job type: %d", res.StatusCode)
	}
	if res := post("/api/v1/jobs/activate", token, `{"type":"payroll","worker":"w","maxJobs":1,"lockDurationMs":1000}`); res.StatusCode != http.StatusForbidden {
		t.Errorf("worker token on another job type: %d", res.StatusCode)
	}
	// Once there is a user, a visitor without a session goes to the login.
	if res, err := noFollow.Get(base + "/instances"); err != nil || res.StatusCode/100 != 3 || !strings.HasPrefix(res.Header.Get("Location"), "/login") {
		t.Fatalf("GET /instances without a session: %v %v, want a redirect to /login", res, err)
	}
	res := post("/api/v1/auth/login", "", `{"user":"ann","password":"correct horse battery"}`)
	if res.StatusCode != http.StatusOK || len(res.Cookies()) != 1 || res.Cookies()[0].Secure {
		t.Fatalf("login over http: %d, cookies %v (want one, not Secure)", res.StatusCode, res.Cookies())
	}
	// The Host check: no --public-url, so any name is served (and logged).
	if !strings.Contains(logs.String(), "no --public-url") {
		t.Error("no warning about the missing --public-url")
	}
}

// TestAuthTLSAndPublicURL serves HTTPS with --tls-cert/--tls-key: the
// session cookie is Secure, and requests for another host than
// --public-url's are refused.
func TestAuthTLSAndPublicURL(t *testing.T) {
	t.Parallel()
	cert, key := selfSigned(t)
	m, _ := startAuth(t, "--tls-cert", cert, "--tls-key", key, "--public-url", "https://bpm.example.test")
	pool := x509.NewCertPool()
	pemBytes, _ := os.ReadFile(cert)
	pool.AppendCertsFromPEM(pemBytes)
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, ServerName: "localhost"}}}
	base := "https://" + m.Addr()

	var out bytes.Buffer
	if err := runAdmin(context.Background(), []string{"create", "--db", m.cfg.DB, "--user", "ann", "--role", "admin"}, func(string) string { return "" },
		strings.NewReader("correct horse battery\n"), &out); err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest("POST", base+"/api/v1/auth/login", strings.NewReader(`{"user":"ann","password":"correct horse battery"}`))
	req.Header.Set("Content-Type", "application/json")
	res, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK || len(res.Cookies()) != 1 || !res.Cookies()[0].Secure {
		t.Fatalf("login over https: %d, cookies %v (want one, Secure)", res.StatusCode, res.Cookies())
	}
	req, _ = http.NewRequest("GET", base+"/healthz", nil)
	req.Host = "evil.example.test"
	res, err = client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var p map[string]any
	_ = json.NewDecoder(res.Body).Decode(&p)
	res.Body.Close()
	if res.StatusCode != http.StatusForbidden || !strings.Contains(p["detail"].(string), "bpm.example.test") {
		t.Errorf("request for another host: %d %v", res.StatusCode, p)
	}
}

// TestAuthConfigRefusals: configurations that cannot work are refused at
// start, with a message naming the fix.
func TestAuthConfigRefusals(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--auth", "sometimes"}, "want none, builtin or oidc"},
		{[]string{"--auth", "builtin", "--tls-cert", "c.pem"}, "--tls-cert and --tls-key go together"},
		{[]string{"--auth", "builtin", "--public-url", "bpm.example.com"}, "must be an absolute http(s) URL"},
		{[]string{"--auth", "oidc", "--oidc-issuer", "https://id.example.com", "--oidc-client-id", "gobpm"}, "needs --public-url"},
		{[]string{"--auth", "oidc", "--public-url", "https://bpm.example.com"}, "needs --oidc-issuer and --oidc-client-id"},
	} {
		_, err := ParseConfig(tc.args, func(string) string { return "" }, io.Discard)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want an error containing %q", tc.args, err, tc.want)
		}
	}
}

// selfSigned writes a self-signed certificate for localhost and 127.0.0.1
// and returns the certificate and key files.
func selfSigned(t *testing.T) (certFile, keyFile string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "localhost"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		DNSNames: []string{"localhost"}, IPAddresses: []net.IP{net.ParseIP("127.0.0.1")},
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true, IsCA: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kb, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb}), 0o600); err != nil {
		t.Fatal(err)
	}
	return certFile, keyFile
}
