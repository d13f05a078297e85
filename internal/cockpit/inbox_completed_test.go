package cockpit_test

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/gobpm/gobpm/internal/auth"
	"github.com/gobpm/gobpm/internal/runtime"
)

// completeAs claims (when it has candidates) and completes the open task
// at node of instance id through the cockpit's forms.
func completeAs(t *testing.T, b *bundle, id runtime.InstanceID, node string) {
	t.Helper()
	ts, _, err := b.rt.Tasks(context.Background(), runtime.TaskFilter{InstanceID: id})
	if err != nil {
		t.Fatal(err)
	}
	for _, task := range ts {
		if task.NodeID != node {
			continue
		}
		if len(task.CandidateGroups)+len(task.CandidateUsers) > 0 {
			if p := b.post("/tasks/"+url.PathEscape(task.ID)+"/claim", url.Values{"return": {"/tasks"}}); !strings.HasPrefix(p.text("flash"), "You claimed") {
				t.Fatalf("claim %s: %q", node, p.text("flash"))
			}
		}
		if p := b.post("/tasks/"+url.PathEscape(task.ID)+"/complete", url.Values{"return": {"/tasks"}}); !strings.HasPrefix(p.text("flash"), "Task completed") {
			t.Fatalf("complete %s: %q", node, p.text("flash"))
		}
		return
	}
	t.Fatalf("instance %s has no open task at %s", id, node)
}

// TestInboxCompletedView: the "Completed" tab lists the completed tasks,
// the latest first, with who completed them, the business key and a link
// to the instance, paged with an exact count; the process filter applies.
func TestInboxCompletedView(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.deploy("review.bpmn", "parcel.bpmn", "pack.form")
	var ids []runtime.InstanceID
	for i := range 52 {
		ids = append(ids, b.start("review", fmt.Sprintf("c-%02d", i), nil).ID)
	}
	parcel := b.start("parcel", "p-1", nil)
	b.actAs("ann", "clerks")
	for _, id := range ids {
		completeAs(t, b, id, "check")
	}
	b.actAs("bob")
	completeAs(t, b, ids[0], "archive")

	p := b.mustGet("/tasks")
	if href := p.testid("tab-completed").AttrOr("href", ""); href != "/tasks?show=completed" {
		t.Fatalf("the Completed tab links %q", href)
	}
	p = b.mustGet("/tasks?show=completed")
	if p.text("completed-total") != "(53)" || p.testid("completed-task").Length() != 50 || p.text("inbox-shown") != "1–50 of 53" {
		t.Fatalf("completed: %q, %d shown, %q", p.text("completed-total"), p.testid("completed-task").Length(), p.text("inbox-shown"))
	}
	first := p.testid("completed-task").First()
	if first.Find(`[data-testid="completed-name"]`).Text() != "Archive the claim" || first.Find(`[data-testid="completed-by"]`).Text() != "bob" ||
		first.Find(`[data-testid="completed-business-key"]`).Text() != "c-00" {
		t.Errorf("the latest completion first: %q", first.Text())
	}
	if href := first.Find(`[data-testid="completed-instance"]`).AttrOr("href", ""); href != "/instances/"+string(ids[0]) {
		t.Errorf("the instance link is %q", href)
	}
	second := p.testid("completed-task").Eq(1)
	if second.Find(`[data-testid="completed-by"]`).Text() != "ann" || second.Find(`[data-testid="completed-business-key"]`).Text() != "c-51" {
		t.Errorf("second: %q", second.Text())
	}
	next := p.testid("inbox-next").AttrOr("href", "")
	p2 := b.mustGet(next)
	if p2.testid("completed-task").Length() != 3 || p2.text("inbox-shown") != "51–53 of 53" || p2.testid("inbox-next").Length() != 0 {
		t.Errorf("page 2: %d, %q", p2.testid("completed-task").Length(), p2.text("inbox-shown"))
	}
	if p := b.mustGet("/tasks?show=completed&process=parcel"); p.text("completed-total") != "(0)" || p.testid("completed-empty").Length() != 1 {
		t.Errorf("parcel has no completed task yet: %q", p.text("completed-total"))
	}
	b.actAs("cid", "clerks")
	completeAs(t, b, parcel.ID, "pack")
	p = b.mustGet("/tasks?show=completed&process=parcel")
	if p.text("completed-total") != "(1)" || p.testid("completed-by").Text() != "cid" || p.testid("completed-name").Text() != "Pack the parcel" {
		t.Errorf("parcel's completed: %q %q", p.text("completed-total"), p.testid("completed").Text())
	}
	if p := b.get("/tasks?show=done"); p.status != 400 {
		t.Errorf("an unknown view: %d", p.status)
	}
}

// TestInboxCompletedOwnWithoutReadRights: a person who may not read the
// processes sees only the tasks they completed themselves.
func TestInboxCompletedOwnWithoutReadRights(t *testing.T) {
	t.Parallel()
	b := setupAuth(t, map[string]auth.Role{"ann": "", "ben": "", "vic": auth.RoleViewer}, map[string][]string{"ann": {"clerks"}, "ben": {"clerks"}})
	b.deploy("review.bpmn")
	one := b.start("review", "r-1", nil)
	two := b.start("review", "r-2", nil)
	ann, ben := b.as("ann"), b.as("ben")
	completeAs(t, ann.bundle, one.ID, "check")
	completeAs(t, ben.bundle, two.ID, "check")

	p := ann.mustGet("/tasks?show=completed")
	if p.text("completed-total") != "(1)" || p.testid("completed-by").Text() != "ann" || !strings.Contains(p.text("completed-heading"), "by you") {
		t.Errorf("ann's completed: %q %q %q", p.text("completed-total"), p.testid("completed").Text(), p.text("completed-heading"))
	}
	vic := b.as("vic")
	if p := vic.mustGet("/tasks?show=completed"); p.text("completed-total") != "(2)" {
		t.Errorf("a reader of every process sees everyone's: %q", p.text("completed-total"))
	}
}
