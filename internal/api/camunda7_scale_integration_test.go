package api_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/gobpm/gobpm/internal/access"
	"github.com/gobpm/gobpm/internal/api"
	"github.com/gobpm/gobpm/internal/runtime"
)

// c7BigModel waits for a message and an external task side by side.
const c7BigModel = `<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:camunda="http://camunda.org/schema/1.0/bpmn" id="c7BigDefs" targetNamespace="urn:gobpm:camunda7">
  <message id="paidMsg" name="bigpaid"/>
  <process id="c7big" isExecutable="true">
    <startEvent id="start"/>
    <sequenceFlow id="toFork" sourceRef="start" targetRef="fork"/>
    <parallelGateway id="fork"/>
    <sequenceFlow id="toPaid" sourceRef="fork" targetRef="paid"/>
    <intermediateCatchEvent id="paid"><messageEventDefinition messageRef="paidMsg"/></intermediateCatchEvent>
    <sequenceFlow id="toPaidEnd" sourceRef="paid" targetRef="paidEnd"/>
    <endEvent id="paidEnd"/>
    <sequenceFlow id="toWork" sourceRef="fork" targetRef="work"/>
    <serviceTask id="work" camunda:type="external" camunda:topic="bigwork"/>
    <sequenceFlow id="toWorkEnd" sourceRef="work" targetRef="workEnd"/>
    <endEvent id="workEnd"/>
  </process>
</definitions>`

// TestCamunda7BeyondAThousandInstances starts more than 1000 instances,
// the oldest one different, and finds it through the job listing,
// fetchAndLock's filters and message correlation: none of them stops at
// some number of instances.
func TestCamunda7BeyondAThousandInstances(t *testing.T) {
	if testing.Short() {
		t.Skip("starts 1100 instances")
	}
	t.Parallel()
	ctx := context.Background()
	rt, acc := openAccess(t, access.ModeNone, nil)
	b := setup(t, rt, api.Options{Access: acc})
	if _, err := rt.Deploy(ctx, []runtime.File{{Name: "big.bpmn", Content: []byte(c7BigModel)}}); err != nil {
		t.Fatal(err)
	}
	needle, err := rt.StartInstance(ctx, runtime.StartRequest{ProcessKey: "c7big", BusinessKey: "needle", Variables: map[string]any{"n": -1}})
	if err != nil {
		t.Fatal(err)
	}
	const others = 1100
	var wg sync.WaitGroup
	errs := make(chan error, others)
	for w := range 8 { // concurrent starts share group commits
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < others; i += 8 {
				if _, err := rt.StartInstance(ctx, runtime.StartRequest{ProcessKey: "c7big", BusinessKey: fmt.Sprintf("b%d", i), Variables: map[string]any{"n": i}}); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}

	if n := b.c7Send("GET", "/engine-rest/external-task/count?topicName=bigwork", "").wantStatus(t, http.StatusOK).object(t)["count"]; fmt.Sprint(n) != fmt.Sprint(others+1) {
		t.Errorf("count = %v, want %d", n, others+1)
	}
	tasks := b.c7Fetch("wneedle", `[{"topicName":"bigwork","lockDuration":60000,"businessKey":"needle"}]`)
	if len(tasks) != 1 || tasks[0]["processInstanceId"] != string(needle.ID) {
		t.Fatalf("fetch by the needle's business key = %v", tasks)
	}
	mine := b.c7Send("GET", "/engine-rest/external-task?workerId=wneedle", "").wantStatus(t, http.StatusOK).array(t)
	if len(mine) != 1 || mine[0].(map[string]any)["id"] != tasks[0]["id"] {
		t.Errorf("tasks of wneedle = %v, want the needle's", mine)
	}
	if got := b.c7Send("GET", "/engine-rest/external-task?externalTaskId="+tasks[0]["id"].(string), "").wantStatus(t, http.StatusOK).array(t); len(got) != 1 {
		t.Errorf("task by id = %v", got)
	}

	msg := b.c7Send("POST", "/engine-rest/message", `{"messageName":"bigpaid"}`).c7Error(t, http.StatusBadRequest, "MismatchingMessageCorrelationException")
	if !strings.Contains(msg, fmt.Sprint(others+1)) {
		t.Errorf("uncorrelated message: %q, want it to count %d matches", msg, others+1)
	}
	b.c7Send("POST", "/engine-rest/message", `{"messageName":"bigpaid","correlationKeys":{"n":{"value":-1,"type":"Integer"}}}`).wantStatus(t, http.StatusNoContent)
	b.c7Send("POST", "/engine-rest/message", `{"messageName":"bigpaid","businessKey":"needle"}`).c7Error(t, http.StatusBadRequest, "MismatchingMessageCorrelationException")
	b.c7Send("POST", "/engine-rest/message", `{"messageName":"bigpaid","businessKey":"b0"}`).wantStatus(t, http.StatusNoContent)
}
