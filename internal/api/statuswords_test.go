package api_test

import (
	"net/http"
	"testing"
)

// errorChildModel: errchild ends in an uncaught BPMN error; errcaller calls
// it without catching it.
const errorChildModel = `<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" targetNamespace="urn:test">
  <error id="oos" errorCode="OUT_OF_STOCK"/>
  <process id="errchild" isExecutable="true">
    <startEvent id="begin"/>
    <sequenceFlow id="f1" sourceRef="begin" targetRef="fail"/>
    <endEvent id="fail"><errorEventDefinition errorRef="oos"/></endEvent>
  </process>
  <process id="errcaller" isExecutable="true">
    <startEvent id="start"/>
    <sequenceFlow id="f2" sourceRef="start" targetRef="reserve"/>
    <callActivity id="reserve" calledElement="errchild"/>
    <sequenceFlow id="f3" sourceRef="reserve" targetRef="end"/>
    <endEvent id="end"/>
  </process>
</definitions>`

// The status values keep their contract and mean what openapi.yaml says:
// "failed" without endedAt and with incident true is an instance stopped
// on an open incident (it may be retried); "failed" with endedAt is a
// called instance that ended on an error it could not handle. The list
// answers the same words as the instance.
func TestStatusWordsAreTrue(t *testing.T) {
	t.Parallel()
	b := setupReal(t)
	b.postXML("/api/v1/deployments", noMatchModel).wantStatus(t, http.StatusCreated)
	b.postXML("/api/v1/deployments", errorChildModel).wantStatus(t, http.StatusCreated)

	stuck := b.postJSON("/api/v1/processes/nomatch/instances", `{"variables":{"x":0}}`).wantStatus(t, http.StatusCreated).object(t)
	caller := b.postJSON("/api/v1/processes/errcaller/instances", `{}`).wantStatus(t, http.StatusCreated).object(t)
	kids, _ := caller["children"].([]any)
	if len(kids) != 1 {
		t.Fatalf("children %v", caller["children"])
	}
	child := b.get("/api/v1/instances/"+kids[0].(map[string]any)["instanceId"].(string)).wantStatus(t, http.StatusOK).object(t)

	for _, tt := range []struct {
		name     string
		got      map[string]any
		incident bool
		ended    bool
	}{
		{"stopped on an incident", stuck, true, false},
		{"caller stopped on its child's error", caller, true, false},
		{"child ended on its error", child, false, true},
	} {
		_, ended := tt.got["endedAt"]
		if tt.got["status"] != "failed" || tt.got["incident"] != tt.incident || ended != tt.ended {
			t.Errorf("%s: status %v, incident %v, endedAt %v; want failed, %v, ended %v",
				tt.name, tt.got["status"], tt.got["incident"], tt.got["endedAt"], tt.incident, tt.ended)
		}
	}
	for _, it := range b.get("/api/v1/instances?status=failed").wantStatus(t, http.StatusOK).items(t) {
		row := it.(map[string]any)
		_, ended := row["endedAt"]
		if row["incident"] == ended {
			t.Errorf("a failed instance in the list is either stopped on an incident or ended, never both or neither: %v", row)
		}
	}
}
