package api_test

import (
	"net/http"
	"net/url"
	"sort"
	"strings"
	"testing"
	"time"
)

// reviewModel waits at the user task review.
const reviewModel = `<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" targetNamespace="urn:test">
  <process id="review" isExecutable="true">
    <startEvent id="start"/>
    <sequenceFlow id="f1" sourceRef="start" targetRef="check"/>
    <userTask id="check"/>
    <sequenceFlow id="f2" sourceRef="check" targetRef="end"/>
    <endEvent id="end"/>
  </process>
</definitions>`

// GET /api/v1/instances filters by the element an instance waits or
// failed at, by its open incident's message (exact or prefix) and by
// creation and end time, over a real runtime and SQLite; a malformed time
// or both message filters are a 400 naming the parameter.
func TestIntegrationListInstanceFilters(t *testing.T) {
	t.Parallel()
	b, _, clock := setupRealClock(t)
	t0 := clock.Now()
	at := func(d time.Duration) string { return url.QueryEscape(t0.Add(d).Format(time.RFC3339)) }
	b.postXML("/api/v1/deployments", reviewModel).wantStatus(t, http.StatusCreated)
	b.postXML("/api/v1/deployments", noMatchModel).wantStatus(t, http.StatusCreated)
	r1 := b.postJSON("/api/v1/processes/review/instances", `{}`).wantStatus(t, http.StatusCreated).object(t)["id"].(string)
	clock.Advance(time.Hour)
	r2 := b.postJSON("/api/v1/processes/review/instances", `{}`).wantStatus(t, http.StatusCreated).object(t)["id"].(string)
	clock.Advance(time.Hour)
	failed := b.postJSON("/api/v1/processes/nomatch/instances", `{}`).wantStatus(t, http.StatusCreated).object(t)
	fid := failed["id"].(string)
	incidents := failed["incidents"].([]any)
	if len(incidents) != 1 {
		t.Fatalf("nomatch instance = %v", failed)
	}
	message := incidents[0].(map[string]any)["message"].(string)
	if len(message) < 5 {
		t.Fatalf("incident message %q too short for a prefix test", message)
	}

	list := func(query string) []string {
		t.Helper()
		var out []string
		for _, it := range b.get("/api/v1/instances?"+query).wantStatus(t, http.StatusOK).items(t) {
			out = append(out, it.(map[string]any)["id"].(string))
		}
		sort.Strings(out)
		return out
	}
	sorted := func(ids ...string) string { sort.Strings(ids); return strings.Join(ids, ",") }
	for _, tt := range []struct{ query, want string }{
		{"element=check", sorted(r1, r2)},
		{"processKey=review&version=1&element=check", sorted(r1, r2)},
		{"element=gw", sorted(fid)},
		{"element=end", ""},
		{"incidentMessage=" + url.QueryEscape(message), sorted(fid)},
		{"incidentMessage=" + url.QueryEscape(message[:4]), ""},
		{"incidentMessagePrefix=" + url.QueryEscape(message[:4]), sorted(fid)},
		{"createdAfter=" + at(0) + "&createdBefore=" + at(3*time.Hour), sorted(r1, r2, fid)},
		{"createdAfter=" + at(time.Hour), sorted(r2, fid)},
		{"createdAfter=" + at(time.Hour) + "&createdBefore=" + at(2*time.Hour), sorted(r2)},
		{"processKey=review&createdBefore=" + at(time.Hour), sorted(r1)},
		{"createdAfter=" + at(3*time.Hour), ""},
		{"endedAfter=" + at(0), ""},
	} {
		if got := strings.Join(list(tt.query), ","); got != tt.want {
			t.Errorf("%s: got %s, want %s", tt.query, got, tt.want)
		}
	}

	clock.Advance(time.Hour)
	b.send(http.MethodPost, "/api/v1/instances/"+r1+"/cancel", "", "").wantStatus(t, http.StatusOK)
	if got := strings.Join(list("endedAfter="+at(3*time.Hour)+"&endedBefore="+at(4*time.Hour)), ","); got != r1 {
		t.Errorf("ended in the fourth hour: got %s, want %s", got, r1)
	}
	if got := strings.Join(list("endedBefore="+at(3*time.Hour)), ","); got != "" {
		t.Errorf("ended before the cancel: got %s, want none", got)
	}
	if got := strings.Join(list("element=check"), ","); got != r2 {
		t.Errorf("waiting at check after cancelling %s: got %s, want %s", r1, got, r2)
	}

	for query, field := range map[string]string{
		"createdAfter=yesterday":                    "createdAfter",
		"endedBefore=2025-13-01T00:00:00Z":          "endedBefore",
		"incidentMessage=a&incidentMessagePrefix=b": "incidentMessagePrefix",
	} {
		if p := b.get("/api/v1/instances?"+query).problem(t, http.StatusBadRequest, "invalid-request"); p.Field != field {
			t.Errorf("%s: field = %q, want %q", query, p.Field, field)
		}
	}
}

// GET /api/v1/instances sorts by a column both ways (`+` ascending),
// pages a sorted list by cursor, and refuses an unknown column.
func TestIntegrationListInstanceSort(t *testing.T) {
	t.Parallel()
	b, _, clock := setupRealClock(t)
	b.postXML("/api/v1/deployments", reviewModel).wantStatus(t, http.StatusCreated)
	b.postXML("/api/v1/deployments", noMatchModel).wantStatus(t, http.StatusCreated)
	var started []string // review, nomatch, review
	for _, key := range []string{"review", "nomatch", "review"} {
		started = append(started, b.postJSON("/api/v1/processes/"+key+"/instances", `{}`).wantStatus(t, http.StatusCreated).object(t)["id"].(string))
		clock.Advance(time.Minute)
	}
	ids := func(items []any) string {
		var out []string
		for _, it := range items {
			out = append(out, it.(map[string]any)["id"].(string))
		}
		return strings.Join(out, ",")
	}
	for query, want := range map[string][]string{
		"sort=process":    {started[2], started[0], started[1]},
		"sort=%2Bprocess": {started[1], started[0], started[2]},
		"sort=-status":    {started[2], started[0], started[1]},
		"sort=%2Bcreated": {started[0], started[1], started[2]},
	} {
		if got := ids(b.get("/api/v1/instances?"+query).wantStatus(t, http.StatusOK).items(t)); got != strings.Join(want, ",") {
			t.Errorf("%s: %s, want %s", query, got, strings.Join(want, ","))
		}
	}
	var paged []string
	page := b.get("/api/v1/instances?sort=%2Bprocess&limit=1").wantStatus(t, http.StatusOK).object(t)
	for range 4 {
		paged = append(paged, ids(page["items"].([]any)))
		next, ok := page["nextCursor"].(string)
		if !ok {
			break
		}
		page = b.get("/api/v1/instances?sort=%2Bprocess&limit=1&cursor="+next).wantStatus(t, http.StatusOK).object(t)
	}
	if got := strings.Trim(strings.Join(paged, ","), ","); got != strings.Join([]string{started[1], started[0], started[2]}, ",") {
		t.Errorf("cursor pages of +process: %s", got)
	}
	if p := b.get("/api/v1/instances?sort=color").problem(t, http.StatusBadRequest, "invalid-request"); p.Field != "sort" {
		t.Errorf("unknown sort: field %q", p.Field)
	}
}
