package api_test

import (
	"net/http"
	"testing"
)

// callerModel returns a process key that calls called and then ends.
func callerModel(key, called string) string {
	return `<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" targetNamespace="urn:test">
  <process id="` + key + `" isExecutable="true">
    <startEvent id="start"/>
    <sequenceFlow id="f1" sourceRef="start" targetRef="call"/>
    <callActivity id="call" calledElement="` + called + `"/>
    <sequenceFlow id="f2" sourceRef="call" targetRef="end"/>
    <endEvent id="end"/>
  </process>
</definitions>`
}

// A grandchild's open incident flags its parent and the root of the tree
// in the list and in the instance, and only the grandchild has its own.
func TestIntegrationIncidentsInTree(t *testing.T) {
	t.Parallel()
	b := setupReal(t)
	b.postXML("/api/v1/deployments", noMatchModel).wantStatus(t, http.StatusCreated)
	b.postXML("/api/v1/deployments", callerModel("middle", "nomatch")).wantStatus(t, http.StatusCreated)
	b.postXML("/api/v1/deployments", callerModel("top", "middle")).wantStatus(t, http.StatusCreated)
	root := b.postJSON("/api/v1/processes/top/instances", `{}`).wantStatus(t, http.StatusCreated).object(t)
	if root["status"] != "running" || root["incidentsInTree"] != true || root["incident"] != false {
		t.Fatalf("started root = %v", root)
	}
	rootID := root["id"].(string)

	items := b.get("/api/v1/instances?limit=100").wantStatus(t, http.StatusOK).items(t)
	if len(items) != 3 {
		t.Fatalf("instances = %v", items)
	}
	marks := map[string][2]any{}
	for _, it := range items {
		m := it.(map[string]any)
		marks[m["processKey"].(string)] = [2]any{m["incident"], m["incidentsInTree"]}
	}
	want := map[string][2]any{"top": {false, true}, "middle": {false, true}, "nomatch": {true, false}}
	for key, w := range want {
		if marks[key] != w {
			t.Errorf("%s: incident, incidentsInTree = %v, want %v", key, marks[key], w)
		}
	}
	got := b.get("/api/v1/instances/"+rootID).wantStatus(t, http.StatusOK).object(t)
	if got["incidentsInTree"] != true {
		t.Errorf("GET root = %v", got)
	}
	leaf := b.get("/api/v1/instances?processKey=nomatch").wantStatus(t, http.StatusOK).items(t)[0].(map[string]any)
	b.send(http.MethodPost, "/api/v1/instances/"+leaf["id"].(string)+"/cancel", "", "").wantStatus(t, http.StatusOK)
	got = b.get("/api/v1/instances/"+rootID).wantStatus(t, http.StatusOK).object(t)
	if got["incidentsInTree"] != false {
		t.Errorf("root after the grandchild was cancelled = %v", got)
	}
}
