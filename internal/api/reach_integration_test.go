package api_test

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/gobpm/gobpm/internal/access"
	"github.com/gobpm/gobpm/internal/auth"
)

// reachDoc wraps the flow elements of one process order-<id> in a document
// declaring every namespace and the signal and message the models throw.
func reachDoc(id, body string) string {
	return `<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:gobpm="urn:gobpm:1"
  xmlns:zeebe="http://camunda.org/schema/zeebe/1.0" xmlns:camunda="http://camunda.org/schema/1.0/bpmn" targetNamespace="urn:reach">
  <signal id="sigPay" name="payday"/>
  <message id="msgPay" name="pay-now"/>
  <process id="order-` + id + `" isExecutable="true">
    <startEvent id="start"/>
    <sequenceFlow id="f1" sourceRef="start" targetRef="reach"/>
    ` + body + `
    <sequenceFlow id="f2" sourceRef="reach" targetRef="end"/>
    <endEvent id="end"/>
  </process>
</definitions>`
}

// payrollModels are the payroll team's process and decision, deployed by
// an admin: what the escapes below try to reach.
const payrollProcess = `<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" targetNamespace="urn:payroll">
  <process id="payroll" isExecutable="true">
    <startEvent id="ps"/>
    <sequenceFlow id="pf" sourceRef="ps" targetRef="pe"/>
    <endEvent id="pe"/>
  </process>
  <process id="order-sub" isExecutable="true">
    <startEvent id="os"/>
    <sequenceFlow id="of" sourceRef="os" targetRef="oe"/>
    <endEvent id="oe"/>
  </process>
</definitions>`

const payrollRates = `<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="https://www.omg.org/spec/DMN/20191111/MODEL/" id="rates" name="rates" namespace="urn:payroll">
  <decision id="payroll-rates" name="Rates">
    <decisionTable id="t">
      <input id="i"><inputExpression id="ie" typeRef="number"><text>grade</text></inputExpression></input>
      <output id="o" name="rate" typeRef="number"/>
      <rule id="r"><inputEntry id="re"><text>-</text></inputEntry><outputEntry id="ro"><text>42</text></outputEntry></rule>
    </decisionTable>
  </decision>
</definitions>`

// reachWorld is setupAuth plus the payroll team's models and alice, who
// may deploy, start and read order-* processes and nothing else.
func reachWorld(t *testing.T) *authWorld {
	t.Helper()
	w := setupAuth(t)
	ctx := context.Background()
	w.call("admin", "POST", "/api/v1/deployments?name=payroll.bpmn", payrollProcess).wantStatus(t, http.StatusCreated)
	w.call("admin", "POST", "/api/v1/deployments?name=rates.dmn", payrollRates).wantStatus(t, http.StatusCreated)
	if _, err := w.acc.CreateUser(ctx, "", access.NewUser{ID: "alice", Password: "correct horse battery"}); err != nil {
		t.Fatal(err)
	}
	for _, perm := range []auth.Permission{auth.PermDeploy, auth.PermStart, auth.PermRead} {
		g, err := auth.NewGrant(perm, auth.KindProcess, "order-*")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.acc.Grant(ctx, "", access.GrantRecord{Subject: access.Subject{Kind: access.SubjectUser, ID: "alice"}, Grant: &g}); err != nil {
			t.Fatal(err)
		}
	}
	secret, _, err := w.acc.MintToken(ctx, access.NewToken{Owner: "alice", Name: "alice"})
	if err != nil {
		t.Fatal(err)
	}
	w.tokens["alice"] = secret
	return w
}

// TestDeployEscapesAreRefused: a deployer who may deploy only order-*
// cannot reach beyond it through a model. Each way out — calling
// payroll, throwing a signal, throwing a message (a job of a type), a
// decision, a job type — is refused at deployment with 403 naming the
// element, what it reaches and the missing rights, and nothing is
// registered; the same models deploy for an admin and a developer.
func TestDeployEscapesAreRefused(t *testing.T) {
	t.Parallel()
	w := reachWorld(t)
	tests := []struct {
		name, body    string
		reaches, key  string
		missing       []string
		elementKind   string   // of the first body
		alsoSpellings []string // the same reach in other spellings
	}{
		{
			name: "call", body: `<callActivity id="reach" calledElement="payroll"/>`,
			reaches: "process", key: "payroll", missing: []string{"start process payroll", "read process payroll"}, elementKind: "callActivity",
			alsoSpellings: []string{`<callActivity id="reach"><extensionElements><zeebe:calledElement processId="payroll"/></extensionElements></callActivity>`},
		},
		{
			name: "signal", body: `<intermediateThrowEvent id="reach"><signalEventDefinition signalRef="sigPay"/></intermediateThrowEvent>`,
			reaches: "signal", key: "payday", missing: []string{"operate process *"}, elementKind: "intermediateThrowEvent",
		},
		{
			name: "message", body: `<intermediateThrowEvent id="reach" gobpm:type="payroll-notify"><messageEventDefinition messageRef="msgPay"/></intermediateThrowEvent>`,
			reaches: "job-type", key: "payroll-notify", missing: []string{"deploy job-type payroll-notify"}, elementKind: "intermediateThrowEvent",
			alsoSpellings: []string{`<sendTask id="reach" gobpm:type="payroll-notify" messageRef="msgPay"/>`},
		},
		{
			name: "decision", body: `<businessRuleTask id="reach" gobpm:decisionRef="payroll-rates"/>`,
			reaches: "decision", key: "payroll-rates", missing: []string{"start decision payroll-rates"}, elementKind: "businessRuleTask",
			alsoSpellings: []string{
				`<businessRuleTask id="reach" camunda:decisionRef="payroll-rates"/>`,
				`<businessRuleTask id="reach"><extensionElements><zeebe:calledDecision decisionId="payroll-rates" resultVariable="r"/></extensionElements></businessRuleTask>`,
			},
		},
		{
			name: "job type", body: `<serviceTask id="reach" gobpm:type="payroll-pay"/>`,
			reaches: "job-type", key: "payroll-pay", missing: []string{"deploy job-type payroll-pay"}, elementKind: "serviceTask",
			alsoSpellings: []string{
				`<serviceTask id="reach" camunda:type="external" camunda:topic="payroll-pay"/>`,
				`<serviceTask id="reach"><extensionElements><zeebe:taskDefinition type="payroll-pay"/></extensionElements></serviceTask>`,
			},
		},
	}
	for i, tt := range tests {
		for j, body := range append([]string{tt.body}, tt.alsoSpellings...) {
			key := fmt.Sprintf("order-escape-%d-%d", i, j)
			doc := reachDoc(key[len("order-"):], body)
			p := w.call("alice", "POST", "/api/v1/deployments?name="+key+".bpmn", doc).problem(t, http.StatusForbidden, "forbidden")
			if len(p.Refused) != 1 {
				t.Errorf("%s (spelling %d): refused = %+v, want one", tt.name, j, p.Refused)
				continue
			}
			r := p.Refused[0]
			if r.Element != "reach" || r.Process != key || r.Resource != key+".bpmn" || r.Reaches != tt.reaches || r.Key != tt.key ||
				!slices.Equal(r.Missing, tt.missing) || !strings.Contains(r.Detail, "alice may not") || (j == 0 && !strings.Contains(r.Detail, tt.elementKind)) {
				t.Errorf("%s (spelling %d): refusal = %+v", tt.name, j, r)
			}
			if !strings.Contains(p.Detail, r.Detail) {
				t.Errorf("%s: detail %q does not name the refusal %q", tt.name, p.Detail, r.Detail)
			}
			w.call("admin", "GET", "/api/v1/processes/"+key+"/versions", "").problem(t, http.StatusNotFound, "not-found")
			for _, role := range []string{"admin", "developer"} {
				w.call(role, "POST", "/api/v1/deployments?name="+key+".bpmn", doc).wantStatus(t, http.StatusCreated)
			}
		}
	}
}

// TestDeployEscapesAllListed: a deployment with several escapes lists
// every one of them.
func TestDeployEscapesAllListed(t *testing.T) {
	t.Parallel()
	w := reachWorld(t)
	doc := reachDoc("many", `<serviceTask id="reach" gobpm:type="payroll-pay"/>
    <sequenceFlow id="fx" sourceRef="reach" targetRef="second"/>
    <callActivity id="second" calledElement="payroll"/>`)
	p := w.call("alice", "POST", "/api/v1/deployments?name=many.bpmn", doc).problem(t, http.StatusForbidden, "forbidden")
	var got []string
	for _, r := range p.Refused {
		got = append(got, r.Element+" "+r.Reaches+" "+r.Key)
	}
	if want := []string{"reach job-type payroll-pay", "second process payroll"}; !slices.Equal(got, want) {
		t.Errorf("refused = %v, want %v", got, want)
	}
}

// TestDeployReachWithinGrants: what the deployer may reach deploys — a
// call to another order-* process, and, once alice may deploy job type
// order-*, a job of such a type.
func TestDeployReachWithinGrants(t *testing.T) {
	t.Parallel()
	w := reachWorld(t)
	w.call("alice", "POST", "/api/v1/deployments?name=ok.bpmn", reachDoc("ok", `<callActivity id="reach" calledElement="order-sub"/>`)).wantStatus(t, http.StatusCreated)
	job := reachDoc("job", `<serviceTask id="reach" gobpm:type="order-pay"/>`)
	w.call("alice", "POST", "/api/v1/deployments?name=job.bpmn", job).problem(t, http.StatusForbidden, "forbidden")
	g, err := auth.NewGrant(auth.PermDeploy, auth.KindJobType, "order-*")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.acc.Grant(context.Background(), "", access.GrantRecord{Subject: access.Subject{Kind: access.SubjectUser, ID: "alice"}, Grant: &g}); err != nil {
		t.Fatal(err)
	}
	w.call("alice", "POST", "/api/v1/deployments?name=job.bpmn", job).wantStatus(t, http.StatusCreated)
}

// TestDynamicReachRefusedAtRunTime: a callee or job type given as an
// expression deploys (it cannot be known before), and is checked against
// the deployer's rights when it resolves: alice's model calling "payroll"
// or creating a "payroll-pay" job stops in a reach-refused incident
// naming the refusal; no payroll instance starts and no worker gets the
// job. What alice may reach resolves normally, and the same model
// deployed by a developer reaches payroll.
func TestDynamicReachRefusedAtRunTime(t *testing.T) {
	t.Parallel()
	w := reachWorld(t)
	call := `<callActivity id="reach"><extensionElements><zeebe:calledElement processId="= callee"/></extensionElements></callActivity>`
	job := `<serviceTask id="reach"><extensionElements><zeebe:taskDefinition type="= kind"/></extensionElements></serviceTask>`
	w.call("alice", "POST", "/api/v1/deployments?name=dyn.bpmn", reachDoc("dyn", call)).wantStatus(t, http.StatusCreated)
	w.call("alice", "POST", "/api/v1/deployments?name=dynjob.bpmn", reachDoc("dynjob", job)).wantStatus(t, http.StatusCreated)
	w.call("developer", "POST", "/api/v1/deployments?name=devdyn.bpmn", reachDoc("devdyn", call)).wantStatus(t, http.StatusCreated)

	refused := func(key, vars, want string) {
		t.Helper()
		inst := w.call("alice", "POST", "/api/v1/processes/"+key+"/instances", `{"variables":`+vars+`}`).wantStatus(t, http.StatusCreated).object(t)
		incs, _ := inst["incidents"].([]any)
		if inst["status"] == "completed" || len(incs) != 1 {
			t.Fatalf("%s: instance %v, want one incident", key, inst)
		}
		in := incs[0].(map[string]any)
		if in["kind"] != "reach-refused" || in["nodeId"] != "reach" || !strings.Contains(in["message"].(string), want) {
			t.Errorf("%s: incident = %v, want reach-refused at reach naming %q", key, in, want)
		}
		if waits := w.call("alice", "GET", "/api/v1/instances/"+inst["id"].(string)+"/waits", "").wantStatus(t, http.StatusOK).items(t); len(waits) != 0 {
			t.Errorf("%s: waits %v: the refused call or job is still open", key, waits)
		}
	}
	refused("order-dyn", `{"callee":"payroll"}`, `deployer alice may not start process payroll nor read process payroll`)
	if n := w.call("admin", "GET", "/api/v1/instances?processKey=payroll", "").wantStatus(t, http.StatusOK).object(t)["total"]; fmt.Sprint(n) != "0" {
		t.Errorf("payroll instances = %v, want none", n)
	}
	refused("order-dynjob", `{"kind":"payroll-pay"}`, `deployer alice may not deploy job-type payroll-pay`)
	jobs := w.call("worker", "POST", "/api/v1/jobs/activate", `{"type":"payroll-pay","worker":"w","maxJobs":5,"lockDurationMs":1000}`).wantStatus(t, http.StatusOK).object(t)
	if got, _ := jobs["jobs"].([]any); len(got) != 0 {
		t.Errorf("the payroll worker got %v", got)
	}

	ok := w.call("alice", "POST", "/api/v1/processes/order-dyn/instances", `{"variables":{"callee":"order-sub"}}`).wantStatus(t, http.StatusCreated).object(t)
	if ok["status"] != "completed" {
		t.Errorf("calling order-sub: %v, want completed", ok)
	}
	dev := w.call("developer", "POST", "/api/v1/processes/order-devdyn/instances", `{"variables":{"callee":"payroll"}}`).wantStatus(t, http.StatusCreated).object(t)
	if dev["status"] != "completed" {
		t.Errorf("the developer's model calling payroll: %v, want completed", dev)
	}
}

// TestDynamicReachFollowsCurrentRights: the run-time check reads the
// deployer's rights when the reference resolves — granted since the
// deployment, a retry of the incident goes through.
func TestDynamicReachFollowsCurrentRights(t *testing.T) {
	t.Parallel()
	w := reachWorld(t)
	call := `<callActivity id="reach"><extensionElements><zeebe:calledElement processId="= callee"/></extensionElements></callActivity>`
	w.call("alice", "POST", "/api/v1/deployments?name=dyn.bpmn", reachDoc("dyn", call)).wantStatus(t, http.StatusCreated)
	inst := w.call("alice", "POST", "/api/v1/processes/order-dyn/instances", `{"variables":{"callee":"payroll"}}`).wantStatus(t, http.StatusCreated).object(t)
	incs, _ := inst["incidents"].([]any)
	if len(incs) != 1 {
		t.Fatalf("instance %v, want one incident", inst)
	}
	incident := incs[0].(map[string]any)["id"].(string)
	ctx := context.Background()
	for _, perm := range []auth.Permission{auth.PermStart, auth.PermRead} {
		g, err := auth.NewGrant(perm, auth.KindProcess, "payroll")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.acc.Grant(ctx, "", access.GrantRecord{Subject: access.Subject{Kind: access.SubjectUser, ID: "alice"}, Grant: &g}); err != nil {
			t.Fatal(err)
		}
	}
	w.call("admin", "POST", "/api/v1/incidents/"+incident+"/retry", `{}`).wantStatus(t, http.StatusOK)
	got := w.call("admin", "GET", "/api/v1/instances/"+inst["id"].(string), "").wantStatus(t, http.StatusOK).object(t)
	if got["status"] != "completed" {
		t.Errorf("after the grant and a retry: %v, want completed", got)
	}
}
