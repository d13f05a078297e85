package api_test

import (
	"fmt"
	"net/http"
	"testing"
)

func TestCamunda7SetRetries(t *testing.T) {
	t.Parallel()
	b := c7World(t)
	id := b.c7Start(`{}`)
	key := b.c7Fetch("w1", `[{"topicName":"charge","lockDuration":60000}]`)[0]["id"].(string)
	retries := func(path string) string {
		t.Helper()
		return fmt.Sprint(b.c7Send("GET", "/engine-rest/external-task/"+key, "").wantStatus(t, http.StatusOK).object(t)["retries"])
	}
	incidents := func() []any {
		t.Helper()
		return b.c7Send("GET", "/engine-rest/incident?processInstanceId="+id, "").wantStatus(t, http.StatusOK).array(t)
	}
	put := func(body string) *response {
		t.Helper()
		return b.c7Send("PUT", "/engine-rest/external-task/"+key+"/retries", body)
	}

	// More retries on a job without an incident only set them.
	put(`{"retries":5}`).wantStatus(t, http.StatusNoContent)
	if got := retries(key); got != "5" {
		t.Errorf("retries = %s, want 5", got)
	}
	// 0 raises the incident, as Camunda 7 does; the task is not fetchable.
	put(`{"retries":0}`).wantStatus(t, http.StatusNoContent)
	if got, in := retries(key), incidents(); got != "0" || len(in) != 1 {
		t.Fatalf("after retries 0: retries %s, incidents %v", got, in)
	}
	put(`{"retries":0}`).wantStatus(t, http.StatusNoContent) // again: still one incident
	if in := incidents(); len(in) != 1 {
		t.Errorf("retries 0 twice: incidents %v", in)
	}
	if got := b.c7Fetch("w2", `[{"topicName":"charge","lockDuration":60000}]`); len(got) != 0 {
		t.Errorf("fetched %v from a job out of retries", got)
	}
	// More retries resolve it: the task is fetchable again.
	put(`{"retries":2}`).wantStatus(t, http.StatusNoContent)
	if got, in := retries(key), incidents(); got != "2" || len(in) != 0 {
		t.Errorf("after retries 2: retries %s, incidents %v", got, in)
	}
	if got := b.c7Fetch("w2", `[{"topicName":"charge","lockDuration":60000}]`); len(got) != 1 || got[0]["id"] != key {
		t.Errorf("after the incident resolved, fetched %v", got)
	}

	put(`{"retries":-1}`).c7Error(t, http.StatusBadRequest, "InvalidRequestException")
	put(`{}`).c7Error(t, http.StatusBadRequest, "InvalidRequestException")
	b.c7Send("PUT", "/engine-rest/external-task/nope.abc/retries", `{"retries":1}`).c7Error(t, http.StatusNotFound, "NotFoundException")
}
