package cockpit_test

import (
	"bufio"
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gobpm/gobpm/internal/runtime"
)

// stream opens GET path as a server-sent event stream and returns a
// function reading its next event ("" for comments); the stream ends with
// the test. guard bounds a test that would otherwise hang on a missing
// event; it is no timing assertion.
func stream(t *testing.T, b *bundle, path string) func() (event, data string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, b.srv.URL+path, nil)
	res, err := b.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { res.Body.Close() })
	if res.StatusCode != http.StatusOK || res.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("GET %s: %d %s", path, res.StatusCode, res.Header.Get("Content-Type"))
	}
	r := bufio.NewReader(res.Body)
	return func() (string, string) {
		t.Helper()
		var event, data string
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				t.Fatalf("read %s: %v", path, err)
			}
			line = strings.TrimRight(line, "\n")
			switch {
			case line == "":
				return event, data
			case strings.HasPrefix(line, "event: "):
				event = strings.TrimPrefix(line, "event: ")
			case strings.HasPrefix(line, "data: "):
				data = strings.TrimPrefix(line, "data: ")
			}
		}
	}
}

// A page hears the changes it shows: its instance, the inbox's tasks, the
// incidents; nothing is sent for the others.
func TestEventsStream(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.deploy("review.bpmn", "picky.bpmn")
	inst := b.start("review", "", nil)
	other := b.start("review", "", nil)

	mine := stream(t, b, "/events?instance="+string(inst.ID))
	tasks := stream(t, b, "/events?topic=tasks")
	incidents := stream(t, b, "/events?topic=incidents")
	for _, next := range []func() (string, string){mine, tasks, incidents} {
		if ev, _ := next(); ev != "" {
			t.Fatalf("the stream opens with a comment, not %q", ev)
		}
	}

	// Another instance's step first: the instance's stream skips it and
	// tells the instance's own step next.
	ann := runtime.Actor{User: "ann", Groups: []string{"clerks"}}
	claimAndComplete(t, b, other.ID, ann, nil)
	claimAndComplete(t, b, inst.ID, ann, nil)
	if ev, data := mine(); ev != "changed" || !strings.Contains(data, `"instance":"`+string(inst.ID)+`"`) {
		t.Errorf("the instance's stream: %q %s", ev, data)
	}
	if ev, data := tasks(); ev != "changed" || !strings.Contains(data, string(other.ID)) {
		t.Errorf("the inbox hears the first task change: %q %s", ev, data)
	}
	failed := b.start("picky", "", nil)
	if ev, data := incidents(); ev != "changed" || !strings.Contains(data, string(failed.ID)) {
		t.Errorf("the incidents page hears the incident, and only it: %q %s", ev, data)
	}
	if bad := b.get("/events?topic=everything"); bad.status != http.StatusBadRequest {
		t.Errorf("an unknown topic: %d", bad.status)
	}
}
