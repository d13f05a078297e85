package main

import (
	"crypto/tls"
	"crypto/x509"
	"net/http"
	"os"
	"testing"
)

// A server its users reach over TLS — serving it itself, or behind a TLS
// proxy (an https --public-url) — tells browsers to keep to https (HSTS)
// on every answer, refusals included; a plain-http server does not.
func TestHSTS(t *testing.T) {
	t.Parallel()
	const hsts = "max-age=31536000"
	get := func(client *http.Client, url, host string) *http.Response {
		t.Helper()
		req, _ := http.NewRequest("GET", url, nil)
		if host != "" {
			req.Host = host
		}
		res, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res
	}

	cert, key := selfSigned(t)
	m, _ := startAuth(t, "--tls-cert", cert, "--tls-key", key)
	pool := x509.NewCertPool()
	pemBytes, _ := os.ReadFile(cert)
	pool.AppendCertsFromPEM(pemBytes)
	tlsClient := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, ServerName: "localhost"}}}
	for _, path := range []string{"/healthz", "/api/v1/instances", "/login"} {
		if res := get(tlsClient, "https://"+m.Addr()+path, ""); res.Header.Get("Strict-Transport-Security") != hsts {
			t.Errorf("TLS %s: %d, Strict-Transport-Security %q", path, res.StatusCode, res.Header.Get("Strict-Transport-Security"))
		}
	}

	proxied, _ := startAuth(t, "--public-url", "https://bpm.example.test")
	for _, host := range []string{"", "evil.example.test"} { // the second is refused by the Host check
		if res := get(http.DefaultClient, "http://"+proxied.Addr()+"/healthz", host); res.Header.Get("Strict-Transport-Security") != hsts {
			t.Errorf("behind a TLS proxy, Host %q: %d, Strict-Transport-Security %q", host, res.StatusCode, res.Header.Get("Strict-Transport-Security"))
		}
	}

	plain, _ := startAuth(t, "--public-url", "http://bpm.example.test")
	if res := get(http.DefaultClient, "http://"+plain.Addr()+"/healthz", ""); res.Header.Get("Strict-Transport-Security") != "" {
		t.Errorf("plain http answers with HSTS: %q", res.Header.Get("Strict-Transport-Security"))
	}
}
