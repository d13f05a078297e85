package api_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

func TestCamunda7ErrorDetails(t *testing.T) {
	t.Parallel()
	b := c7World(t)
	b.c7Start(`{}`)
	key := b.c7Fetch("w1", `[{"topicName":"charge","lockDuration":60000}]`)[0]["id"].(string)
	path := "/engine-rest/external-task/" + key + "/errorDetails"

	// Before any failure there are none: 204, as Camunda 7 answers null.
	if res := b.c7Send("GET", path, "").wantStatus(t, http.StatusNoContent); len(res.Body) != 0 {
		t.Errorf("details before a failure: %q", res.Body)
	}
	trace := "java.lang.IllegalStateException: no funds\n\tat Worker.charge(Worker.java:42)"
	body, _ := json.Marshal(map[string]any{"workerId": "w1", "errorMessage": "no funds", "errorDetails": trace, "retries": 2, "retryTimeout": 1})
	b.c7Send("POST", "/engine-rest/external-task/"+key+"/failure", string(body)).wantStatus(t, http.StatusNoContent)
	res := b.do(httptestRequest("GET", path, nil)).wantStatus(t, http.StatusOK)
	if string(res.Body) != trace || res.Header.Get("Content-Type") != "text/plain" {
		t.Errorf("details = %q (%s), want the trace as text/plain", res.Body, res.Header.Get("Content-Type"))
	}
	// The task as GET shows it has errorMessage only (Camunda 7's
	// ExternalTaskDto); the fetched task carries the details too.
	task := b.c7Send("GET", "/engine-rest/external-task/"+key, "").wantStatus(t, http.StatusOK).object(t)
	if _, ok := task["errorDetails"]; ok || task["errorMessage"] != "no funds" {
		t.Errorf("GET task = %v, want errorMessage and no errorDetails", task)
	}
	var fetched []map[string]any
	res = b.c7Send("POST", "/engine-rest/external-task/fetchAndLock", `{"workerId":"w1","maxTasks":1,"asyncResponseTimeout":5000,"topics":[{"topicName":"charge","lockDuration":60000}]}`).wantStatus(t, http.StatusOK)
	if err := json.Unmarshal(res.Body, &fetched); err != nil || len(fetched) != 1 {
		t.Fatalf("fetch after the backoff = %s, %v", res.Body, err)
	}
	if fetched[0]["errorDetails"] != trace || fetched[0]["errorMessage"] != "no funds" {
		t.Errorf("fetched task = %v, want the failure's message and details", fetched[0])
	}

	// Long details are cut at 64 KiB; the next failure replaces them.
	long := strings.Repeat("x", 70<<10)
	body, _ = json.Marshal(map[string]any{"workerId": "w1", "errorDetails": long, "retries": 0})
	b.c7Send("POST", "/engine-rest/external-task/"+key+"/failure", string(body)).wantStatus(t, http.StatusNoContent)
	res = b.do(httptestRequest("GET", path, nil)).wantStatus(t, http.StatusOK)
	if len(res.Body) != 64<<10 || string(res.Body) != long[:64<<10] {
		t.Errorf("long details: %d bytes, want the first %d", len(res.Body), 64<<10)
	}

	b.c7Send("GET", "/engine-rest/external-task/nope.abc/errorDetails", "").c7Error(t, http.StatusNotFound, "RestException")
}
