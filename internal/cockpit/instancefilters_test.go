package cockpit_test

import (
	"net/http"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
)

// listedIDs returns the ids of the instance list's rows, sorted.
func listedIDs(p *page) string {
	var out []string
	p.testid("instance-row").Each(func(_ int, s *goquery.Selection) { out = append(out, s.AttrOr("data-id", "")) })
	sort.Strings(out)
	return strings.Join(out, ",")
}

// sortedIDs joins ids sorted, as listedIDs does.
func sortedIDs(ids ...string) string {
	sort.Strings(ids)
	return strings.Join(ids, ",")
}

// TestInstanceListFilters: the instance list filters by the element an
// instance waits or failed at, by its open incident's message (exact, or
// a prefix ending in *) and by the days it started and ended (UTC, both
// ends included), keeps the filters in the form, and refuses a malformed
// date with a sentence.
func TestInstanceListFilters(t *testing.T) {
	t.Parallel()
	b := setup(t)
	root, lone := stuckTree(t, b)
	leaf := string(leafOf(t, b, root))
	b.deploy("review.bpmn")
	rev := b.start("review", "r-1", nil)
	done := b.start("review", "r-2", nil)
	b.post("/instances/"+string(done.ID)+"/cancel", nil)
	message := b.instance(lone.ID).Incidents[0].Message
	if len(message) < 6 {
		t.Fatalf("picky's incident message %q", message)
	}
	day := func(t time.Time) string { return t.UTC().Format("2006-01-02") }
	first, last := day(b.instance(rev.ID).CreatedAt), day(b.instance(done.ID).CreatedAt)
	ended := day(b.instance(done.ID).EndedAt)
	after := day(b.instance(done.ID).EndedAt.AddDate(0, 0, 1))

	for _, tt := range []struct{ query, want string }{
		{"element=route", sortedIDs(leaf, string(lone.ID))},
		{"process=picky&version=1&element=route", sortedIDs(leaf, string(lone.ID))},
		{"element=callPicky", sortedIDs(string(root.ID), string(b.instance(root.ID).Children[0].InstanceID))},
		{"element=check", string(rev.ID)},
		{"element=archive", ""},
		{"incidentMessage=" + strings.ReplaceAll(message, " ", "+"), sortedIDs(leaf, string(lone.ID))},
		{"incidentMessage=" + message[:5], ""},
		{"incidentMessage=" + message[:5] + "*", sortedIDs(leaf, string(lone.ID))},
		{"process=review&startedFrom=" + first + "&startedTo=" + last, sortedIDs(string(rev.ID), string(done.ID))},
		{"process=review&startedFrom=" + after, ""},
		{"endedFrom=" + ended + "&endedTo=" + ended, string(done.ID)},
		{"endedFrom=" + after, ""},
		{"endedTo=" + ended + "&process=picky", ""},
	} {
		if got := listedIDs(b.mustGet("/instances?" + tt.query)); got != tt.want {
			t.Errorf("%s: listed %s, want %s", tt.query, got, tt.want)
		}
	}

	p := b.mustGet("/instances?element=route&incidentMessage=x*&startedFrom=" + first)
	for id, want := range map[string]string{"filter-element": "route", "filter-incident-message": "x*", "filter-started-from": first} {
		if got := p.testid(id).AttrOr("value", ""); got != want {
			t.Errorf("form field %s = %q, want %q", id, got, want)
		}
	}
	if got := b.get("/instances?startedFrom=14.03.2025"); got.status != http.StatusBadRequest || !strings.Contains(got.body, "must be a date") {
		t.Errorf("a malformed date answered %d", got.status)
	}
}

// TestInstanceListSort: a column heading sorts the list by it, largest
// first, and a second click (the heading of the sorted column) reverses
// it; the filters stay; an unknown column is refused.
func TestInstanceListSort(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.deploy("review.bpmn", "picky.bpmn")
	r := b.start("review", "r-1", nil)
	p := b.start("picky", "p-1", nil)
	rows := func(pg *page) string {
		var out []string
		pg.testid("instance-row").Each(func(_ int, s *goquery.Selection) { out = append(out, s.AttrOr("data-id", "")) })
		return strings.Join(out, ",")
	}
	list := b.mustGet("/instances?businessKey=")
	href := list.testid("sort-process").AttrOr("href", "")
	if href != "/instances?sort=process" {
		t.Fatalf("process heading links %q", href)
	}
	desc := b.mustGet(href)
	if got, want := rows(desc), string(r.ID)+","+string(p.ID); got != want {
		t.Errorf("by process, largest first: %s, want %s", got, want)
	}
	if !strings.HasSuffix(desc.text("sort-process"), "↓") {
		t.Errorf("sorted heading %q", desc.text("sort-process"))
	}
	asc := b.mustGet(desc.testid("sort-process").AttrOr("href", ""))
	if got, want := rows(asc), string(p.ID)+","+string(r.ID); got != want {
		t.Errorf("by process, smallest first: %s, want %s", got, want)
	}
	if got := b.mustGet("/instances?status=running&sort=process").testid("sort-status").AttrOr("href", ""); got != "/instances?sort=status&status=running" {
		t.Errorf("status heading keeps the filter: %q", got)
	}
	if bad := b.get("/instances?sort=colour"); bad.status != http.StatusBadRequest {
		t.Errorf("an unknown sort answered %d", bad.status)
	}
}
