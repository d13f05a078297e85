package httpjson

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gobpm/gobpm/internal/runtime"
)

// callFacts returns the details of an instance's connector-call facts, in
// order.
func (b *bundle) callFacts(t *testing.T, id runtime.InstanceID) []map[string]any {
	t.Helper()
	facts, err := b.rt.History(context.Background(), id, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	for _, f := range facts {
		if f.Kind != runtime.FactConnectorCall {
			continue
		}
		var d map[string]any
		if err := json.Unmarshal(f.Detail, &d); err != nil {
			t.Fatalf("detail %s: %v", f.Detail, err)
		}
		if f.NodeID != "call" {
			t.Errorf("connector call at %q, want the task call", f.NodeID)
		}
		out = append(out, d)
	}
	return out
}

// TestHistoryShowsEachCall: every attempt's call is a history entry of
// the instance (method, URL as written, status or error, duration,
// attempt), committed with the job's completion, failure or error.
func TestHistoryShowsEachCall(t *testing.T) {
	t.Parallel()
	mux := http.NewServeMux()
	mux.HandleFunc("/ok", echo)
	mux.HandleFunc("/fail", status(503, "later"))
	mux.HandleFunc("/missing", status(404, "no"))
	srv := httptest.NewServer(mux)
	defer srv.Close()
	b := setup(t, loopback)

	t.Run("completed", func(t *testing.T) {
		v := b.run(t, task{retries: 1, inputs: [][2]string{{"post", "method"}, {srv.URL + "/ok?x=1", "url"}}}, nil)
		completed(t, v)
		calls := b.callFacts(t, v.ID)
		if len(calls) != 1 {
			t.Fatalf("calls = %v", calls)
		}
		c := calls[0]
		if c["method"] != "POST" || c["url"] != srv.URL+"/ok?x=1" || fmt.Sprint(c["status"]) != "200" || fmt.Sprint(c["attempt"]) != "1" ||
			c["durationMs"] == nil || c["startedAt"] == nil || c["error"] != nil {
			t.Fatalf("call = %v", c)
		}
	})
	t.Run("retried to an incident", func(t *testing.T) {
		v := b.run(t, task{retries: 2, inputs: [][2]string{{srv.URL + "/fail", "url"}}, headers: [][2]string{{"retryBackoff", "PT0.1S"}}}, nil)
		incident(t, v)
		calls := b.callFacts(t, v.ID)
		if len(calls) != 2 {
			t.Fatalf("calls = %v", calls)
		}
		for i, c := range calls {
			if c["method"] != "GET" || fmt.Sprint(c["status"]) != "503" || fmt.Sprint(c["attempt"]) != fmt.Sprint(i+1) {
				t.Fatalf("call %d = %v", i, c)
			}
		}
	})
	t.Run("error thrown", func(t *testing.T) {
		v := b.run(t, task{retries: 1, catch: "NOPE", inputs: [][2]string{{srv.URL + "/missing", "url"}},
			headers: [][2]string{{"errorExpression", `=if error.code = "404" then bpmnError("NOPE", "gone", {}) else null`}}}, nil)
		completed(t, v)
		if calls := b.callFacts(t, v.ID); len(calls) != 1 || fmt.Sprint(calls[0]["status"]) != "404" {
			t.Fatalf("calls = %v", calls)
		}
	})
	t.Run("no answer", func(t *testing.T) {
		v := b.run(t, task{retries: 1, inputs: [][2]string{{"http://10.255.255.1/x", "url"}}}, nil)
		incident(t, v)
		calls := b.callFacts(t, v.ID)
		if len(calls) != 1 || calls[0]["status"] != nil || calls[0]["error"] == nil || strings.HasPrefix(fmt.Sprint(calls[0]["error"]), "http://") {
			t.Fatalf("calls = %v", calls)
		}
	})
	t.Run("no call made", func(t *testing.T) {
		v := b.run(t, task{retries: 1, inputs: [][2]string{{"BREW", "method"}, {srv.URL, "url"}}}, nil)
		incident(t, v)
		if calls := b.callFacts(t, v.ID); len(calls) != 0 {
			t.Fatalf("calls = %v", calls)
		}
	})
}
