package cockpit_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/gobpm/gobpm/internal/runtime"
)

// elementRow returns the active and incident counts of an element in a
// page's element table.
func elementRow(p *page, node string) (active, incidents string) {
	row := p.doc.Find(`[data-testid="element"][data-node="` + node + `"]`)
	return strings.TrimSpace(row.Find(`[data-testid="element-active"]`).Text()), strings.TrimSpace(row.Find(`[data-testid="element-incidents"]`).Text())
}

// The process page counts the tokens at each element over every instance
// of the version, not over a sample of the most recent ones: tokens
// waiting at a user task, tokens waiting at a parallel join (which have no
// wait of their own) and the open incidents, exactly, past 100 instances.
func TestProcessCountsAreExact(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.deploy("joins.bpmn", "picky.bpmn")
	const n = 130
	for range n {
		b.start("joins", "", nil)
	}
	for range 3 {
		b.start("picky", "", nil) // no amount: the gateway stops in an incident
	}

	p := b.mustGet("/processes/joins")
	if active, _ := elementRow(p, "approve"); active != "130" {
		t.Errorf("approve holds %q tokens, want 130 (every instance)", active)
	}
	if active, _ := elementRow(p, "join"); active != "130" {
		t.Errorf("the join holds %q tokens, want 130", active)
	}
	if got := p.text("running-count"); strings.Contains(got, "most recent") || !strings.HasPrefix(got, "130 running or failed instances") {
		t.Errorf("running count %q: no sample any more", got)
	}
	var state struct {
		Partial  bool `json:"partial"`
		Elements []struct {
			ID     string `json:"id"`
			Active int    `json:"active"`
		} `json:"elements"`
	}
	if err := json.Unmarshal([]byte(p.doc.Find("#diagram-state").AttrOr("data-state", "")), &state); err != nil {
		t.Fatalf("diagram state: %v\n%s", err, p.body)
	}
	if state.Partial || len(state.Elements) != 2 || state.Elements[0].Active != n || state.Elements[1].Active != n {
		t.Errorf("diagram state %+v", state)
	}

	picky := b.mustGet("/processes/picky")
	if active, incidents := elementRow(picky, "route"); active != "3" || incidents != "3" {
		t.Errorf("route: %s tokens, %s incidents; want 3 and 3", active, incidents)
	}

	// Completing a task moves its token on at the cost of that step: the
	// counts follow.
	tasks, _, err := b.rt.Tasks(context.Background(), runtime.TaskFilter{Limit: 1})
	if err != nil || len(tasks) != 1 {
		t.Fatalf("tasks: %v %v", tasks, err)
	}
	if err := b.rt.CompleteTask(context.Background(), tasks[0].ID, runtime.Actor{User: "ann"}, nil); err != nil {
		t.Fatal(err)
	}
	p = b.mustGet("/processes/joins")
	if a, _ := elementRow(p, "approve"); a != "129" {
		t.Errorf("approve after one completion: %q, want 129", a)
	}
	if a, _ := elementRow(p, "join"); a != "129" {
		t.Errorf("join after one instance completed: %q, want 129", a)
	}
}

// The incidents page groups the open incidents by error message with
// their counts, each group leading to its incidents alone.
func TestIncidentGroups(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.deploy("picky.bpmn", "stuckgate.bpmn", "joins.bpmn")
	for range 3 {
		b.start("picky", "", nil)
	}
	b.start("stuckgate", "", nil)

	p := b.mustGet("/incidents")
	groups := p.testid("incident-group")
	if groups.Length() != 2 {
		t.Fatalf("%d groups, want 2:\n%s", groups.Length(), p.body)
	}
	first := groups.First()
	if got := strings.TrimSpace(first.Find(`[data-testid="incident-group-count"]`).Text()); got != "3" {
		t.Errorf("the largest group first: count %q", got)
	}
	message := strings.TrimSpace(first.Find(`[data-testid="incident-group-link"]`).Text())
	link := first.Find(`[data-testid="incident-group-link"]`).AttrOr("href", "")
	one := b.mustGet(link)
	if n := one.testid("incident").Length(); n != 3 {
		t.Errorf("%s lists %d incidents, want 3", link, n)
	}
	one.testid("incident").Each(func(_ int, s *goquery.Selection) {
		if !strings.Contains(s.Text(), message) {
			t.Errorf("an incident of another message in the group %q: %q", message, s.Text())
		}
	})
	if !strings.Contains(one.text("incident-message-filter"), message) {
		t.Errorf("the page says which message it lists: %q", one.text("incident-message-filter"))
	}
	// The groups keep the other filters.
	if n := b.mustGet("/incidents?process=joins").testid("incident-group").Length(); n != 0 {
		t.Errorf("groups of a process without incidents: %d", n)
	}
}

// The status words are true: an instance stopped on an open incident
// (stored and answered as "failed", not ended, incident true) reads
// "incident"; "failed" is left to the ended failure — a called instance
// whose uncaught error went to its caller — and the caller, stopped in an
// incident at its call activity, reads "incident".
func TestStatusWords(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.deploy("picky.bpmn", "errchild.bpmn")
	stuck := b.start("picky", "", nil)
	caller := b.start("errcaller", "", nil)
	if stuck.Status != runtime.StatusFailed || caller.Status != runtime.StatusFailed {
		t.Fatalf("statuses %s, %s: the runtime answers failed for an instance with an open incident", stuck.Status, caller.Status)
	}
	kids := b.instance(caller.ID).Children
	if len(kids) != 1 || kids[0].Status != runtime.StatusFailed {
		t.Fatalf("children %+v", kids)
	}
	child := kids[0].InstanceID

	list := b.mustGet("/instances")
	word := func(id runtime.InstanceID) string {
		s := list.doc.Find(`[data-testid="instance-row"][data-id="` + string(id) + `"] [data-testid="status"]`)
		return s.Text() + "/" + s.AttrOr("data-status", "")
	}
	for _, tt := range []struct {
		id   runtime.InstanceID
		want string
	}{{stuck.ID, "incident/failed"}, {caller.ID, "incident/failed"}, {child, "failed/failed"}} {
		if got := word(tt.id); got != tt.want {
			t.Errorf("instance %s reads %q, want %q", tt.id, got, tt.want)
		}
	}
	if got := b.mustGet("/instances/" + string(stuck.ID)).testid("status").First().Text(); got != "incident" {
		t.Errorf("the instance page reads %q, want incident", got)
	}
}
