package bpmn

import (
	"maps"
	"testing"

	"github.com/gobpm/gobpm/internal/expr"
)

// TestParseCamundaGaps checks the smaller Camunda 7 and 8 settings that
// real models carry: each is read into the model, or
// accepted without effect where gobpm's behaviour already matches.
func TestParseCamundaGaps(t *testing.T) {
	t.Parallel()
	p := MustParseFile(t, "camunda_gaps.bpmn").Processes[0]

	t.Run("zeebe script", func(t *testing.T) {
		t.Parallel()
		n := p.Node("c8script")
		if n.Script == nil || n.ResultVariable != "total" || n.Job != nil {
			t.Fatalf("script %v, result %q, job %+v", n.Script, n.ResultVariable, n.Job)
		}
		v, err := n.Script.Eval(expr.MapScope{"items": []any{1, 2}})
		if err != nil || v == nil {
			t.Fatalf("eval = %v, %v", v, err)
		}
		if got := p.Node("c8scriptGobpmResult").ResultVariable; got != "sum" {
			t.Errorf("gobpm:resultVariable beats zeebe's: got %q", got)
		}
	})
	t.Run("job worker script task", func(t *testing.T) {
		t.Parallel()
		n := p.Node("c8jobScript")
		if n.Job == nil || n.Job.Type != "render" || n.Job.Retries != DefaultJobRetries || n.Script != nil {
			t.Fatalf("job %+v script %v", n.Job, n.Script)
		}
	})
	t.Run("headers", func(t *testing.T) {
		t.Parallel()
		tests := []struct {
			node string
			want map[string]string
		}{
			// Later keys win; values are kept as written, never evaluated.
			{"c8headers", map[string]string{"carrier": "UPS", "template": "=not evaluated", "empty": ""}},
			{"c7props", map[string]string{"format": "pdf", "copies": "2"}},
			{"notify", map[string]string{"channel": "mail"}},
			{"dynType", nil},
		}
		for _, tc := range tests {
			if got := p.Node(tc.node).Job.Headers; !maps.Equal(got, tc.want) || (tc.want == nil) != (got == nil) {
				t.Errorf("%s headers = %v, want %v", tc.node, got, tc.want)
			}
		}
		if r := p.Node("c8headers").Job.Retries; r != 5 {
			t.Errorf("retries = %d", r)
		}
	})
	t.Run("job type expression", func(t *testing.T) {
		t.Parallel()
		j := p.Node("dynType").Job
		if j.TypeExpr == nil || j.Type != `="svc-" + region` {
			t.Fatalf("job %+v", j)
		}
		v, err := j.TypeExpr.Eval(expr.MapScope{"region": "eu"})
		if err != nil || v != "svc-eu" {
			t.Errorf("type = %v, %v", v, err)
		}
	})
	t.Run("placeholder property", func(t *testing.T) {
		t.Parallel()
		if n := p.Node("placeholder"); n == nil || n.Job == nil || n.Job.Type != "archive" {
			t.Fatalf("node = %+v", n)
		}
	})
}

// TestParseCamundaGapsRefused checks what stays refused next to them, each
// naming the element and what to do instead.
func TestParseCamundaGapsRefused(t *testing.T) {
	t.Parallel()
	checkProblems(t, MustFail(t, MustRead(t, "reject_camunda_gaps.bpmn")), []want{
		{"templated", RuleUnsupported, `"mail" is a Camunda connector`},
		{"headersOnUser", RuleUnsupported, "zeebe:taskHeaders on userTask is not supported: custom headers reach the workers of jobs, and a userTask creates no job"},
		{"badHeader", RuleMissingAttribute, "zeebe:header on serviceTask has no key"},
		{"badProperty", RuleMissingAttribute, "camunda:property on serviceTask has no name"},
		{"noResult", RuleMissingAttribute, "zeebe:script needs a resultVariable"},
		{"badScript", RuleInvalidExpression, `zeebe:script expression "=1 +"`},
		{"jobAndScript", RuleInvalidAttribute, "scriptTask has both zeebe:script and zeebe:taskDefinition"},
		{"jobResult", RuleUnsupported, "gobpm:resultVariable on a scriptTask implemented by a job worker"},
		{"scriptOnService", RuleUnsupported, "zeebe:script on serviceTask is not supported: it belongs on a scriptTask"},
		{"realProperty", RuleUnsupported, "property on task is not supported yet"},
		{"gobpmRetries", RuleInvalidAttribute, `gobpm:retries="": want an integer >= 0`},
	}, true)
}
