package runtime_test

import (
	"context"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/gobpm/gobpm/internal/runtime"
)

// hookModel is a process key started by a webhook at path.
func hookModel(key, path string) runtime.File {
	return runtime.File{Name: key + ".bpmn", Content: []byte(fmt.Sprintf(`<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL"
    xmlns:zeebe="http://camunda.org/schema/zeebe/1.0" id="defs" targetNamespace="urn:test">
  <bpmn:process id="%s" isExecutable="true">
    <bpmn:startEvent id="start">
      <bpmn:extensionElements>
        <zeebe:properties>
          <zeebe:property name="inbound.type" value="io.camunda:webhook:1" />
          <zeebe:property name="inbound.context" value="%s" />
        </zeebe:properties>
      </bpmn:extensionElements>
    </bpmn:startEvent>
    <bpmn:endEvent id="end" />
    <bpmn:sequenceFlow id="f1" sourceRef="start" targetRef="end" />
  </bpmn:process>
</bpmn:definitions>`, key, path))}
}

// Webhooks answers from a cache: a second call reads nothing again, a
// deployment on this runtime shows at once, and one through another
// runtime sharing the store (another node) within the cache's second.
func TestWebhooksCached(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	mustDeploy(t, b.rt, hookModel("a", "hook-a"))
	first, err := b.rt.Webhooks(ctx)
	if err != nil || len(first) != 1 {
		t.Fatalf("Webhooks = %v, %v", first, err)
	}
	again, err := b.rt.Webhooks(ctx)
	if err != nil || reflect.ValueOf(again).Pointer() != reflect.ValueOf(first).Pointer() {
		t.Fatalf("a second call built the routes again (%v)", err)
	}
	mustDeploy(t, b.rt, hookModel("b", "hook-b"))
	if got, err := b.rt.Webhooks(ctx); err != nil || len(got) != 2 {
		t.Fatalf("after a deployment here: %v, %v", got, err)
	}

	other := runtime.New(b.db, runtime.Options{}) // another node on the same store
	t.Cleanup(func() { _ = other.Close() })
	mustDeploy(t, other, hookModel("c", "hook-c"))
	deadline := time.Now().Add(time.Minute) // a bound for a cache that never expires, not a timing assertion
	for {
		got, err := b.rt.Webhooks(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := got["hook-c"]; ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("a webhook deployed by another node is never served here")
		}
		time.Sleep(20 * time.Millisecond)
	}
}
