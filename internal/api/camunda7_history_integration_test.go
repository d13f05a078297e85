package api_test

import (
	"net/http"
	"testing"
)

func TestCamunda7IncidentsAndHistory(t *testing.T) {
	t.Parallel()
	b := c7World(t)
	failing := b.c7Start(`{}`)
	running := b.c7Start(`{}`)
	tasks := b.c7Fetch("w1", `[{"topicName":"charge","lockDuration":60000}]`)
	if len(tasks) != 2 {
		t.Fatalf("fetched %v", tasks)
	}
	for _, task := range tasks {
		if task["processInstanceId"] == failing {
			b.c7Send("POST", "/engine-rest/external-task/"+task["id"].(string)+"/failure", `{"workerId":"w1","errorMessage":"card service down","retries":0}`).
				wantStatus(t, http.StatusNoContent)
		}
	}
	done := b.c7Start(`{}`)
	b.c7Send("DELETE", "/engine-rest/process-instance/"+done, "").wantStatus(t, http.StatusNoContent)

	incs := b.c7Send("GET", "/engine-rest/incident", "").wantStatus(t, http.StatusOK).array(t)
	if len(incs) != 1 {
		t.Fatalf("incidents = %v", incs)
	}
	inc := incs[0].(map[string]any)
	if inc["processInstanceId"] != failing || inc["processDefinitionId"] != "c7order:1" || inc["activityId"] != "charge" ||
		inc["incidentType"] != "failedExternalTask" || inc["incidentMessage"] != "card service down" {
		t.Errorf("incident = %v", inc)
	}
	if got := b.c7Send("GET", "/engine-rest/incident?processInstanceId="+running, "").wantStatus(t, http.StatusOK).array(t); len(got) != 0 {
		t.Errorf("incidents of the running instance = %v", got)
	}
	if got := b.c7Send("GET", "/engine-rest/incident?incidentType=failedJob", "").wantStatus(t, http.StatusOK).array(t); len(got) != 0 {
		t.Errorf("failedJob incidents = %v", got)
	}

	hist := b.c7Send("GET", "/engine-rest/history/process-instance?processDefinitionKey=c7order", "").wantStatus(t, http.StatusOK).array(t)
	if len(hist) != 3 {
		t.Fatalf("history = %v", hist)
	}
	states := map[string]string{}
	for _, h := range hist {
		h := h.(map[string]any)
		states[h["id"].(string)] = h["state"].(string)
	}
	if states[failing] != "ACTIVE" || states[running] != "ACTIVE" || states[done] != "EXTERNALLY_TERMINATED" {
		t.Errorf("states = %v", states)
	}
	fin := b.c7Send("GET", "/engine-rest/history/process-instance?finished=true", "").wantStatus(t, http.StatusOK).array(t)
	if len(fin) != 1 || fin[0].(map[string]any)["id"] != done || fin[0].(map[string]any)["endTime"] == nil || fin[0].(map[string]any)["durationInMillis"] == nil {
		t.Errorf("finished = %v", fin)
	}
	if got := b.c7Send("GET", "/engine-rest/history/process-instance?unfinished=true&maxResults=1", "").wantStatus(t, http.StatusOK).array(t); len(got) != 1 {
		t.Errorf("unfinished, one = %v", got)
	}
	if got := b.c7Send("GET", "/engine-rest/history/process-instance?processInstanceId="+done, "").wantStatus(t, http.StatusOK).array(t); len(got) != 1 {
		t.Errorf("by id = %v", got)
	}
	b.c7Send("GET", "/engine-rest/history/process-instance?finished=maybe", "").c7Error(t, http.StatusBadRequest, "InvalidRequestException")
}
