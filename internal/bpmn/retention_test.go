package bpmn

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

func TestParseTimeToLive(t *testing.T) {
	t.Parallel()
	const day = 24 * time.Hour
	tests := []struct {
		in   string
		want time.Duration
		err  string
	}{
		{in: "30", want: 30 * day},
		{in: "0", want: 0},
		{in: "30d", want: 30 * day},
		{in: "12h", want: 12 * time.Hour},
		{in: "1d12h", want: 36 * time.Hour},
		{in: "90m", want: 90 * time.Minute},
		{in: "45s", want: 45 * time.Second},
		{in: " 7d ", want: 7 * day},
		{in: "P30D", want: 30 * day},
		{in: "PT12H", want: 12 * time.Hour},
		{in: "P1DT12H30M", want: 36*time.Hour + 30*time.Minute},
		{in: "P2W", want: 14 * day},
		{in: "", err: "empty"},
		{in: "-1", err: "negative"},
		{in: "-2h", err: "not a duration"},
		{in: "xd", err: "number of days"},
		{in: "30 days", err: "not a number of days"},
		{in: "P1M", err: "years and months"},
		{in: "P1Y", err: "years and months"},
		{in: "PT", err: "ISO 8601"},
		{in: "P", err: "ISO 8601"},
		{in: "1w", err: "not a duration"},
		{in: "99999999999999d", err: "too long"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			t.Parallel()
			got, err := ParseTimeToLive(tt.in)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("ParseTimeToLive(%q) = %v, %v; want an error containing %q", tt.in, got, err, tt.err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("ParseTimeToLive(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
			}
		})
	}
}

// ttlModel is a one-task process whose <process> carries attrs.
func ttlModel(attrs string) []byte {
	return fmt.Appendf(nil, `<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:gobpm="urn:gobpm:1"
  xmlns:camunda="http://camunda.org/schema/1.0/bpmn" targetNamespace="urn:test">
  <process id="p" isExecutable="true" %s>
    <startEvent id="s"/>
    <sequenceFlow id="f" sourceRef="s" targetRef="e"/>
    <endEvent id="e"/>
  </process>
</definitions>`, attrs)
}

func TestHistoryTimeToLive(t *testing.T) {
	t.Parallel()
	const day = 24 * time.Hour
	ok := []struct {
		name  string
		attrs string
		want  time.Duration // -1: not set
	}{
		{"none", ``, -1},
		{"gobpm days unit", `gobpm:historyTimeToLive="30d"`, 30 * day},
		{"gobpm hours", `gobpm:historyTimeToLive="6h"`, 6 * time.Hour},
		{"gobpm ISO", `gobpm:historyTimeToLive="PT90M"`, 90 * time.Minute},
		{"camunda days", `camunda:historyTimeToLive="180"`, 180 * day},
		{"camunda ISO days", `camunda:historyTimeToLive="P5D"`, 5 * day},
		{"camunda zero", `camunda:historyTimeToLive="0"`, 0},
		{"camunda empty", `camunda:historyTimeToLive=""`, -1},
	}
	for _, tt := range ok {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			defs, err := Parse(ttlModel(tt.attrs))
			if err != nil {
				t.Fatal(err)
			}
			got := defs.Processes[0].HistoryTimeToLive
			switch {
			case tt.want < 0 && got != nil:
				t.Errorf("HistoryTimeToLive = %v, want unset", *got)
			case tt.want >= 0 && (got == nil || *got != tt.want):
				t.Errorf("HistoryTimeToLive = %v, want %v", got, tt.want)
			}
		})
	}
	bad := []struct {
		name, attrs, want string
	}{
		{"both", `gobpm:historyTimeToLive="1d" camunda:historyTimeToLive="1"`, "both set"},
		{"gobpm garbage", `gobpm:historyTimeToLive="soon"`, "gobpm:historyTimeToLive"},
		{"camunda hours", `camunda:historyTimeToLive="PT12H"`, "whole number of days"},
		{"camunda negative", `camunda:historyTimeToLive="-3"`, "negative"},
		{"misspelt", `gobpm:historyTimeToLife="1d"`, "unknown gobpm attribute"},
	}
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			verr := MustFail(t, ttlModel(tt.attrs))
			if !strings.Contains(verr.Error(), tt.want) || !strings.Contains(verr.Error(), "p") {
				t.Errorf("error = %v, want it to contain %q", verr, tt.want)
			}
		})
	}
}

func TestHistoryTimeToLiveOnlyOnProcess(t *testing.T) {
	t.Parallel()
	model := `<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:gobpm="urn:gobpm:1"
  xmlns:camunda="http://camunda.org/schema/1.0/bpmn" targetNamespace="urn:test">
  <process id="p" isExecutable="true">
    <startEvent id="s" %s/>
    <sequenceFlow id="f" sourceRef="s" targetRef="e"/>
    <endEvent id="e"/>
  </process>
</definitions>`
	for _, attr := range []string{`gobpm:historyTimeToLive="1d"`, `camunda:historyTimeToLive="1"`} {
		verr := MustFail(t, fmt.Appendf(nil, model, attr))
		if !strings.Contains(verr.Error(), "historyTimeToLive") || !strings.Contains(verr.Error(), "s") {
			t.Errorf("%s on a start event: %v", attr, verr)
		}
	}
}
