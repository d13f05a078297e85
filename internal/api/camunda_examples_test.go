package api_test

// TestCamundaExamples deploys Camunda's own example models unchanged and runs
// each one that deploys to its end through the API, with the behaviour
// Camunda documents for it; the ones gobpm refuses must be refused for the
// reason written here (platform-specific: Java, JavaScript, connectors,
// tenants; or not yet supported).
//
// The models are not part of this repository: they come from the public
// repositories named in camundaSources, and their licences (or, for the
// community examples, the absence of one) keep them out of it. The test reads
// them from $GOBPM_CAMUNDA_EXAMPLES, else from shared/conformance/
// camunda-examples beside the repository, laid out as
// <repository name>/<path in the repository> (e.g.
// camunda-get-started-quickstart/bpmn/payment.bpmn), and skips without them.

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gobpm/gobpm/internal/clock"
	"github.com/gobpm/gobpm/internal/runtime"
)

// camundaSources are the repositories the examples come from, by the folder
// name they sit under, with the commit they were taken at and their licence.
var camundaSources = map[string]string{
	"camunda-get-started-quickstart": "camunda/camunda-get-started-quickstart@531c3f5f3f7a1550c04f36751c8202dfc7c332e6 (Apache-2.0): the Camunda 7 quickstart",
	"camunda-bpm-platform":           "camunda/camunda-bpm-platform@3dd653fe66d352d15009a6b4b355e81bf683d319 (Apache-2.0): examples/invoice",
	"camunda-bpm-examples":           "camunda/camunda-bpm-examples@8b86bcf8c32903fb397989469984b8345dbb8d9f (Apache-2.0)",
	"camunda-platform-get-started":   "camunda/camunda-platform-get-started@2299c3a758da9b580107777aef3265c477474040 (Apache-2.0): the Camunda 8 get-started process",
	"camunda-8-examples":             "camunda-community-hub/camunda-8-examples@376df93d5bac6a6db519e90cf9c5b96d23a69a38 (no licence file)",
}

// camundaExamplesDir finds the examples, or "" when they are not here.
func camundaExamplesDir() string {
	if d := os.Getenv("GOBPM_CAMUNDA_EXAMPLES"); d != "" {
		return d
	}
	dir, err := filepath.Abs(".")
	for err == nil {
		cand := filepath.Join(dir, "shared", "conformance", "camunda-examples")
		if st, statErr := os.Stat(cand); statErr == nil && st.IsDir() {
			return cand
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		dir = parent
	}
	return ""
}

// exampleRun is one example's server: the real router, runtime and SQLite,
// with a clock the test moves.
type exampleRun struct {
	*bundle
	rt    *runtime.Runtime
	clock *clock.Manual
}

// start starts key with variables (a JSON object) and returns the instance id.
func (x *exampleRun) start(t *testing.T, key, variables string) string {
	t.Helper()
	return startProcess(t, x.bundle, key, variables)
}

// work completes the one open job of typ with vars and returns it as activated.
func (x *exampleRun) work(t *testing.T, typ, vars string) map[string]any {
	t.Helper()
	return workOne(t, x.bundle, typ, vars)
}

// fail throws the BPMN error code from the one open job of typ.
func (x *exampleRun) fail(t *testing.T, typ, code, message, vars string) {
	t.Helper()
	jobs := activate(t, x.bundle, typ, "camunda-worker", 60_000)
	if len(jobs) != 1 {
		t.Fatalf("%s jobs = %v, want one", typ, jobs)
	}
	body := `"errorCode":` + quote(code) + `,"errorMessage":` + quote(message) + `,"variables":` + vars
	if _, ok := jobs[0]["lockToken"].(string); ok {
		body = withToken(jobs[0], body)
	} else {
		body = "{" + body + "}"
	}
	x.postJSON("/api/v1/jobs/"+jobs[0]["key"].(string)+"/error", body).noContent(t)
}

// task completes the one open user task at node of instance id as user
// (claiming it first when it is offered to candidates) with vars.
func (x *exampleRun) task(t *testing.T, id, node, user, groups, vars string) {
	t.Helper()
	var found map[string]any
	for _, it := range x.get("/api/v1/tasks?instanceId="+id).wantStatus(t, http.StatusOK).items(t) {
		if task := it.(map[string]any); task["nodeId"] == node {
			found = task
		}
	}
	if found == nil {
		t.Fatalf("no open task %s in %s (status %s, completed %v)", node, id, instanceStatus(t, x.bundle, id), completedNodes(t, x.bundle, id))
	}
	path := "/api/v1/tasks/" + found["id"].(string)
	if found["assignee"] == nil && (len(found["candidateUsers"].([]any)) > 0 || len(found["candidateGroups"].([]any)) > 0) {
		x.as(user, groups, path+"/claim", "").wantStatus(t, http.StatusOK)
	}
	x.as(user, groups, path+"/complete", `{"variables":`+vars+`}`).noContent(t)
}

// workAll completes every open job of typ (n of them, from parallel
// iterations) with vars and returns them as activated.
func (x *exampleRun) workAll(t *testing.T, typ string, n int, vars string) []map[string]any {
	t.Helper()
	jobs := activate(t, x.bundle, typ, "camunda-worker", 60_000)
	if len(jobs) != n {
		t.Fatalf("%s jobs = %d, want %d", typ, len(jobs), n)
	}
	for _, job := range jobs {
		body := `{"variables":` + vars + `}`
		if _, ok := job["lockToken"].(string); ok {
			body = withToken(job, `"variables":`+vars)
		}
		x.postJSON("/api/v1/jobs/"+job["key"].(string)+"/complete", body).noContent(t)
	}
	return jobs
}

// message publishes a message and checks it reached want waits or starts
// (none: 404, as nothing waits for it).
func (x *exampleRun) message(t *testing.T, name, key, vars string, want int) {
	t.Helper()
	body := `{"name":` + quote(name) + `,"variables":` + vars
	if key != "" {
		body += `,"correlationKey":` + quote(key)
	}
	if want == 0 {
		x.postJSON("/api/v1/messages", body+"}").problem(t, http.StatusNotFound, "not-found")
		return
	}
	got := x.postJSON("/api/v1/messages", body+"}").wantStatus(t, http.StatusOK).object(t)
	if got["correlated"] != json.Number(itoa(want)) {
		t.Fatalf("message %s reached %v, want %d", name, got["correlated"], want)
	}
}

// ended checks the instance completed through the end event node and
// returns its variables.
func (x *exampleRun) ended(t *testing.T, id, node string) map[string]any {
	t.Helper()
	inst := x.get("/api/v1/instances/"+id).wantStatus(t, http.StatusOK).object(t)
	if done := completedNodes(t, x.bundle, id); inst["status"] != "completed" || !done[node] {
		t.Fatalf("instance %s is %s, completed %v; want completed through %s (incidents %v)", id, inst["status"], done, node, inst["incidents"])
	}
	return inst["variables"].(map[string]any)
}

// instancesOf lists the ids of the instances of a process.
func (x *exampleRun) instancesOf(t *testing.T, key string) []string {
	t.Helper()
	var ids []string
	for _, it := range x.get("/api/v1/instances?processKey="+key).wantStatus(t, http.StatusOK).items(t) {
		ids = append(ids, it.(map[string]any)["id"].(string))
	}
	return ids
}

func quote(s string) string { b, _ := json.Marshal(s); return string(b) }

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// camundaExample is one example model (or models deployed together).
type camundaExample struct {
	// files are paths under the examples folder, deployed together.
	files []string
	// refused lists substrings of the problems a refused model must show,
	// and why says why it is refused; both empty for a model that deploys.
	refused []string
	why     string
	// run drives the deployed model to its end.
	run func(t *testing.T, x *exampleRun)
}

const (
	c7Quickstart = "camunda-get-started-quickstart/"
	c7Invoice    = "camunda-bpm-platform/examples/invoice/src/main/resources/"
	c7Examples   = "camunda-bpm-examples/"
	c8GetStarted = "camunda-platform-get-started/"
	c8Examples   = "camunda-8-examples/"
	largeMI      = c8Examples + "large-multi-instance-example/"
)

// whys of refusals.
const (
	whyJava       = "platform-specific: Java code (delegates, beans, Spin)"
	whyJavaScript = "platform-specific: JavaScript or Groovy scripts"
	whyConnector  = "platform-specific: Camunda connectors"
	whyTenant     = "platform-specific: tenants"
	whyNotYet     = "not yet"
)

// oneUserTask runs start → user task → end models.
func oneUserTask(key, task, user, end string) func(*testing.T, *exampleRun) {
	return func(t *testing.T, x *exampleRun) {
		id := x.start(t, key, `{}`)
		x.task(t, id, task, user, "", `{}`)
		x.ended(t, id, end)
	}
}

var camundaExamples = []camundaExample{
	// Camunda 7: the quickstart's payment retrieval with its DMN decision.
	{files: []string{c7Quickstart + "bpmn/payment.bpmn", c7Quickstart + "dmn/approvepayment.dmn"}, run: func(t *testing.T, x *exampleRun) {
		// Below 1000 € the card is charged at once.
		id := x.start(t, "payment-retrieval", `{"amount":500,"item":"item-abc"}`)
		x.work(t, "charge-card", `{}`)
		x.ended(t, id, "EndEvent_1oyw02k")
		// From 1000 € the decision approves item-xyz, and only it.
		id = x.start(t, "payment-retrieval", `{"amount":5000,"item":"item-xyz"}`)
		x.work(t, "charge-card", `{}`)
		if vars := x.ended(t, id, "EndEvent_1oyw02k"); vars["approved"] != true {
			t.Errorf("approved = %v", vars["approved"])
		}
		id = x.start(t, "payment-retrieval", `{"amount":5000,"item":"item-abc"}`)
		x.ended(t, id, "EndEvent_0fj2aui")
	}},
	// Camunda 7: the invoice example.
	{files: []string{c7Invoice + "invoice.v2.bpmn", c7Invoice + "invoiceBusinessDecisions.dmn"},
		refused: []string{"camunda:taskListener on userTask", "camunda:class (a Java delegate)", "Camunda's dateTime()"},
		why:     whyJavaScript + " (task listeners), " + whyJava + " (ArchiveInvoiceService); JUEL's dateTime() " + whyNotYet},
	{files: []string{c7Invoice + "invoice.v1.bpmn"},
		refused: []string{"camunda:taskListener on userTask", "camunda:class (a Java delegate)", "Camunda's dateTime()"},
		why:     whyJavaScript + " (task listeners), " + whyJava + "; JUEL's dateTime() " + whyNotYet},
	{files: []string{c7Invoice + "reviewInvoice.bpmn"}, refused: []string{`camunda:dueDate "${dateTime().plusDays(2).toDate()}"`},
		why: "JUEL's dateTime() (Joda-Time) " + whyNotYet},
	// Camunda 7: the external task client's order handling. The worker
	// completes "Create Invoice" with invoiceId, which satisfies the
	// conditional boundary of the sub-process around it: the boundary fires
	// before the sub-process can complete, and the invoice is archived.
	{files: []string{c7Examples + "clients/java/order-handling/order-handling.bpmn"}, run: func(t *testing.T, x *exampleRun) {
		x.clock.Advance(5 * time.Second) // the cron start fires every 5 seconds
		if n, err := x.rt.FireDueTimers(context.Background()); err != nil || n == 0 {
			t.Fatalf("FireDueTimers = %d, %v", n, err)
		}
		ids := x.instancesOf(t, "Order_Process")
		if len(ids) != 1 {
			t.Fatalf("instances %v", ids)
		}
		x.work(t, "invoiceCreator", `{"invoiceId":"A123","invoice":{"id":"A123"}}`)
		x.work(t, "invoiceArchiver", `{}`)
		x.ended(t, ids[0], "EndEvent_0q2wrcp")
		if completedNodes(t, x.bundle, ids[0])["Task_06z99p1"] {
			t.Error("Create Invoice completed although the boundary interrupted it")
		}
	}},
	{files: []string{c7Examples + "startevent/message-start/src/main/resources/message_start_process.bpmn"}, run: func(t *testing.T, x *exampleRun) {
		x.message(t, "instantiationMessage", "", `{}`, 1)
		ids := x.instancesOf(t, "Message_Start_Process")
		if len(ids) != 1 {
			t.Fatalf("instances %v", ids)
		}
		x.task(t, ids[0], "UserTask_1", "demo", "", `{}`)
		x.ended(t, ids[0], "EndEvent_1")
	}},
	{files: []string{c7Examples + "usertask/task-camunda-forms/src/main/resources/invoiceApproval.bpmn"},
		run: oneUserTask("camundaFormsQuickstart", "UserTask_1", "demo", "EndEvent_1")},
	{files: []string{c7Examples + "usertask/task-form-embedded/src/main/resources/loanApproval.bpmn"},
		run: oneUserTask("embeddedFormsQuickstart", "UserTask_1", "demo", "EndEvent_1")},
	{files: []string{c7Examples + "usertask/task-form-embedded-bpmn-events/src/main/resources/invoicePayment.bpmn"},
		run: oneUserTask("embeddedFormsBpmnEvents", "Task_16y91ka", "demo", "EndEvent_1ug8ljt")},
	{files: []string{c7Examples + "usertask/task-form-embedded-react/src/main/resources/react-example.bpmn"}, run: func(t *testing.T, x *exampleRun) {
		id := x.start(t, "reactExample", `{}`)
		x.task(t, id, "Task_1a9adlo", "demo", "", `{"approved":true}`)
		x.ended(t, id, "EndEvent_0zc07k5")
		id = x.start(t, "reactExample", `{}`)
		x.task(t, id, "Task_1a9adlo", "demo", "", `{"approved":false}`) // ${not approved} is JUEL's negation
		x.ended(t, id, "EndEvent_0fmx4bw")
	}},
	{files: []string{c7Examples + "testing/junit5/camunda-bpm-junit-assert/src/test/resources/testProcess.bpmn"},
		run: oneUserTask("testProcess", "UserTask_1", "demo", "EndEvent_1")},
	{files: []string{c7Examples + "testing/junit5/camunda-bpm-junit-use-engine/src/test/resources/testProcess.bpmn"},
		run: oneUserTask("testProcess", "UserTask_1", "demo", "EndEvent_1")},
	{files: []string{c7Examples + "wildfly/jackson-annotations/src/main/resources/waitingState.bpmn"},
		run: oneUserTask("waitingProcess", "Task_0xibf8v", "demo", "EndEvent_0nrd2ju")},
	{files: []string{c7Examples + "multi-tenancy/schema-isolation/src/main/resources/processes/tenant1/tenant1_process.bpmn"},
		run: oneUserTask("tenant1-process", "UserTask_1", "demo", "EndEvent_1")},
	{files: []string{c7Examples + "multi-tenancy/tenant-identifier-shared-definitions/src/main/resources/processes/default/subProcess.bpmn"},
		run: oneUserTask("subProcess", "UserTask_0zlyiaz", "demo", "EndEvent_09z3uwr")},
	{files: []string{c7Examples + "process-engine-plugin/handling-jpa-variables/src/test/resources/process.bpmn"},
		run: oneUserTask("process", "check-variables", "demo", "EndEvent_1wq706h")},
	{files: []string{c7Examples + "spring-boot-starter/example-webapp-ee/src/main/resources/bpmn/sample.bpmn"},
		run: oneUserTask("Sample", "UserTask_1", "demo", "EndEvent_1")},
	{files: []string{c7Examples + "multi-tenancy/tenant-identifier-shared-definitions/src/main/resources/processes/default/mainProcess.bpmn"},
		refused: []string{"camunda:calledElementTenantId"}, why: whyTenant},
	{files: []string{c7Examples + "migration/migrate-on-deployment/src/main/resources/exampleProcess.bpmn"},
		refused: []string{"camunda:initiator"}, why: whyNotYet + " (the starting user in a variable; pass it as a start variable)"},
	{files: []string{c7Examples + "spring-boot-starter/external-task-client/loan-granting-spring-boot-webapp/src/main/resources/bpmn/loan-granting.bpmn"},
		refused: []string{"camunda:script in camunda:inputParameter"}, why: whyJavaScript},
	{files: []string{c7Examples + "usertask/task-form-embedded-json-variables/src/main/resources/process.bpmn"},
		refused: []string{"method prop() is not supported", "camunda:class"}, why: whyJava + " (Spin's prop())"},
	{files: []string{c7Examples + "testing/assert/job-announcement-publication-process/src/test/resources/camunda-testing-job-announcement.bpmn"},
		refused: []string{"camunda:expression (a Java delegate)", "method findRequester() is not supported"}, why: whyJava},
	{files: []string{c7Examples + "servicetask/rest-service/src/main/resources/invokeRestService.bpmn"},
		refused: []string{"camunda:connector is not supported"}, why: whyConnector},
	{files: []string{c7Examples + "scripttask/xslt-scripttask/src/main/resources/xslt-example.bpmn"},
		refused: []string{"camunda:executionListener", "camunda:resource on scriptTask"}, why: whyJavaScript + " (listeners, an XSLT script resource)"},
	{files: []string{c7Examples + "servicetask/service-invocation-synchronous/src/main/resources/synchronousServiceInvocation.bpmn"},
		refused: []string{"camunda:class (a Java delegate)"}, why: whyJava},

	// Camunda 8: the get-started process.
	{files: []string{c8GetStarted + "process/send-email.bpmn"}, run: func(t *testing.T, x *exampleRun) {
		id := x.start(t, "send-email", `{}`)
		x.task(t, id, "enterMessageTask", "demo", "", `{"message_content":"Hello"}`)
		if job := x.work(t, "email", `{}`); job["variables"].(map[string]any)["message_content"] != "Hello" {
			t.Errorf("the email worker sees %v", job["variables"])
		}
		x.ended(t, id, "EndEvent")
	}},
	// Camunda 8: the community examples.
	{files: []string{c8Examples + "async-service-task/src/main/resources/async-service-task.bpmn"}, run: func(t *testing.T, x *exampleRun) {
		id := x.start(t, "AsyncServiceTaskProcess", `{}`)
		x.work(t, "async-job", `{}`)
		x.ended(t, id, "ProcessCompleteEndEvent")
	}},
	{files: []string{c8Examples + "camunda-client-plain-java/src/main/resources/demoProcess.bpmn"}, run: func(t *testing.T, x *exampleRun) {
		id := x.start(t, "demoProcess", `{}`)
		x.work(t, "foo", `{"a":1}`)
		x.work(t, "bar", `{"b":2}`)
		x.work(t, "foo", `{"c":3}`)
		if vars := x.ended(t, id, "end"); vars["a"] == nil || vars["b"] == nil || vars["c"] == nil {
			t.Errorf("variables %v", vars)
		}
	}},
	{files: []string{c8Examples + "zeebe-client-plain-java/src/main/resources/demoProcessSingleTask.bpmn"}, run: func(t *testing.T, x *exampleRun) {
		id := x.start(t, "demoProcessSingleTask", `{}`)
		x.work(t, "foo", `{}`)
		x.ended(t, id, "end")
	}},
	{files: []string{c8Examples + "camunda-client-plain-java/src/main/resources/exampleProcess.bpmn"}, run: func(t *testing.T, x *exampleRun) {
		id := x.start(t, "exampleProcess", `{}`)
		if job := x.work(t, "send-email", `{}`); job["retries"] != json.Number("1") {
			t.Errorf("retries = %v, want the model's 1", job["retries"])
		}
		x.ended(t, id, "Event_13xihl3")
	}},
	{files: []string{c8Examples + "parallel-operations/src/main/resources/bpmn/camunda8/migratedProcess.bpmn"}, run: func(t *testing.T, x *exampleRun) {
		id := x.start(t, "MigratedProcessProcess", `{"callbackId":"cb-1"}`)
		for _, typ := range []string{"startOldProcess", "firstTask", "sharedTask", "anotherTask"} {
			x.work(t, typ, `{}`)
		}
		x.message(t, "oldProcessComplete", "cb-2", `{}`, 0)
		x.message(t, "oldProcessComplete", "cb-1", `{}`, 1)
		x.ended(t, id, "ProcessCompleteEndEvent")
	}},
	{files: []string{c8Examples + "payment-example-process-application/src/main/resources/payment_process.bpmn"}, run: func(t *testing.T, x *exampleRun) {
		// The customer's credit covers the payment.
		id := x.start(t, "paymentProcess", `{"customerId":"cust90","orderTotal":50}`)
		x.work(t, "customerCreditHandling", `{"customerCredit":90,"remainingAmount":0}`)
		x.ended(t, id, "PaymentCompletedEndEvent")
		// The card is charged; an invalid expiry date asks a person, who
		// resolves it, and the card is charged again.
		id = x.start(t, "paymentProcess", `{"customerId":"cust40","orderTotal":50}`)
		x.work(t, "customerCreditHandling", `{"customerCredit":40,"remainingAmount":10}`)
		x.fail(t, "creditCardCharging", "creditCardError", "expired", `{"errorMessage":"card expired"}`)
		x.task(t, id, "CheckPaymentDataTask", "demo", "", `{"errorResolved":true}`)
		if job := x.work(t, "creditCardCharging", `{}`); job["variables"].(map[string]any)["openAmount"] != json.Number("10") {
			t.Errorf("the charge sees %v, want openAmount 10 (its input mapping)", job["variables"])
		}
		if vars := x.ended(t, id, "PaymentCompletedEndEvent"); vars["creditCardErrorMessage"] != "card expired" {
			t.Errorf("creditCardErrorMessage = %v, want the error's variable mapped by the boundary", vars["creditCardErrorMessage"])
		}
		// Not resolved: the payment fails.
		id = x.start(t, "paymentProcess", `{"customerId":"cust40","orderTotal":50}`)
		x.work(t, "customerCreditHandling", `{"remainingAmount":10}`)
		x.fail(t, "creditCardCharging", "creditCardError", "expired", `{"errorMessage":"card expired"}`)
		x.task(t, id, "CheckPaymentDataTask", "demo", "", `{"errorResolved":false}`)
		x.ended(t, id, "PaymentFailedEndEvent")
	}},
	{files: []string{c8Examples + "synchronous-response-springboot/src/main/resources/models/responseProcess.bpmn"}, run: func(t *testing.T, x *exampleRun) {
		// The response job's type is a FEEL expression over the request id.
		id := x.start(t, "responseProcess", `{"requestId":"r-7"}`)
		x.work(t, "calculateSomething", `{"result":42}`)
		if job := x.work(t, "responseFor_r-7", `{}`); job["nodeId"] != "Event_19o6q23" {
			t.Errorf("response job %v", job)
		}
		x.ended(t, id, "Event_1qo0rla")
	}},
	{files: []string{c8Examples + "element-template-generation/src/test/resources/test.bpmn"}, run: func(t *testing.T, x *exampleRun) {
		// A custom connector's template: to gobpm a job of its type, with
		// the template's input mappings and headers, for a worker of yours.
		id := x.start(t, "test", `{}`)
		job := x.work(t, "com.camunda.consulting:carConnector:1", `{"car":{"make":"Audi"}}`)
		if h := headersOf(t, job); h["resultVariable"] != "car" || h["retryBackoff"] != "PT0S" {
			t.Errorf("headers = %v", h)
		}
		if v := job["variables"].(map[string]any); v["gearbox"] != "Automatic" || v["make"].(map[string]any)["audiModel"] != "A6" {
			t.Errorf("the worker sees %v", v)
		}
		x.ended(t, id, "CarGotEndEvent")
	}},
	{files: []string{largeMI + "src/main/resources/campaign-process.bpmn", largeMI + "src/main/resources/letter-process.bpmn"}, run: func(t *testing.T, x *exampleRun) {
		// One letter per item; each iteration's input mapping hides the
		// item list from its child (the collection is read before).
		id := x.start(t, "CampaignProcess", `{}`)
		x.work(t, "itemListCreation", `{"itemList":[1,2,3]}`)
		for _, job := range x.workAll(t, "letterCreation", 3, `{}`) { // parallel iterations
			if v := job["variables"].(map[string]any); v["itemId"] == nil || v["itemList"] != nil {
				t.Errorf("a letter sees %v, want its itemId and no itemList", v)
			}
		}
		x.ended(t, id, "Event_0bflgu2")
	}},
	{files: []string{largeMI + "src/main/resources/large/large-campaign-process.bpmn", largeMI + "src/main/resources/large/bucket-process.bpmn", largeMI + "src/main/resources/letter-process.bpmn"}, run: func(t *testing.T, x *exampleRun) {
		id := x.start(t, "LargeCampaignProcess", `{}`)
		x.work(t, "bucketCreation", `{"bucketList":["b1","b2"]}`)
		for range 2 { // buckets one after the other
			x.work(t, "itemListCreation", `{"itemList":[1,2]}`)
			x.workAll(t, "letterCreation", 2, `{}`)
		}
		x.ended(t, id, "Event_0vkjw1v")
	}},
	{files: []string{largeMI + "src/main/resources/huge/huge-campaign-process.bpmn", largeMI + "src/main/resources/huge/distributed-bucket-process.bpmn", largeMI + "src/main/resources/letter-process.bpmn"}, run: func(t *testing.T, x *exampleRun) {
		// Buckets run in instances of their own, started and answered by
		// messages the workers send.
		id := x.start(t, "HugeCampaignProcess", `{}`)
		x.work(t, "bucketCreation", `{"bucketList":["b1"]}`)
		x.work(t, "bucketStartSender", `{}`)
		x.message(t, "StartBucketMessage", "", `{"bucketId":"b1"}`, 1)
		x.work(t, "itemListCreation", `{"itemList":[1]}`)
		x.work(t, "letterCreation", `{}`)
		x.work(t, "bucketResultSender", `{}`)
		x.message(t, "bucketCompletedMessage", "b1", `{}`, 1)
		x.ended(t, id, "Event_1g84ij5")
	}},
	{files: []string{largeMI + "documentation/modeling-concept.bpmn"}, refused: []string{"needs a job type"},
		why: "a sketch without job types, messages or collections: Camunda 8 refuses it as well"},
	{files: []string{c8Examples + "rollback-on-error-example/src/main/resources/rollback-process.bpmn"},
		refused: []string{"zeebe:taskHeaders on userTask"}, why: whyNotYet + " (headers on a user task; gobpm's tasks are not jobs)"},
	{files: []string{c8Examples + "timer-testing/src/main/resources/get-up.bpmn"},
		refused: []string{`unknown function "is defined"`}, why: whyNotYet + " (Camunda FEEL's is defined())"},
	{files: []string{c8Examples + "ProcessMetadataListener/src/test/resources/test.bpmn"},
		refused: []string{"zeebe:executionListeners"}, why: whyNotYet + " (execution listeners)"},
	{files: []string{c8Examples + "event-processing/src/test/resources/eventHandler.bpmn"},
		refused: []string{"zeebe:executionListeners"}, why: whyNotYet + " (execution listeners)"},
	{files: []string{c8Examples + "weatherinfo-pyzeebe-connectors/src/weatherinfo-process.bpmn"},
		refused: []string{`"io.camunda:sendgrid:1" is a Camunda connector`}, why: whyConnector + " (the REST connector beside it is served)"},
	{files: []string{c8Examples + "payment-example-process-application/complete-usertasks/complete-user-tasks.bpmn"},
		refused: []string{"is a Camunda connector"}, why: whyConnector},
	{files: []string{c8Examples + "extended-connector-runtime/src/test/resources/test.bpmn"},
		refused: []string{"is a Camunda connector"}, why: whyConnector},
	{files: []string{c8Examples + "secret-provider-as-credentials-provider/src/test/resources/test.bpmn"},
		refused: []string{"is a Camunda connector"}, why: whyConnector},
	{files: []string{c8Examples + "react-tasklist/example.bpmn"},
		refused: []string{"inbound connector"}, why: whyConnector},
	{files: []string{c8Examples + "twitter-review-java-springboot/src/main/resources/twitter.bpmn"},
		refused: []string{"camunda:class (a Java delegate)"}, why: whyJava},
	{files: []string{c8Examples + "parallel-operations/src/main/resources/bpmn/camunda7/oldProcess.bpmn"},
		refused: []string{"camunda:expression (a Java delegate)"}, why: whyJava},
}

func TestCamundaExamples(t *testing.T) {
	t.Parallel()
	dir := camundaExamplesDir()
	if dir == "" {
		t.Skip("Camunda example models not found: set GOBPM_CAMUNDA_EXAMPLES or put them in shared/conformance/camunda-examples")
	}
	for _, ex := range camundaExamples {
		t.Run(ex.files[0], func(t *testing.T) {
			t.Parallel()
			var parts []part
			for _, f := range ex.files {
				data, err := os.ReadFile(filepath.Join(dir, f))
				if err != nil {
					t.Skipf("not here: %v (source: %s)", err, camundaSources[strings.SplitN(f, "/", 2)[0]])
				}
				parts = append(parts, part{filename: filepath.Base(f), content: string(data)})
			}
			b, rt, clock := setupRealClock(t)
			res := b.postMultipart("/api/v1/deployments", parts...)
			if len(ex.refused) > 0 {
				p := res.problem(t, http.StatusUnprocessableEntity, "invalid-model")
				var details []string
				for _, e := range p.Errors {
					details = append(details, e.Detail)
				}
				all := strings.Join(details, "\n")
				for _, want := range ex.refused {
					if !strings.Contains(all, want) {
						t.Errorf("refused (%s) without %q:\n%s", ex.why, want, all)
					}
				}
				return
			}
			if res.Status != http.StatusCreated {
				t.Fatalf("refused: %s", res.Body)
			}
			ex.run(t, &exampleRun{bundle: b, rt: rt, clock: clock})
		})
	}
}
