package c7spec

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

var jsonHeader = http.Header{"Content-Type": {"application/json"}}

func mustLoad(t *testing.T) *Spec {
	t.Helper()
	s, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestCheckAcceptsCamunda7Answers(t *testing.T) {
	s := mustLoad(t)
	get := httptest.NewRequest(http.MethodGet, "/engine-rest/external-task/t1", nil)
	if p := s.Check(get, http.StatusOK, jsonHeader, []byte(`{"id":"t1","lockExpirationTime":"2026-01-02T03:04:05.000+0000","retries":3,"businessKey":null}`)); len(p) != 0 {
		t.Errorf("a Camunda 7 answer was refused: %v", p)
	}
	// An error status Camunda documents for no operation, with its body.
	if p := s.Check(get, http.StatusForbidden, jsonHeader, []byte(`{"type":"AuthorizationException","message":"no"}`)); len(p) != 0 {
		t.Errorf("a 403 ExceptionDto was refused: %v", p)
	}
	fetch := httptest.NewRequest(http.MethodPost, "/engine-rest/external-task/fetchAndLock",
		strings.NewReader(`{"workerId":"w","maxTasks":1,"topics":[{"topicName":"a","lockDuration":1000}]}`))
	fetch.Header.Set("Content-Type", "application/json")
	if p := s.Check(fetch, http.StatusOK, jsonHeader, []byte(`[{"id":"t1","variables":{"n":{"type":"Integer","value":4,"valueInfo":{}}}}]`)); len(p) != 0 {
		t.Errorf("a fetchAndLock exchange was refused: %v", p)
	}
	if got := s.Unchecked([]string{"GET /external-task/{id}", "POST /external-task/fetchAndLock", "GET /task"}); len(got) != 1 || got[0] != "GET /task" {
		t.Errorf("Unchecked = %v, want only GET /task", got)
	}
}

func TestCheckReportsDepartures(t *testing.T) {
	s := mustLoad(t)
	get := func() *http.Request { return httptest.NewRequest(http.MethodGet, "/engine-rest/external-task/t1", nil) }
	for _, bad := range []string{
		`{"id":"t1","lockExpirationTime":"2026-01-02T03:04:05Z"}`, // RFC 3339, not Camunda's format
		`{"id":1}`,                  // a number where Camunda has a string
		`{"id":"t1","retries":"3"}`, // a string where Camunda has an integer
	} {
		if p := s.Check(get(), http.StatusOK, jsonHeader, []byte(bad)); len(p) == 0 {
			t.Errorf("%s passed, want it refused", bad)
		}
	}
	if p := s.Check(get(), http.StatusAccepted, jsonHeader, nil); len(p) == 0 {
		t.Error("an undocumented 202 passed")
	}
	if p := s.Check(get(), http.StatusForbidden, http.Header{"Content-Type": {"application/problem+json"}}, []byte(`{"title":"no"}`)); len(p) == 0 {
		t.Error("a problem+json 403 passed")
	}
	if p := s.Check(httptest.NewRequest(http.MethodGet, "/engine-rest/no-such-thing", nil), http.StatusOK, jsonHeader, []byte(`{}`)); len(p) == 0 {
		t.Error("a 200 on an operation Camunda 7 lacks passed")
	}
	if p := s.Check(httptest.NewRequest(http.MethodGet, "/engine-rest/no-such-thing", nil), http.StatusNotFound, jsonHeader, []byte(`{"type":"x","message":"y"}`)); len(p) != 0 {
		t.Errorf("a 404 on an unknown path was refused: %v", p)
	}
	fetch := httptest.NewRequest(http.MethodPost, "/engine-rest/external-task/fetchAndLock", strings.NewReader(`{"workerId":7}`))
	fetch.Header.Set("Content-Type", "application/json")
	if p := s.Check(fetch, http.StatusOK, jsonHeader, []byte(`[]`)); len(p) == 0 {
		t.Error("a 200 to a request Camunda 7 would not take passed")
	}
}

func TestRelative(t *testing.T) {
	if p, ok := Relative("/engine-rest/task/{id}"); !ok || p != "/task/{id}" {
		t.Errorf("Relative = %q, %v", p, ok)
	}
	if _, ok := Relative("/api/v1/jobs"); ok {
		t.Error("an /api/v1 route is relative to /engine-rest")
	}
}
