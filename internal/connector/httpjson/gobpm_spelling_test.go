package httpjson

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestGobpmSpelling runs gobpm's own spelling of the task: gobpm:type
// "gobpm:http" with gobpm:input mappings.
func TestGobpmSpelling(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(echo))
	defer srv.Close()
	b := setup(t, loopback)
	xml := fmt.Sprintf(`<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:gobpm="urn:gobpm:1"
    xmlns:zeebe="http://camunda.org/schema/zeebe/1.0" id="defs" targetNamespace="urn:test">
  <process id="own" isExecutable="true">
    <startEvent id="start" />
    <serviceTask id="call" gobpm:type="gobpm:http" gobpm:retries="1">
      <extensionElements>
        <gobpm:input source="PUT" target="method" />
        <gobpm:input source="=&quot;%s/orders/&quot; + string(orderId)" target="url" />
        <gobpm:input source="={qty: 2}" target="body" />
        <zeebe:taskHeaders><zeebe:header key="resultExpression" value="={echoed: body.json.qty, path: body.path}" /></zeebe:taskHeaders>
      </extensionElements>
    </serviceTask>
    <endEvent id="end" />
    <sequenceFlow id="f1" sourceRef="start" targetRef="call" />
    <sequenceFlow id="f2" sourceRef="call" targetRef="end" />
  </process>
</definitions>`, srv.URL)
	v := b.runXML(t, "own", []byte(xml), map[string]any{"orderId": 42})
	completed(t, v)
	if fmt.Sprint(v.Variables["echoed"]) != "2" || v.Variables["path"] != "/orders/42" {
		t.Fatalf("variables = %v", v.Variables)
	}
}
