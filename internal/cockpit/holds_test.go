package cockpit_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/gobpm/gobpm/internal/auth"
	"github.com/gobpm/gobpm/internal/cockpit"
)

// openStream opens GET /events as b's browser; close ends it. A refused
// stream comes back closed, with its answer.
func openStream(t *testing.T, b *bundle) (res *http.Response, close func()) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second) // a guard, not a timing assertion
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, b.srv.URL+"/events", nil)
	res, err := b.client.Do(req)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	return res, func() { res.Body.Close(); cancel() }
}

// One person may hold at most MaxEventStreams live-update streams open:
// one more is 429 problem+json with Retry-After, somebody else is not
// affected, and a closed stream frees its place.
func TestEventStreamCap(t *testing.T) {
	t.Parallel()
	b := setupAuthWith(t, cockpit.Options{MaxEventStreams: 2}, map[string]auth.Role{"ann": auth.RoleViewer, "bob": auth.RoleViewer}, nil)
	ann, bob := b.as("ann"), b.as("bob")
	var open []func()
	defer func() {
		for _, c := range open {
			c()
		}
	}()
	for range 2 {
		res, c := openStream(t, ann.bundle)
		open = append(open, c)
		if res.StatusCode != http.StatusOK {
			t.Fatalf("stream %d: %d", len(open), res.StatusCode)
		}
	}
	res, c := openStream(t, ann.bundle)
	var p map[string]any
	_ = json.NewDecoder(res.Body).Decode(&p)
	c()
	if res.StatusCode != http.StatusTooManyRequests || res.Header.Get("Retry-After") == "" ||
		res.Header.Get("Content-Type") != "application/problem+json" || p["type"] != "https://gobpm.dev/problems/too-many-requests" {
		t.Errorf("a third stream: %d, Retry-After %q, %s %v", res.StatusCode, res.Header.Get("Retry-After"), res.Header.Get("Content-Type"), p)
	}
	res, c = openStream(t, bob.bundle)
	open = append(open, c)
	if res.StatusCode != http.StatusOK {
		t.Errorf("another person's stream: %d", res.StatusCode)
	}

	// Closing one frees its place (once the server has seen it go).
	open[0]()
	open = open[1:]
	guard := time.Now().Add(20 * time.Second)
	for {
		res, c := openStream(t, ann.bundle)
		if res.StatusCode == http.StatusOK {
			open = append(open, c)
			break
		}
		c()
		if time.Now().After(guard) {
			t.Fatalf("the closed stream's place never came free: %d", res.StatusCode)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
