package cockpit_test

import (
	"context"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/gobpm/gobpm/internal/access"
	"github.com/gobpm/gobpm/internal/auth"
	"github.com/gobpm/gobpm/internal/runtime"
)

// TestCancelAndRetrySelected: the instance list offers a checkbox per
// running or failed instance to a person who may operate; "cancel
// selected" cancels each instance the person may operate and names the
// others with the reason, audited as one act naming every instance;
// "retry" retries the open incidents of each selected instance.
func TestCancelAndRetrySelected(t *testing.T) {
	t.Parallel()
	b := setupAuth(t, map[string]auth.Role{"olga": ""}, nil)
	ctx := context.Background()
	for _, p := range []auth.Permission{auth.PermRead, auth.PermOperate} {
		g, err := auth.NewGrant(p, auth.KindProcess, "picky")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := b.acc.Grant(ctx, "", access.GrantRecord{Subject: access.Subject{Kind: access.SubjectUser, ID: "olga"}, Grant: &g}); err != nil {
			t.Fatal(err)
		}
	}
	g, err := auth.NewGrant(auth.PermRead, auth.KindProcess, "review")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.acc.Grant(ctx, "", access.GrantRecord{Subject: access.Subject{Kind: access.SubjectUser, ID: "olga"}, Grant: &g}); err != nil {
		t.Fatal(err)
	}
	b.deploy("picky.bpmn", "review.bpmn")
	p1 := b.start("picky", "p-1", nil)
	p2 := b.start("picky", "p-2", nil)
	rev := b.start("review", "r-1", nil)
	olga := b.as("olga")

	list := olga.mustGet("/instances")
	var picks []string
	list.testid("instance-pick").Each(func(_ int, s *goquery.Selection) { picks = append(picks, s.AttrOr("value", "")) })
	if len(picks) != 3 || list.testid("bulk-instances").Length() != 1 {
		t.Fatalf("picks %v, bulk form %d", picks, list.testid("bulk-instances").Length())
	}
	if r := olga.post("/instances/cancel", url.Values{"return": {"/instances"}}); !strings.Contains(r.text("flash"), "Select the instances") {
		t.Errorf("nothing selected: %q", r.text("flash"))
	}

	// Retry p1's incident after fixing its data: the instance moves on.
	if _, err := b.rt.SetVariables(ctx, p1.ID, "", map[string]any{"amount": jsonNumber("500")}, false); err != nil {
		t.Fatal(err)
	}
	r := olga.post("/instances/retry", url.Values{"instance": {string(p1.ID), string(rev.ID)}, "return": {"/instances?process=picky"}})
	if r.url != "/instances?process=picky" || !strings.HasPrefix(r.text("flash"), "Retried 1 of 2 instances. Not retried: "+string(rev.ID)+":") {
		t.Errorf("retry selected: %s %q", r.url, r.text("flash"))
	}
	for _, in := range b.instance(p1.ID).Incidents {
		if in.ResolvedAt.IsZero() {
			t.Errorf("p1 still has an open incident %+v", in)
		}
	}

	r = olga.post("/instances/cancel", url.Values{"instance": {string(p1.ID), string(p2.ID), string(rev.ID)}, "return": {"/instances"}})
	if flash := r.text("flash"); !strings.HasPrefix(flash, "Cancelled 2 of 3 instances. Not cancelled: "+string(rev.ID)+":") || !strings.Contains(flash, "review") {
		t.Errorf("cancel selected: %q", flash)
	}
	for id, want := range map[runtime.InstanceID]string{p1.ID: runtime.StatusTerminated, p2.ID: runtime.StatusTerminated, rev.ID: runtime.StatusRunning} {
		if got := b.instance(id).Status; got != want {
			t.Errorf("%s is %s, want %s", id, got, want)
		}
	}
	entry := b.lastAudit("cockpit: cancel instances")
	if entry.Actor != "olga" || !strings.Contains(entry.Resource, string(p1.ID)) || !strings.Contains(entry.Resource, string(rev.ID)) {
		t.Errorf("audit entry %+v", entry)
	}
	if got := olga.mustGet("/instances").testid("instance-pick").Length(); got != 1 {
		t.Errorf("%d instances still selectable, want the running review", got)
	}
}
