package api_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"
)

// c7TaggedModel is a second process on the order model's "charge" topic,
// with a version tag.
const c7TaggedModel = `<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:camunda="http://camunda.org/schema/1.0/bpmn" id="c7TaggedDefs" targetNamespace="urn:gobpm:camunda7">
  <process id="c7tagged" isExecutable="true" camunda:versionTag="1.0">
    <startEvent id="start"/>
    <sequenceFlow id="toCharge" sourceRef="start" targetRef="charge"/>
    <serviceTask id="charge" camunda:type="external" camunda:topic="charge"/>
    <sequenceFlow id="toEnd" sourceRef="charge" targetRef="end"/>
    <endEvent id="end"/>
  </process>
</definitions>`

// c7FetchInstances fetches with topics for worker and returns the
// instances of the tasks it locked, sorted; with unlock it releases them.
func (b *bundle) c7FetchInstances(worker, topics string, unlock bool) []string {
	b.t.Helper()
	var out []string
	for _, task := range b.c7Fetch(worker, topics) {
		out = append(out, task["processInstanceId"].(string))
		if unlock {
			b.c7Send("POST", "/engine-rest/external-task/"+task["id"].(string)+"/unlock", "").wantStatus(b.t, http.StatusNoContent)
		}
	}
	slices.Sort(out)
	return out
}

func TestCamunda7FetchTopicFilters(t *testing.T) {
	t.Parallel()
	b := c7World(t)
	b.postXML("/api/v1/deployments", c7TaggedModel).wantStatus(t, http.StatusCreated)
	start := func(process, body string) string {
		return b.postJSON("/api/v1/processes/"+process+"/instances", body).wantStatus(t, http.StatusCreated).object(t)["id"].(string)
	}
	a := start("c7order", `{"businessKey":"b1","variables":{"amount":42,"vip":true}}`)
	bb := start("c7order", `{"businessKey":"b2","variables":{"amount":7}}`)
	c := start("c7tagged", `{"variables":{"amount":42}}`)
	sorted := func(ids ...string) []string {
		ids = slices.Clone(ids)
		slices.Sort(ids)
		return ids
	}

	for _, tt := range []struct {
		name, filter string
		want         []string
	}{
		{"businessKey", `"businessKey":"b1"`, sorted(a)},
		{"unknown businessKey", `"businessKey":"b9"`, nil},
		{"processDefinitionKey", `"processDefinitionKey":"c7tagged"`, sorted(c)},
		{"processDefinitionKeyIn", `"processDefinitionKeyIn":["c7order","nope"]`, sorted(a, bb)},
		{"both key filters", `"processDefinitionKey":"c7order","processDefinitionKeyIn":["c7tagged"]`, nil},
		{"processDefinitionId", `"processDefinitionId":"c7tagged:1"`, sorted(c)},
		{"processDefinitionIdIn", `"processDefinitionIdIn":["c7order:1","c7order:2","nonsense"]`, sorted(a, bb)},
		{"unknown processDefinitionId", `"processDefinitionId":"c7order:9"`, nil},
		{"processVariables", `"processVariables":{"amount":42}`, sorted(a, c)},
		{"two processVariables", `"processVariables":{"amount":42,"vip":true}`, sorted(a)},
		{"processVariables and key", `"processVariables":{"amount":42},"processDefinitionKey":"c7order"`, sorted(a)},
		{"absent variable", `"processVariables":{"missing":null}`, nil},
		{"withoutTenantId", `"withoutTenantId":true`, sorted(a, bb, c)},
		{"tenantIdIn", `"tenantIdIn":["t1"]`, nil},
		{"empty tenantIdIn", `"tenantIdIn":[]`, sorted(a, bb, c)},
		{"processDefinitionVersionTag", `"processDefinitionVersionTag":"1.0"`, sorted(c)},
		{"other version tag", `"processDefinitionVersionTag":"2.0"`, nil},
	} {
		got := b.c7FetchInstances("w1", `[{"topicName":"charge","lockDuration":60000,`+tt.filter+`}]`, true)
		if !slices.Equal(got, tt.want) {
			t.Errorf("%s: fetched the tasks of %v, want %v", tt.name, got, tt.want)
		}
	}

	// A filter never locks what it does not match: the other tasks stay
	// unlocked, and another subscription of the same topic fetches them.
	if got := b.c7FetchInstances("w1", `[{"topicName":"charge","lockDuration":60000,"businessKey":"b2"}]`, false); !slices.Equal(got, []string{bb}) {
		t.Fatalf("businessKey b2 fetched %v, want %v", got, bb)
	}
	unlocked := b.c7Send("GET", "/engine-rest/external-task?topicName=charge&notLocked=true", "").wantStatus(t, http.StatusOK).array(t)
	var free []string
	for _, task := range unlocked {
		free = append(free, task.(map[string]any)["processInstanceId"].(string))
	}
	slices.Sort(free)
	if !slices.Equal(free, sorted(a, c)) {
		t.Errorf("unlocked charge tasks belong to %v, want %v", free, sorted(a, c))
	}
	got := b.c7FetchInstances("w2", `[{"topicName":"charge","lockDuration":60000,"processDefinitionKey":"c7tagged"},`+
		`{"topicName":"charge","lockDuration":60000,"businessKey":"b1"}]`, false)
	if !slices.Equal(got, sorted(a, c)) {
		t.Errorf("w2's two subscriptions fetched %v, want %v", got, sorted(a, c))
	}
	if rest := b.c7Fetch("w3", `[{"topicName":"charge","lockDuration":60000}]`); len(rest) != 0 {
		t.Errorf("every charge task is locked, yet w3 fetched %v", rest)
	}
	if msg := b.c7Send("POST", "/engine-rest/external-task/fetchAndLock",
		`{"workerId":"w","maxTasks":1,"topics":[{"topicName":"charge","lockDuration":1,"processDefinitionKeyIn":"c7order"}]}`).
		c7Error(t, http.StatusBadRequest, "InvalidRequestException"); !strings.Contains(msg, "JSON") {
		t.Errorf("a malformed filter: %q", msg)
	}
}
