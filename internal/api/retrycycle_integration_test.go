package api_test

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"
)

// TestIntegrationRetryCycle deploys a Camunda 7 model whose external task
// carries camunda:failedJobRetryTimeCycle R3/PT5M unchanged: the job has
// three attempts, a worker's failure without a backoff of its own waits
// five minutes, and the third failure raises the incident.
func TestIntegrationRetryCycle(t *testing.T) {
	t.Parallel()
	b, _, clock := setupRealClock(t)
	deployTestdata(t, b, "camunda7_retry_cycle.bpmn")
	id := startProcess(t, b, "chargeWithRetries", `{}`)

	jobs := activate(t, b, "charge", "w1", 60_000)
	key := oneJob(t, jobs)
	if jobs[0]["retries"] != json.Number("3") {
		t.Fatalf("activated with retries %v, want the cycle's 3", jobs[0]["retries"])
	}
	for _, left := range []string{"2", "1"} {
		b.postJSON("/api/v1/jobs/"+key+"/fail", withToken(jobs[0], `"errorMessage":"card service down"`)).noContent(t)
		clock.Advance(5*time.Minute - time.Millisecond)
		if early := activate(t, b, "charge", "w1", 60_000); len(early) != 0 {
			t.Fatalf("activatable before the cycle's 5 minutes passed: %v", early)
		}
		clock.Advance(time.Millisecond)
		jobs = activate(t, b, "charge", "w1", 60_000)
		if oneJob(t, jobs) != key || jobs[0]["retries"] != json.Number(left) {
			t.Fatalf("after the cycle's wait: %v, want job %s with %s retries", jobs, key, left)
		}
	}
	b.postJSON("/api/v1/jobs/"+key+"/fail", withToken(jobs[0], `"errorMessage":"card service down"`)).noContent(t)
	if st := instanceStatus(t, b, id); st != "failed" {
		t.Fatalf("after the third failure: status %s, want failed (an incident)", st)
	}
	incs := b.get("/api/v1/incidents?instanceId="+id).wantStatus(t, http.StatusOK).items(t)
	if len(incs) != 1 || incs[0].(map[string]any)["nodeId"] != "Charge" {
		t.Errorf("incidents = %v, want one on Charge", incs)
	}
}
