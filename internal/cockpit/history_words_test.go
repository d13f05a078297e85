package cockpit_test

import (
	"context"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/gobpm/gobpm/internal/auth"
	"github.com/gobpm/gobpm/internal/runtime"
)

// sentences are the history's sentences by fact kind, each in its words
// with the detail line after it (the JSON of a fact shows only in its
// folded details).
func sentences(p *page) map[string][]string {
	out := map[string][]string{}
	for _, n := range p.testid("fact").Nodes {
		f := p.doc.FindNodes(n)
		s := words(f.Find(`[data-testid="fact-sentence"]`))
		if d := words(f.Find(".detail")); d != "" {
			s += " | " + d
		}
		kind := f.AttrOr("data-kind", "")
		out[kind] = append(out[kind], s)
	}
	return out
}

// noJSON fails when a sentence shows JSON.
func noJSON(t *testing.T, kind string, got []string) {
	t.Helper()
	for _, s := range got {
		if strings.ContainsAny(s, "{}[\"") {
			t.Errorf("%s is told as JSON: %q", kind, s)
		}
	}
}

// The facts of an ad-hoc region are told in words, naming the activities.
func TestAdHocFactsToldInWords(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.deployExample("investigation.bpmn")
	inst := b.start("investigation", "case-1", nil)
	path := "/instances/" + string(inst.ID)
	scope := b.mustGet(path).testid("region").AttrOr("data-scope", "")
	b.actAs("ann")
	if p := b.post(activateURL(inst.ID, scope), url.Values{"activity": {"callCustomer"}}); p.status != 200 {
		t.Fatalf("activate: %d", p.status)
	}
	got := sentences(b.mustGet(path))
	want := map[string]string{
		"adhoc-region-opened":      "Opened the ad-hoc region Investigate — manual selection, parallel, standard router",
		"adhoc-candidates-offered": "Offered to activate at Investigate — Call the customer, Check the transactions, Ask the partner bank",
		"adhoc-activity-activated": "Activated Call the customer",
	}
	for kind, w := range want {
		if len(got[kind]) == 0 || got[kind][0] != w {
			t.Errorf("%s: %q, want %q", kind, got[kind], w)
		}
		noJSON(t, kind, got[kind])
	}
}

// A router job's answer is told with the activities it chose and the
// worker that answered.
func TestRouterAnswerToldInWords(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	b.deployExample("triage.bpmn")
	inst := b.start("incident-triage", "inc-1", map[string]any{"severity": "critical"})
	jobs, err := b.rt.ActivateJobs(ctx, runtime.ActivateRequest{Type: "triage-router", Worker: "rules-7", MaxJobs: 1, LockDuration: time.Minute})
	if err != nil || len(jobs) != 1 {
		t.Fatalf("router jobs %v %v", jobs, err)
	}
	answer := runtime.RouterAnswer{Activate: []runtime.Activation{{ActivityID: "collectLogs"}}}
	if err := b.rt.CompleteRouterJob(ctx, jobs[0].Key, runtime.JobHolder{Token: jobs[0].LockToken}, answer); err != nil {
		t.Fatal(err)
	}
	got := sentences(b.mustGet("/instances/" + string(inst.ID)))
	for _, kind := range []string{"adhoc-region-opened", "adhoc-router-answered", "adhoc-activity-activated"} {
		if len(got[kind]) == 0 {
			t.Errorf("no %s fact", kind)
		}
		noJSON(t, kind, got[kind])
	}
	if w := "The router job answered at"; len(got["adhoc-router-answered"]) == 0 || !strings.HasPrefix(got["adhoc-router-answered"][0], w) ||
		!strings.HasSuffix(got["adhoc-router-answered"][0], "(worker rules-7)") {
		t.Errorf("router answer: %q", got["adhoc-router-answered"])
	}
}

// A migration is told with its versions, the renamed elements by name,
// and the logged-in user who started it.
func TestMigrationFactNamesWhoMigrated(t *testing.T) {
	t.Parallel()
	admin := setupAuth(t, map[string]auth.Role{"mia": auth.RoleAdmin}, nil)
	admin.deploy("migrate_v1.bpmn")
	a := admin.start("migr", "", map[string]any{"orderId": "o-1"})
	admin.deploy("migrate_v2.bpmn")
	b := admin.as("mia")
	p := b.post("/processes/migr/migrate", url.Values{"from": {"1"}, "to": {"2"}, "map:msg": {"msg2"}})
	id := p.url[strings.LastIndex(p.url, "/")+1:]
	if err := b.rt.AwaitMigration(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	got := sentences(b.mustGet("/instances/" + string(a.ID)))["instance-migrated"]
	want := "mia migrated the instance from version 1 to version 2 — renamed msg → "
	if len(got) != 1 || !strings.HasPrefix(got[0], want) {
		t.Errorf("migration: %q, want %q…", got, want)
	}
	noJSON(t, "instance-migrated", got)
}
