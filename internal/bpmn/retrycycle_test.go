package bpmn

import (
	"testing"
	"time"
)

// camundaProcess wraps a process body in a definitions document that
// declares the Camunda 7 namespace.
func camundaProcess(body string) []byte {
	return []byte(`<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:camunda="http://camunda.org/schema/1.0/bpmn" xmlns:gobpm="urn:gobpm:1" id="d" targetNamespace="urn:t">
<process id="p" isExecutable="true">` + body + `</process></definitions>`)
}

// cycleTask is an external task holding a retry cycle, plus attributes.
func cycleTask(id, attrs, cycle string) string {
	return `<serviceTask id="` + id + `" camunda:type="external" camunda:topic="t" ` + attrs + `><extensionElements>` +
		`<camunda:failedJobRetryTimeCycle>` + cycle + `</camunda:failedJobRetryTimeCycle></extensionElements></serviceTask>`
}

func TestParseRetryCycle(t *testing.T) {
	t.Parallel()
	tests := []struct {
		cycle, attrs string
		retries      int
		// waits are the backoffs after failures 1, 2, … from t0; nil when
		// the cycle is ignored.
		waits []time.Duration
	}{
		{"R5/PT5M", "", 5, []time.Duration{5 * time.Minute, 5 * time.Minute}},
		{"R1/PT1S", "", 1, []time.Duration{time.Second}},
		{"R0/PT1S", "", 1, []time.Duration{time.Second}},
		{"PT10M", "", 2, []time.Duration{10 * time.Minute}},
		{"PT1M,PT5M,PT10M", "", 4, []time.Duration{time.Minute, 5 * time.Minute, 10 * time.Minute, 10 * time.Minute}},
		{" P1D , PT1H ", "", 3, []time.Duration{24 * time.Hour, time.Hour}},
		// A higher-precedence budget wins and the cycle is ignored, as the
		// lower-precedence job type is.
		{"R5/PT5M", `gobpm:retries="2"`, 2, nil},
	}
	t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	for _, tt := range tests {
		t.Run(tt.cycle+tt.attrs, func(t *testing.T) {
			t.Parallel()
			defs, err := Parse(camundaProcess(cycleTask("x", tt.attrs, tt.cycle)))
			if err != nil {
				t.Fatal(err)
			}
			j := defs.Processes[0].Node("x").Job
			if j.Retries != tt.retries {
				t.Errorf("retries %d, want %d", j.Retries, tt.retries)
			}
			if (j.RetryCycle == nil) != (tt.waits == nil) {
				t.Fatalf("cycle %+v, want waits %v", j.RetryCycle, tt.waits)
			}
			for i, want := range tt.waits {
				if got := j.RetryCycle.WaitAfter(i+1, t0).Sub(t0); got != want {
					t.Errorf("after failure %d: %v, want %v", i+1, got, want)
				}
			}
		})
	}
}

func TestParseRejectRetryCycle(t *testing.T) {
	t.Parallel()
	body := cycleTask("empty", "", " ") +
		cycleTask("expr", "", "${cycle}") +
		cycleTask("endless", "", "R/PT5M") +
		cycleTask("dated", "", "R3/2026-01-01T00:00:00Z/PT1M") +
		cycleTask("nested", "", "PT1M,R2/PT1M") +
		cycleTask("word", "", "soon") +
		`<userTask id="human"><extensionElements><camunda:failedJobRetryTimeCycle>R3/PT1M</camunda:failedJobRetryTimeCycle></extensionElements></userTask>`
	verr := MustFail(t, camundaProcess(body))
	checkProblems(t, verr, []want{
		{"empty", RuleInvalidAttribute, "is empty"},
		{"expr", RuleUnsupported, "as an expression is not supported"},
		{"endless", RuleInvalidAttribute, "want a repetition count"},
		{"dated", RuleInvalidAttribute, "a start or end date is not supported"},
		{"nested", RuleInvalidAttribute, `"R2/PT1M" is not an ISO 8601 duration`},
		{"word", RuleInvalidAttribute, `"soon" is not an ISO 8601 duration`},
		{"human", RuleUnsupported, "a userTask creates no job"},
	}, false)
}
