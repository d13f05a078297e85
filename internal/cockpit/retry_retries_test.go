package cockpit_test

import (
	"context"
	"testing"
	"time"

	"github.com/gobpm/gobpm/internal/runtime"
)

// Only a failed job's incident asks how many retries a Retry gives; any
// other incident (a decision, a gateway, an expression failing) is just
// run again, on the instance page and the incidents page.
func TestRetryAsksRetriesOnlyOfJobs(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	_, lone := stuckTree(t, b) // a no-outgoing-flow incident
	b.deploy("migrate_v1.bpmn")
	job := b.start("migr", "", map[string]any{"orderId": "o-1"})
	jobs, err := b.rt.ActivateJobs(ctx, runtime.ActivateRequest{Type: "pay", Worker: "w", MaxJobs: 1, LockDuration: time.Minute})
	if err != nil || len(jobs) != 1 {
		t.Fatalf("jobs %v %v", jobs, err)
	}
	none := 0
	if err := b.rt.FailJob(ctx, jobs[0].Key, runtime.JobHolder{Token: jobs[0].LockToken}, runtime.FailRequest{Retries: &none, ErrorMessage: "card declined"}); err != nil {
		t.Fatal(err)
	}

	retries := func(p *page) int {
		return p.testid("retry-form").Find(`input[name="retries"]`).Length()
	}
	if p := b.mustGet("/instances/" + string(lone.ID)); p.testid("retry-form").Length() != 1 || retries(p) != 0 {
		t.Errorf("the gateway's incident: %d retry forms, %d retries fields", p.testid("retry-form").Length(), retries(p))
	}
	if p := b.mustGet("/instances/" + string(job.ID)); p.testid("retry-form").Length() != 1 || retries(p) != 1 {
		t.Errorf("the job's incident: %d retry forms, %d retries fields", p.testid("retry-form").Length(), retries(p))
	}
	p := b.mustGet("/incidents")
	gate := p.doc.Find(`[data-testid="incident"][data-instance="` + string(lone.ID) + `"] input[name="retries"]`).Length()
	paid := p.doc.Find(`[data-testid="incident"][data-instance="` + string(job.ID) + `"] input[name="retries"]`).Length()
	if gate != 0 || paid != 1 {
		t.Errorf("/incidents: %d retries fields on the gateway's incident, %d on the job's", gate, paid)
	}
}
