package bpmn

import "testing"

// TestParseRESTConnector checks that Camunda 8's REST connector deploys as a
// job of its type, with its inputs and headers as written, while the other
// connectors stay refused (TestParseCamundaGapsRefused).
func TestParseRESTConnector(t *testing.T) {
	t.Parallel()
	d := MustParseBytes(t, []byte(`<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL"
    xmlns:zeebe="http://camunda.org/schema/zeebe/1.0" id="defs" targetNamespace="urn:test">
  <bpmn:process id="p" isExecutable="true">
    <bpmn:startEvent id="start" />
    <bpmn:serviceTask id="http" zeebe:modelerTemplate="io.camunda.connectors.HttpJson.v2">
      <bpmn:extensionElements>
        <zeebe:taskDefinition type="io.camunda:http-json:1" retries="3" />
        <zeebe:ioMapping>
          <zeebe:input source="noAuth" target="authentication.type" />
          <zeebe:input source="GET" target="method" />
          <zeebe:input source="https://example.com" target="url" />
        </zeebe:ioMapping>
        <zeebe:taskHeaders><zeebe:header key="resultVariable" value="response" /></zeebe:taskHeaders>
      </bpmn:extensionElements>
    </bpmn:serviceTask>
    <bpmn:endEvent id="end" />
    <bpmn:sequenceFlow id="f1" sourceRef="start" targetRef="http" />
    <bpmn:sequenceFlow id="f2" sourceRef="http" targetRef="end" />
  </bpmn:process>
</bpmn:definitions>`))
	p := d.Processes[0]
	n := p.Node("http")
	if n == nil || n.Job == nil || n.Job.Type != HTTPConnectorType || n.Job.Headers["resultVariable"] != "response" {
		t.Fatalf("node = %+v", n)
	}
}
