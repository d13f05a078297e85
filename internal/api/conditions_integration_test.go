package api_test

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/gobpm/gobpm/internal/access"
	"github.com/gobpm/gobpm/internal/auth"
	"github.com/gobpm/gobpm/internal/engine"
	"github.com/gobpm/gobpm/internal/expr"
	"github.com/gobpm/gobpm/internal/runtime"
)

// conditionalProcess is a process whose only start is a conditional start
// event with condition cond, leading to the user task task.
func conditionalProcess(key, cond, task string) string {
	return defs(key, `<startEvent id="start"><conditionalEventDefinition><condition>`+cond+`</condition></conditionalEventDefinition></startEvent>
    <sequenceFlow id="f1" sourceRef="start" targetRef="`+task+`"/><userTask id="`+task+`"/>
    <sequenceFlow id="f2" sourceRef="`+task+`" targetRef="end"/><endEvent id="end"/>`)
}

// startedAt returns the node of each started instance's one track, sorted,
// and checks each instance is running with the call's variables and
// business key.
func startedAt(t *testing.T, res *response, businessKey string, vars map[string]any) []string {
	t.Helper()
	var nodes []string
	for _, it := range res.wantStatus(t, http.StatusOK).items(t) {
		inst := it.(map[string]any)
		if inst["status"] != "running" || inst["businessKey"] != businessKey {
			t.Errorf("started instance %v: want running with business key %q", inst, businessKey)
		}
		if got, want := mustJSON(t, inst["variables"]), mustJSON(t, vars); got != want {
			t.Errorf("started instance variables = %s, want %s", got, want)
		}
		tracks := inst["tracks"].([]any)
		if len(tracks) != 1 {
			t.Fatalf("started instance tracks = %v", tracks)
		}
		nodes = append(nodes, tracks[0].(map[string]any)["nodeId"].(string))
	}
	slices.Sort(nodes)
	return nodes
}

// runningCount is how many running instances the server lists.
func runningCount(t *testing.T, b *bundle) int {
	t.Helper()
	return len(b.get("/api/v1/instances?status=running").wantStatus(t, http.StatusOK).items(t))
}

// TestIntegrationEvaluateConditions follows Camunda 7's
// ConditionalStartEventTest through the API over a real store: each
// deployed conditional start event is evaluated on its own and starts an
// instance when it holds; a missing variable is false; an evaluation
// error refuses the call and starts nothing; processKey and version
// narrow it; nothing deployed is 404.
func TestIntegrationEvaluateConditions(t *testing.T) {
	t.Parallel()
	b := setupReal(t)
	const path = "/api/v1/conditions/evaluate"

	b.postJSON(path, `{"variables":{"temperature":25}}`).problem(t, http.StatusNotFound, "not-found")

	deployTestdata(t, b, "conditional_starts.bpmn")
	deployTestdata(t, b, "conditional_juel.bpmn")

	// Started by key, a process whose only starts are conditional says
	// where to go.
	if p := b.postJSON("/api/v1/processes/threeConditions/instances", `{}`).problem(t, http.StatusBadRequest, "invalid-request"); !strings.Contains(p.Detail, "/api/v1/conditions/evaluate") {
		t.Errorf("start by key detail = %q, want it to name the evaluate-conditions route", p.Detail)
	}

	// Two of three true: two instances, with the business key and the
	// variables; the JUEL process reads orderTotal and flag, not sent:
	// false, no error.
	vars := map[string]any{"temperature": json.Number("42")}
	got := startedAt(t, b.postJSON(path, `{"variables":{"temperature":42},"businessKey":"oven-7"}`), "oven-7", vars)
	if want := []string{"hotTask", "warmTask"}; !slices.Equal(got, want) {
		t.Fatalf("started at %v, want %v", got, want)
	}

	// Nothing holds: an empty list, no error.
	if got := startedAt(t, b.postJSON(path, `{"variables":{"temperature":5}}`), "", nil); len(got) != 0 {
		t.Errorf("started at %v, want none", got)
	}

	// A JUEL condition with a non-boolean result fails the whole call
	// (422 naming the process and the start event); the FEEL conditions
	// that hold start nothing either.
	before := runningCount(t, b)
	p := b.postJSON(path, `{"variables":{"temperature":42,"flag":"yes"}}`).problem(t, http.StatusUnprocessableEntity, "condition-failed")
	if !strings.Contains(p.Detail, "juelCondition") || !strings.Contains(p.Detail, `"flagged"`) || !strings.Contains(p.Detail, "nothing was started") {
		t.Errorf("detail = %q, want the process, the start event and that nothing started", p.Detail)
	}
	if after := runningCount(t, b); after != before {
		t.Errorf("running instances %d after a failed evaluation, want %d", after, before)
	}

	// processKey narrows to one process.
	got = startedAt(t, b.postJSON(path, `{"variables":{"orderTotal":150,"temperature":42},"processKey":"juelCondition"}`), "",
		map[string]any{"orderTotal": json.Number("150"), "temperature": json.Number("42")})
	if want := []string{"review"}; !slices.Equal(got, want) {
		t.Errorf("narrowed to juelCondition: started at %v, want %v", got, want)
	}

	// version narrows to an older version: version 2 wants more.
	b.postXML("/api/v1/deployments", conditionalProcess("versioned", "level &gt; 10", "v1Task")).wantStatus(t, http.StatusCreated)
	b.postXML("/api/v1/deployments", conditionalProcess("versioned", "level &gt; 50", "v2Task")).wantStatus(t, http.StatusCreated)
	lvl := map[string]any{"level": json.Number("20")}
	if got := startedAt(t, b.postJSON(path, `{"variables":{"level":20},"processKey":"versioned"}`), "", lvl); len(got) != 0 {
		t.Errorf("latest version: started at %v, want none", got)
	}
	res := b.postJSON(path, `{"variables":{"level":20},"processKey":"versioned","version":1}`)
	if got := startedAt(t, res, "", lvl); !slices.Equal(got, []string{"v1Task"}) {
		t.Errorf("version 1: started at %v, want [v1Task]", got)
	}
	if v := res.items(t)[0].(map[string]any)["version"]; v != json.Number("1") {
		t.Errorf("version 1 start: instance version %v", v)
	}

	// Unknown key or version, a process without conditional starts, a
	// version without a key.
	b.postJSON(path, `{"processKey":"nope"}`).problem(t, http.StatusNotFound, "not-found")
	b.postJSON(path, `{"processKey":"versioned","version":9}`).problem(t, http.StatusNotFound, "not-found")
	b.postXML("/api/v1/deployments", defs("plain", `<startEvent id="s"/><sequenceFlow id="f" sourceRef="s" targetRef="e"/><endEvent id="e"/>`)).wantStatus(t, http.StatusCreated)
	if p := b.postJSON(path, `{"processKey":"plain"}`).problem(t, http.StatusBadRequest, "invalid-request"); p.Field != "processKey" || !strings.Contains(p.Detail, "no conditional start event") {
		t.Errorf("plain process: %+v", p)
	}
	b.postJSON(path, `{"version":1}`).problem(t, http.StatusBadRequest, "invalid-request")
	b.postJSON(path, `{"variables":3}`).problem(t, http.StatusBadRequest, "invalid-request")
}

// TestIntegrationEvaluateConditionsBudget: a condition that hits the
// evaluation budget is an error answer, never a silent false.
func TestIntegrationEvaluateConditionsBudget(t *testing.T) {
	t.Parallel()
	b := setupRealWith(t, runtime.Options{Engine: engine.Options{Eval: expr.Limits{MaxSteps: 200}}})
	b.postXML("/api/v1/deployments", conditionalProcess("heavy", "count(for i in 1..100000 return i) &gt; 0", "task")).wantStatus(t, http.StatusCreated)
	p := b.postJSON("/api/v1/conditions/evaluate", `{}`).problem(t, http.StatusUnprocessableEntity, "condition-failed")
	if !strings.Contains(p.Detail, "heavy") || !strings.Contains(p.Detail, "step limit") {
		t.Errorf("detail = %q, want the process and the step limit", p.Detail)
	}
	if n := runningCount(t, b); n != 0 {
		t.Errorf("%d instances running, want none", n)
	}
}

// TestEvaluateConditionsAuthorization: without processKey, the processes
// the caller may not start are never evaluated (a failing condition there
// does not fail the call, nothing of them starts); naming one is 403.
func TestEvaluateConditionsAuthorization(t *testing.T) {
	t.Parallel()
	w := setupAuth(t)
	ctx := context.Background()
	w.call("admin", "POST", "/api/v1/deployments", conditionalProcess("mine", "go", "mineTask")).wantStatus(t, http.StatusCreated)
	w.call("admin", "POST", "/api/v1/deployments", conditionalProcess("theirs", "${go &gt; 1}", "theirsTask")).wantStatus(t, http.StatusCreated)
	if _, err := w.acc.CreateUser(ctx, "", access.NewUser{ID: "starter"}); err != nil {
		t.Fatal(err)
	}
	g, err := auth.NewGrant(auth.PermStart, auth.KindProcess, "mine")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.acc.Grant(ctx, "", access.GrantRecord{Subject: access.Subject{Kind: access.SubjectUser, ID: "starter"}, Grant: &g}); err != nil {
		t.Fatal(err)
	}
	secret, _, err := w.acc.MintToken(ctx, access.NewToken{Owner: "starter", Name: "test"})
	if err != nil {
		t.Fatal(err)
	}
	w.tokens["starter"] = secret

	// For the admin, theirs fails to evaluate (true is no number): 422.
	w.call("admin", "POST", "/api/v1/conditions/evaluate", `{"variables":{"go":true}}`).problem(t, http.StatusUnprocessableEntity, "condition-failed")
	// The starter never evaluates theirs: one instance of mine.
	items := w.call("starter", "POST", "/api/v1/conditions/evaluate", `{"variables":{"go":true}}`).wantStatus(t, http.StatusOK).items(t)
	if len(items) != 1 || items[0].(map[string]any)["processKey"] != "mine" {
		t.Fatalf("starter started %v, want one instance of mine", items)
	}
	w.call("starter", "POST", "/api/v1/conditions/evaluate", `{"variables":{"go":true},"processKey":"theirs"}`).problem(t, http.StatusForbidden, "forbidden")
	w.call("viewer", "POST", "/api/v1/conditions/evaluate", `{"variables":{"go":true}}`).problem(t, http.StatusForbidden, "forbidden")
}
