package zeebe_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/camunda/zeebe/clients/go/v8/pkg/entities"
	"github.com/camunda/zeebe/clients/go/v8/pkg/pb"
	"github.com/camunda/zeebe/clients/go/v8/pkg/worker"
	"github.com/camunda/zeebe/clients/go/v8/pkg/zbc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/gobpm/gobpm/internal/runtime"
	"github.com/gobpm/gobpm/internal/testdb"
	"github.com/gobpm/gobpm/internal/zeebe"
)

// bundle is a gateway over a real runtime on a fresh store, and the real
// Zeebe Go client on it.
type bundle struct {
	rt   *runtime.Runtime
	addr string
	zc   zbc.Client
}

// setup starts the gateway over a real runtime with creds (nil: no
// authentication).
func setup(t *testing.T, creds zeebe.Credentials) *bundle {
	t.Helper()
	return setupWith(t, creds, nil)
}

// setupWith is setup with a logger for the gateway (nil: discard).
func setupWith(t *testing.T, creds zeebe.Credentials, log *slog.Logger) *bundle {
	t.Helper()
	ctx := context.Background()
	db, err := testdb.Open(ctx, testdb.DSN(t))
	if err != nil {
		t.Fatal(err)
	}
	rt := runtime.New(db, runtime.Options{})
	t.Cleanup(func() {
		_ = rt.Close()
		_ = db.Close()
	})
	opts := zeebe.Options{Service: rt, Logger: log}
	if creds != nil {
		opts.Credentials = creds
	}
	b := &bundle{rt: rt, addr: serve(t, opts)}
	b.zc = client(t, b.addr, "")
	return b
}

// deploy deploys testdata files through DeployResource.
func deploy(t *testing.T, zc zbc.Client, names ...string) *pb.DeployResourceResponse {
	t.Helper()
	cmd := zc.NewDeployResourceCommand()
	for _, n := range names {
		data, err := os.ReadFile(filepath.Join("testdata", n))
		if err != nil {
			t.Fatal(err)
		}
		cmd = cmd.AddResource(data, n)
	}
	res, err := cmd.Send(context.Background())
	if err != nil {
		t.Fatalf("DeployResource %v: %v", names, err)
	}
	return res
}

// start starts an instance of processID with vars.
func start(t *testing.T, zc zbc.Client, processID string, vars map[string]any) int64 {
	t.Helper()
	cmd, err := zc.NewCreateInstanceCommand().BPMNProcessId(processID).LatestVersion().VariablesFromMap(vars)
	if err != nil {
		t.Fatal(err)
	}
	res, err := cmd.Send(context.Background())
	if err != nil {
		t.Fatalf("CreateProcessInstance %s: %v", processID, err)
	}
	return res.ProcessInstanceKey
}

// instance is the instance with numeric key key.
func (b *bundle) instance(t *testing.T, key int64) runtime.InstanceView {
	t.Helper()
	v, err := b.rt.InstanceByC8Key(context.Background(), key)
	if err != nil {
		t.Fatalf("instance %d: %v", key, err)
	}
	return v
}

// awaitStatus waits up to 10 s for instance key to reach st.
func (b *bundle) awaitStatus(t *testing.T, key int64, st string) runtime.InstanceView {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		v := b.instance(t, key)
		if string(v.Status) == st || time.Now().After(deadline) {
			if string(v.Status) != st {
				t.Fatalf("instance %d is %s, want %s", key, v.Status, st)
			}
			return v
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// activate activates the jobs of typ at once.
func activate(t *testing.T, zc zbc.Client, typ string) []entities.Job {
	t.Helper()
	jobs, err := zc.NewActivateJobsCommand().JobType(typ).MaxJobsToActivate(10).Timeout(time.Minute).Send(context.Background())
	if err != nil {
		t.Fatalf("ActivateJobs %s: %v", typ, err)
	}
	return jobs
}

func wantStatus(t *testing.T, what string, err error, code codes.Code) {
	t.Helper()
	if status.Code(err) != code {
		t.Errorf("%s: %v, want %s", what, err, code)
	}
}

func TestDeployAndCreateWithResult(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	ctx := context.Background()
	dep := deploy(t, b.zc, "c8-quick.bpmn")
	if dep.Key == 0 || len(dep.Deployments) != 1 {
		t.Fatalf("deployment = %v", dep)
	}
	p := dep.Deployments[0].GetProcess()
	if p.BpmnProcessId != "c8-quick" || p.Version != 1 || p.ProcessDefinitionKey == 0 || p.ResourceName != "c8-quick.bpmn" {
		t.Errorf("process = %v", p)
	}
	cmd, err := b.zc.NewCreateInstanceCommand().ProcessDefinitionKey(p.ProcessDefinitionKey).VariablesFromMap(map[string]any{"amount": 21})
	if err != nil {
		t.Fatal(err)
	}
	res, err := cmd.WithResult().FetchVariables("total").Send(ctx)
	if err != nil {
		t.Fatalf("CreateProcessInstanceWithResult: %v", err)
	}
	var vars map[string]any
	if err := json.Unmarshal([]byte(res.Variables), &vars); err != nil || len(vars) != 1 || vars["total"] != 42.0 {
		t.Errorf("variables = %s (%v)", res.Variables, err)
	}
	if res.BpmnProcessId != "c8-quick" || res.ProcessDefinitionKey != p.ProcessDefinitionKey || res.ProcessInstanceKey == 0 {
		t.Errorf("answer = %v", res)
	}

	_, err = b.zc.NewDeployResourceCommand().AddResource([]byte("<not bpmn"), "broken.bpmn").Send(ctx)
	wantStatus(t, "deploying broken XML", err, codes.InvalidArgument)
	_, err = b.zc.NewCreateInstanceCommand().BPMNProcessId("nope").LatestVersion().Send(ctx)
	wantStatus(t, "starting an unknown process", err, codes.NotFound)
	_, err = b.zc.NewCreateInstanceCommand().ProcessDefinitionKey(987654321).Send(ctx)
	wantStatus(t, "starting an unknown process key", err, codes.NotFound)
	_, err = b.zc.NewCreateInstanceCommand().BPMNProcessId("c8-quick").LatestVersion().VariablesFromString("[1]")
	if err == nil {
		t.Log("the client let a non-object document through")
	}
}

func TestJobWorkerCompletesJobs(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	deploy(t, b.zc, "c8-pay.bpmn")
	var keys []int64
	for i := range 5 {
		keys = append(keys, start(t, b.zc, "c8-pay", map[string]any{"n": i}))
	}
	var mu sync.Mutex
	seen := map[int64]int{}
	w := b.zc.NewJobWorker().JobType("c8-charge").Handler(func(c worker.JobClient, job entities.Job) {
		headers, _ := job.GetCustomHeadersAsMap()
		if headers["currency"] != "EUR" {
			t.Errorf("headers = %v", headers)
		}
		mu.Lock()
		seen[job.ProcessInstanceKey]++
		mu.Unlock()
		cmd, err := c.NewCompleteJobCommand().JobKey(job.Key).VariablesFromMap(map[string]any{"charged": true})
		if err != nil {
			t.Error(err)
			return
		}
		if _, err := cmd.Send(context.Background()); err != nil {
			t.Errorf("CompleteJob %d: %v", job.Key, err)
		}
	}).MaxJobsActive(2).RequestTimeout(time.Second).PollInterval(50 * time.Millisecond).Open()
	for _, k := range keys {
		v := b.awaitStatus(t, k, string(runtime.StatusCompleted))
		if v.Variables["charged"] != true {
			t.Errorf("instance %d variables = %v", k, v.Variables)
		}
	}
	w.Close()
	w.AwaitClose()
	mu.Lock()
	defer mu.Unlock()
	for _, k := range keys {
		if seen[k] != 1 {
			t.Errorf("instance %d: the worker saw its job %d times", k, seen[k])
		}
	}
}

func TestFailToIncidentResolveThrowErrorCancel(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	ctx := context.Background()
	deploy(t, b.zc, "c8-pay.bpmn")

	// A job failed down to 0 retries raises an incident; resolving it
	// makes the job activatable again.
	k := start(t, b.zc, "c8-pay", nil)
	jobs := activate(t, b.zc, "c8-charge")
	if len(jobs) != 1 || jobs[0].Retries != 2 || jobs[0].ProcessInstanceKey != k || jobs[0].BpmnProcessId != "c8-pay" || jobs[0].ElementId != "charge" {
		t.Fatalf("jobs = %v", jobs)
	}
	if _, err := b.zc.NewFailJobCommand().JobKey(jobs[0].Key).Retries(0).ErrorMessage("card declined").Send(ctx); err != nil {
		t.Fatalf("FailJob: %v", err)
	}
	_, err := b.zc.NewCompleteJobCommand().JobKey(jobs[0].Key).Send(ctx)
	wantStatus(t, "completing a failed job", err, codes.FailedPrecondition)
	v := b.instance(t, k)
	rows, _, err := b.rt.IncidentsPage(ctx, v.ID, true, "", 10)
	if err != nil || len(rows) != 1 {
		t.Fatalf("incidents = %v, %v", rows, err)
	}
	incKey, err := b.rt.NumericKey(ctx, runtime.KeyIncident, rows[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.zc.NewResolveIncidentCommand().IncidentKey(incKey).Send(ctx); err != nil {
		t.Fatalf("ResolveIncident: %v", err)
	}
	// Resolving it again is no error (a client sends it after the retries
	// update that resolved it already), and changes nothing.
	if _, err := b.zc.NewResolveIncidentCommand().IncidentKey(incKey).Send(ctx); err != nil {
		t.Fatalf("resolving a resolved incident: %v", err)
	}
	_, err = b.zc.NewResolveIncidentCommand().IncidentKey(123456789).Send(ctx)
	wantStatus(t, "resolving an unknown incident", err, codes.NotFound)

	// The job is back: a BPMN error reaches the boundary event.
	jobs = activate(t, b.zc, "c8-charge")
	if len(jobs) != 1 {
		t.Fatalf("jobs after the resolution = %v", jobs)
	}
	if _, err := b.zc.NewThrowErrorCommand().JobKey(jobs[0].Key).ErrorCode("DECLINED").ErrorMessage("no funds").Send(ctx); err != nil {
		t.Fatalf("ThrowError: %v", err)
	}
	b.awaitStatus(t, k, string(runtime.StatusCompleted))

	// Forged and stale keys are NOT_FOUND.
	_, err = b.zc.NewCompleteJobCommand().JobKey(jobs[0].Key).Send(ctx)
	wantStatus(t, "completing a job that is gone", err, codes.NotFound)
	_, err = b.zc.NewCompleteJobCommand().JobKey(4242424242).Send(ctx)
	wantStatus(t, "completing a forged job key", err, codes.NotFound)
	_, err = b.zc.NewFailJobCommand().JobKey(4242424242).Retries(1).Send(ctx)
	wantStatus(t, "failing a forged job key", err, codes.NotFound)
	_, err = b.zc.NewThrowErrorCommand().JobKey(k).ErrorCode("X").Send(ctx)
	wantStatus(t, "throwing at an instance key", err, codes.NotFound)

	// Cancellation.
	k2 := start(t, b.zc, "c8-pay", nil)
	if _, err := b.zc.NewCancelInstanceCommand().ProcessInstanceKey(k2).Send(ctx); err != nil {
		t.Fatalf("CancelProcessInstance: %v", err)
	}
	if st := b.instance(t, k2).Status; st != runtime.StatusTerminated {
		t.Errorf("cancelled instance is %s", st)
	}
	_, err = b.zc.NewCancelInstanceCommand().ProcessInstanceKey(k2).Send(ctx)
	wantStatus(t, "cancelling an ended instance", err, codes.NotFound)
	_, err = b.zc.NewCancelInstanceCommand().ProcessInstanceKey(77777777).Send(ctx)
	wantStatus(t, "cancelling an unknown instance", err, codes.NotFound)

	_, err = b.zc.NewActivateJobsCommand().JobType("").MaxJobsToActivate(1).Send(ctx)
	wantStatus(t, "activating without a type", err, codes.InvalidArgument)
}

func TestPublishMessageSetVariablesSignal(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	ctx := context.Background()
	deploy(t, b.zc, "c8-msg.bpmn")
	k := start(t, b.zc, "c8-msg", map[string]any{"orderId": "o-1"})

	set, err := b.zc.NewSetVariablesCommand().ElementInstanceKey(k).VariablesFromMap(map[string]any{"note": "paid by card"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := set.Send(ctx); err != nil {
		t.Fatalf("SetVariables: %v", err)
	}
	_, err = b.zc.NewSetVariablesCommand().ElementInstanceKey(555555555).VariablesFromString(`{"a":1}`)
	if err == nil {
		_, err = mustSet(b.zc, 555555555).Send(ctx)
		wantStatus(t, "SetVariables on an unknown key", err, codes.NotFound)
	}

	pub, err := b.zc.NewPublishMessageCommand().MessageName("c8-paid").CorrelationKey("o-1").TimeToLive(time.Minute).VariablesFromMap(map[string]any{"paid": 10})
	if err != nil {
		t.Fatal(err)
	}
	res, err := pub.Send(ctx)
	if err != nil || res.Key == 0 {
		t.Fatalf("PublishMessage: %v, %v", res, err)
	}
	v := b.awaitStatus(t, k, string(runtime.StatusCompleted))
	if v.Variables["note"] != "paid by card" || v.Variables["paid"] == nil {
		t.Errorf("variables = %v", v.Variables)
	}
	// Nothing waiting is no error.
	if _, err := b.zc.NewPublishMessageCommand().MessageName("c8-paid").CorrelationKey("nobody").Send(ctx); err != nil {
		t.Errorf("PublishMessage to nobody: %v", err)
	}
	if _, err := b.zc.NewBroadcastSignalCommand().SignalName("s").Send(ctx); err != nil {
		t.Errorf("BroadcastSignal: %v", err)
	}
	_, err = b.zc.NewPublishMessageCommand().MessageName("").CorrelationKey("x").Send(ctx)
	wantStatus(t, "PublishMessage without a name", err, codes.InvalidArgument)
}

// mustSet is a SetVariables command on key with a small document.
func mustSet(zc zbc.Client, key int64) interface {
	Send(context.Context) (*pb.SetVariablesResponse, error)
} {
	cmd, _ := zc.NewSetVariablesCommand().ElementInstanceKey(key).VariablesFromString(`{"a":1}`)
	return cmd
}

func TestMessageBeforeItsSubscriptionAndDuplicateIDs(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	ctx := context.Background()
	deploy(t, b.zc, "c8-msg.bpmn")
	pub, err := b.zc.NewPublishMessageCommand().MessageName("c8-paid").CorrelationKey("early").MessageId("pay-1").TimeToLive(time.Minute).
		VariablesFromMap(map[string]any{"paid": 5})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pub.Send(ctx); err != nil {
		t.Fatalf("PublishMessage with a timeToLive: %v", err)
	}
	_, err = b.zc.NewPublishMessageCommand().MessageName("c8-paid").CorrelationKey("early").MessageId("pay-1").TimeToLive(time.Minute).Send(ctx)
	wantStatus(t, "publishing the same messageId again", err, codes.AlreadyExists)

	// The instance's subscription opens after the publication: the kept
	// message reaches it.
	k := start(t, b.zc, "c8-msg", map[string]any{"orderId": "early"})
	v := b.awaitStatus(t, k, string(runtime.StatusCompleted))
	if v.Variables["paid"] == nil {
		t.Errorf("variables = %v", v.Variables)
	}
}

func TestUpdateJobRetries(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	ctx := context.Background()
	deploy(t, b.zc, "c8-pay.bpmn")
	k := start(t, b.zc, "c8-pay", nil)
	jobs := activate(t, b.zc, "c8-charge")
	if len(jobs) != 1 {
		t.Fatalf("jobs = %v", jobs)
	}
	if _, err := b.zc.NewFailJobCommand().JobKey(jobs[0].Key).Retries(0).ErrorMessage("down").Send(ctx); err != nil {
		t.Fatal(err)
	}
	if got := activate(t, b.zc, "c8-charge"); len(got) != 0 {
		t.Fatalf("a job without retries was activated: %v", got)
	}
	_, err := b.zc.NewUpdateJobRetriesCommand().JobKey(jobs[0].Key).Retries(0).Send(ctx)
	wantStatus(t, "UpdateJobRetries to 0", err, codes.InvalidArgument)
	_, err = b.zc.NewUpdateJobRetriesCommand().JobKey(99999999).Retries(3).Send(ctx)
	wantStatus(t, "UpdateJobRetries of a forged key", err, codes.NotFound)
	if _, err := b.zc.NewUpdateJobRetriesCommand().JobKey(jobs[0].Key).Retries(3).Send(ctx); err != nil {
		t.Fatalf("UpdateJobRetries: %v", err)
	}
	// The incident is resolved and the job activatable again with 3 retries.
	again := activate(t, b.zc, "c8-charge")
	if len(again) != 1 || again[0].Key != jobs[0].Key || again[0].Retries != 3 {
		t.Fatalf("jobs after UpdateJobRetries = %v", again)
	}
	rows, _, err := b.rt.IncidentsPage(ctx, b.instance(t, k).ID, true, "", 10)
	if err != nil || len(rows) != 0 {
		t.Errorf("open incidents = %v, %v", rows, err)
	}
	if _, err := b.zc.NewCompleteJobCommand().JobKey(again[0].Key).Send(ctx); err != nil {
		t.Fatal(err)
	}
	b.awaitStatus(t, k, string(runtime.StatusCompleted))
}
