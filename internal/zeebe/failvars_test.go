package zeebe_test

import (
	"context"
	"testing"
	"time"

	"github.com/camunda/zeebe/clients/go/v8/pkg/entities"
	"github.com/camunda/zeebe/clients/go/v8/pkg/pb"
	"github.com/camunda/zeebe/clients/go/v8/pkg/worker"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/gobpm/gobpm/internal/runtime"
)

// TestFailJobVariables runs a Zeebe Go client worker that fails each job's
// first attempt with variables and completes the next one with what it
// saw: FailJob's variables are local variables of the job's task, so the
// retried job carries them and the instance ends without them.
func TestFailJobVariables(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	deploy(t, b.zc, "c8-pay.bpmn")
	keys := []int64{start(t, b.zc, "c8-pay", map[string]any{"n": 1}), start(t, b.zc, "c8-pay", map[string]any{"n": 2})}
	w := b.zc.NewJobWorker().JobType("c8-charge").Handler(func(c worker.JobClient, job entities.Job) {
		ctx := context.Background()
		vars, err := job.GetVariablesAsMap()
		if err != nil {
			t.Error(err)
			return
		}
		if tries, ok := vars["tries"]; ok {
			cmd, err := c.NewCompleteJobCommand().JobKey(job.Key).VariablesFromMap(map[string]any{"sawTries": tries, "sawReason": vars["reason"]})
			if err == nil {
				_, err = cmd.Send(ctx)
			}
			if err != nil {
				t.Errorf("CompleteJob %d: %v", job.Key, err)
			}
			return
		}
		cmd, err := c.NewFailJobCommand().JobKey(job.Key).Retries(job.Retries - 1).ErrorMessage("first try").
			VariablesFromMap(map[string]any{"tries": 1, "reason": map[string]any{"code": "busy"}})
		if err == nil {
			_, err = cmd.Send(ctx)
		}
		if err != nil {
			t.Errorf("FailJob %d with variables: %v", job.Key, err)
		}
	}).MaxJobsActive(2).RequestTimeout(time.Second).PollInterval(50 * time.Millisecond).Open()
	defer func() {
		w.Close()
		w.AwaitClose()
	}()
	for _, k := range keys {
		v := b.awaitStatus(t, k, string(runtime.StatusCompleted))
		if v.Variables["sawTries"] == nil || v.Variables["sawReason"] == nil {
			t.Errorf("instance %d: the retried job did not see the failure's variables: %v", k, v.Variables)
		}
		if _, ok := v.Variables["tries"]; ok {
			t.Errorf("instance %d: the task's local variables reached the instance: %v", k, v.Variables)
		}
	}
}

// TestFailJobVariablesRefused sends FailJob with variables that are no
// JSON object: INVALID_ARGUMENT, and the job stays activated.
func TestFailJobVariablesRefused(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	deploy(t, b.zc, "c8-pay.bpmn")
	start(t, b.zc, "c8-pay", nil)
	jobs := activate(t, b.zc, "c8-charge")
	if len(jobs) != 1 {
		t.Fatalf("jobs = %v", jobs)
	}
	conn, err := grpc.NewClient(b.addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	_, err = pb.NewGatewayClient(conn).FailJob(context.Background(), &pb.FailJobRequest{JobKey: jobs[0].Key, Retries: 1, Variables: "[1]"})
	wantStatus(t, "FailJob with an array of variables", err, codes.InvalidArgument)
	if _, err := b.zc.NewCompleteJobCommand().JobKey(jobs[0].Key).Send(context.Background()); err != nil {
		t.Errorf("completing the job after the refused failure: %v", err)
	}
}
