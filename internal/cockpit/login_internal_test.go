package cockpit

import (
	"fmt"
	"testing"
	"time"

	"github.com/gobpm/gobpm/internal/auth"
)

// OIDC logins in progress expire after ten minutes, are taken once, and
// never hold more than maxOIDCLogins.
func TestPendingLogins(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	p := newPendingLogins(func() time.Time { return now })
	p.put(auth.LoginRequest{State: "s1", Nonce: "n1"}, "/tasks", "192.0.2.1")
	req, next, ok := p.take("s1")
	if !ok || req.Nonce != "n1" || next != "/tasks" {
		t.Fatalf("take: %v %q %v", req, next, ok)
	}
	if _, next, ok := p.take("s1"); ok || next != "/" {
		t.Errorf("a state is taken once")
	}

	p.put(auth.LoginRequest{State: "s2"}, "/", "192.0.2.1")
	now = now.Add(oidcLoginTTL - time.Second)
	p.put(auth.LoginRequest{State: "s3"}, "/", "192.0.2.1")
	now = now.Add(time.Second)
	if _, _, ok := p.take("s2"); ok {
		t.Errorf("a login older than ten minutes is taken")
	}
	if _, _, ok := p.take("s3"); !ok {
		t.Errorf("a younger login expired")
	}

	for i := range maxOIDCLogins + 5 {
		now = now.Add(time.Millisecond)
		p.put(auth.LoginRequest{State: fmt.Sprint("b", i)}, "/", fmt.Sprint("10.0.", i/100, ".", i%100)) // one per address
	}
	if p.len() != maxOIDCLogins {
		t.Errorf("%d logins kept, want at most %d", p.len(), maxOIDCLogins)
	}
	if _, _, ok := p.take("b0"); ok {
		t.Errorf("the oldest login was kept past the bound")
	}
	if _, _, ok := p.take(fmt.Sprint("b", maxOIDCLogins+4)); !ok {
		t.Errorf("the newest login was dropped")
	}
	now = now.Add(oidcLoginTTL)
	p.put(auth.LoginRequest{State: "last"}, "/", "192.0.2.1")
	if p.len() != 1 {
		t.Errorf("expired logins are dropped when another starts: %d kept", p.len())
	}
}

func TestNextPath(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"/tasks": "/tasks", "/instances?status=running": "/instances?status=running", "": "/", "//evil.example": "/",
		"https://evil.example/": "/", `/\evil`: "/", "/login": "/", "/login?next=/x": "/", "/login/oidc/callback": "/",
		"/logout": "/", "/setup": "/", "/loginx": "/loginx", "tasks": "/",
	} {
		if got := nextPath(in); got != want {
			t.Errorf("nextPath(%q) = %q, want %q", in, got, want)
		}
	}
}
