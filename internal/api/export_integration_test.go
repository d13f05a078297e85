package api_test

// The history export through the real router over the real runtime and
// store (SQLite, or PostgreSQL with GOBPM_TEST_DB=postgres): a generated
// history of two processes comes out once, in order, by pages and
// cursors, bounded by period and process, filtered by what the caller may
// read, as NDJSON or CloudEvents.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gobpm/gobpm/internal/access"
	"github.com/gobpm/gobpm/internal/auth"
)

// exportModels: two processes, each start → a job → end.
const exportModels = `<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:gobpm="urn:gobpm:1" targetNamespace="urn:test">
  <process id="exa" isExecutable="true">
    <startEvent id="start"/>
    <sequenceFlow id="f1" sourceRef="start" targetRef="work"/>
    <serviceTask id="work" gobpm:type="exa-work"/>
    <sequenceFlow id="f2" sourceRef="work" targetRef="end"/>
    <endEvent id="end"/>
  </process>
  <process id="exb" isExecutable="true">
    <startEvent id="b_start"/>
    <sequenceFlow id="b_f1" sourceRef="b_start" targetRef="b_work"/>
    <serviceTask id="b_work" gobpm:type="exb-work"/>
    <sequenceFlow id="b_f2" sourceRef="b_work" targetRef="b_end"/>
    <endEvent id="b_end"/>
  </process>
</definitions>`

// exportLine is a parsed line of the export: a fact (ndjson), an event
// (cloudevents) or the end.
type exportLine map[string]any

func (l exportLine) str(k string) string { s, _ := l[k].(string); return s }

// exportResult is one parsed export response.
type exportResult struct {
	facts  []exportLine
	cursor string
	more   bool
}

// exportKeys names each fact by instance and seq.
func (e exportResult) keys() []string {
	out := make([]string, len(e.facts))
	for i, f := range e.facts {
		out[i] = f.str("id")
	}
	return out
}

// parseExport checks an export response's shape — NDJSON, every line valid
// against its schema in openapi.yaml, one end line last — and parses it.
func parseExport(t *testing.T, r *response, cloudEvents bool) exportResult {
	t.Helper()
	r.wantStatus(t, http.StatusOK)
	if ct := r.Header.Get("Content-Type"); ct != "application/x-ndjson" {
		t.Fatalf("Content-Type = %q", ct)
	}
	c := MustContract(t)
	lineSchema, endSchema := c.doc.Components.Schemas["HistoryExportFact"].Value, c.doc.Components.Schemas["HistoryExportEnd"].Value
	if cloudEvents {
		lineSchema = c.doc.Components.Schemas["HistoryExportEvent"].Value
	}
	if !bytes.HasSuffix(r.Body, []byte("\n")) {
		t.Fatalf("export does not end with a newline: %q", r.Body)
	}
	lines := strings.Split(strings.TrimSuffix(string(r.Body), "\n"), "\n")
	var out exportResult
	for i, line := range lines {
		var v map[string]any
		if err := json.Unmarshal([]byte(line), &v); err != nil {
			t.Fatalf("line %d is not JSON: %v: %s", i, err, line)
		}
		schema := lineSchema
		if i == len(lines)-1 {
			schema = endSchema
		}
		if err := schema.VisitJSON(v); err != nil {
			t.Errorf("line %d does not match openapi.yaml: %v\n%s", i, err, line)
		}
		if i < len(lines)-1 {
			out.facts = append(out.facts, v)
			continue
		}
		out.cursor, _ = v["cursor"].(string)
		out.more, _ = v["more"].(bool)
	}
	return out
}

// settledExport asks for the export until it has want facts: PostgreSQL
// holds back the facts of a transaction while an older one of the database
// runs (the runtime's own background work, another test's), for a moment.
func settledExport(t *testing.T, ask func() exportResult, want int) exportResult {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		got := ask()
		if len(got.facts) >= want || time.Now().After(deadline) {
			return got
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// exportHistory generates the history: three instances of exa and two of
// exb, a second apart, and completes the jobs of all but the last of each,
// a second apart. It returns each instance's history through the instance
// history route, by instance id, and the instances in start order.
func exportHistory(t *testing.T, b *bundle, advance func()) (map[string][]any, []string) {
	t.Helper()
	b.postXML("/api/v1/deployments", exportModels).wantStatus(t, http.StatusCreated)
	var ids []string
	for _, key := range []string{"exa", "exb", "exa", "exb", "exa"} {
		advance()
		ids = append(ids, b.postJSON("/api/v1/processes/"+key+"/instances", `{}`).wantStatus(t, http.StatusCreated).object(t)["id"].(string))
	}
	for _, typ := range []string{"exa-work", "exb-work"} {
		jobs := b.postJSON("/api/v1/jobs/activate", `{"type":"`+typ+`","worker":"w","maxJobs":10,"lockDurationMs":600000}`).
			wantStatus(t, http.StatusOK).object(t)["jobs"].([]any)
		for _, j := range jobs[:len(jobs)-1] {
			advance()
			b.postJSON("/api/v1/jobs/"+j.(map[string]any)["key"].(string)+"/complete", withToken(j.(map[string]any), ``)).noContent(t)
		}
	}
	hist := map[string][]any{}
	for _, id := range ids {
		hist[id] = b.get("/api/v1/instances/"+id+"/history").wantStatus(t, http.StatusOK).items(t)
	}
	return hist, ids
}

func TestIntegrationHistoryExport(t *testing.T) {
	t.Parallel()
	b, _, clk := setupRealClock(t)
	hist, ids := exportHistory(t, b, func() { clk.Advance(time.Second) })
	export := func(q url.Values, cloudEvents bool) exportResult {
		t.Helper()
		return parseExport(t, b.get("/api/v1/history/export?"+q.Encode()), cloudEvents)
	}

	total := 0
	for _, h := range hist {
		total += len(h)
	}
	all := settledExport(t, func() exportResult { return export(url.Values{}, false) }, total)
	t.Run("every fact once, as the history renders it, in commit order", func(t *testing.T) {
		if all.more || all.cursor == "" {
			t.Errorf("end: cursor %q more %v", all.cursor, all.more)
		}
		if len(all.facts) != total {
			t.Fatalf("exported %d facts, the instances' histories have %d", len(all.facts), total)
		}
		seen := map[string]bool{}
		next := map[string]int{} // instance → index of its next fact
		var lastAt string
		for _, f := range all.facts {
			id := f.str("instanceId")
			if seen[f.str("id")] {
				t.Errorf("fact %s twice", f.str("id"))
			}
			seen[f.str("id")] = true
			want := hist[id][next[id]].(map[string]any)
			next[id]++
			for _, k := range []string{"seq", "at", "kind", "nodeId", "scopePath", "detail"} {
				if fmt.Sprint(f[k]) != fmt.Sprint(want[k]) {
					t.Errorf("fact %s: %s = %v, history says %v", f.str("id"), k, f[k], want[k])
				}
			}
			if f.str("id") != fmt.Sprintf("%s-%v", id, f["seq"]) {
				t.Errorf("fact id %q", f.str("id"))
			}
			wantKey := "exa"
			if id == ids[1] || id == ids[3] {
				wantKey = "exb"
			}
			if f.str("processKey") != wantKey || f["processVersion"] != float64(1) {
				t.Errorf("fact %s: process %v/%v", f.str("id"), f["processKey"], f["processVersion"])
			}
			if f.str("at") < lastAt { // the clock only moved forward here
				t.Errorf("fact %s at %s after %s", f.str("id"), f.str("at"), lastAt)
			}
			lastAt = f.str("at")
		}
		if all.facts[0].str("instanceId") != ids[0] || all.facts[0].str("kind") != hist[ids[0]][0].(map[string]any)["kind"] {
			t.Errorf("first fact %v", all.facts[0])
		}
	})

	t.Run("pages by cursor", func(t *testing.T) {
		for _, limit := range []string{"1", "3", "7"} {
			var got []string
			q := url.Values{"limit": {limit}}
			for i := 0; ; i++ {
				page := export(q, false)
				got = append(got, page.keys()...)
				if !page.more {
					break
				}
				if i > len(all.facts) {
					t.Fatalf("limit %s: no end after %d pages", limit, i)
				}
				q.Set("cursor", page.cursor)
			}
			if !slices.Equal(got, all.keys()) {
				t.Errorf("limit %s: pages = %v, want %v", limit, got, all.keys())
			}
		}
		// A full last page says more only if something follows.
		n := fmt.Sprint(len(all.facts))
		if page := export(url.Values{"limit": {n}}, false); page.more || len(page.facts) != len(all.facts) {
			t.Errorf("limit %s: %d facts, more %v", n, len(page.facts), page.more)
		}
		// The end cursor of an up-to-date export sends nothing, and says so.
		if page := export(url.Values{"cursor": {all.cursor}}, false); len(page.facts) != 0 || page.more || page.cursor != all.cursor {
			t.Errorf("after the end: %v, more %v, cursor %q", page.keys(), page.more, page.cursor)
		}
	})

	t.Run("resume after any fact's cursor", func(t *testing.T) {
		for _, i := range []int{0, 4, len(all.facts) - 2} {
			page := export(url.Values{"cursor": {all.facts[i].str("cursor")}}, false)
			if !slices.Equal(page.keys(), all.keys()[i+1:]) {
				t.Errorf("after fact %d: %v, want %v", i, page.keys(), all.keys()[i+1:])
			}
		}
	})

	t.Run("period", func(t *testing.T) {
		from, to := apiEpoch.Add(2*time.Second), apiEpoch.Add(4*time.Second)
		var want []string
		for _, f := range all.facts {
			at, err := time.Parse(time.RFC3339Nano, f.str("at"))
			if err != nil {
				t.Fatal(err)
			}
			if !at.Before(from) && at.Before(to) {
				want = append(want, f.str("id"))
			}
		}
		if len(want) == 0 || len(want) == len(all.facts) {
			t.Fatalf("the period holds %d of %d facts", len(want), len(all.facts))
		}
		q := url.Values{"from": {from.Format(time.RFC3339Nano)}, "to": {to.Format(time.RFC3339Nano)}, "limit": {"2"}}
		var got []string
		for {
			page := export(q, false)
			got = append(got, page.keys()...)
			if !page.more {
				break
			}
			q.Set("cursor", page.cursor)
		}
		if !slices.Equal(got, want) {
			t.Errorf("[from, to) = %v, want %v", got, want)
		}
	})

	t.Run("process", func(t *testing.T) {
		var want []string
		for _, f := range all.facts {
			if f.str("processKey") == "exb" {
				want = append(want, f.str("id"))
			}
		}
		if got := export(url.Values{"process": {"exb"}}, false); !slices.Equal(got.keys(), want) {
			t.Errorf("process=exb: %v, want %v", got.keys(), want)
		}
		if got := export(url.Values{"process": {"exb,exa"}}, false); !slices.Equal(got.keys(), all.keys()) {
			t.Errorf("process=exb,exa: %v, want all", got.keys())
		}
		if got := export(url.Values{"process": {"nothing"}}, false); len(got.facts) != 0 {
			t.Errorf("process=nothing: %v", got.keys())
		}
	})

	t.Run("cloudevents", func(t *testing.T) {
		ev := export(url.Values{"format": {"cloudevents"}}, true)
		if len(ev.facts) != len(all.facts) || ev.cursor != all.cursor {
			t.Fatalf("%d events, cursor %q; want %d, %q", len(ev.facts), ev.cursor, len(all.facts), all.cursor)
		}
		for i, e := range ev.facts {
			f := all.facts[i]
			data, _ := e["data"].(map[string]any)
			if e.str("specversion") != "1.0" || e.str("id") != f.str("id") || e.str("source") != "/gobpm/processes/"+f.str("processKey") ||
				e.str("type") != "io.gobpm.history."+f.str("kind") || e.str("time") != f.str("at") || e.str("subject") != f.str("instanceId") ||
				e.str("datacontenttype") != "application/json" || e.str("gobpmcursor") != f.str("cursor") ||
				data["seq"] != f["seq"] || fmt.Sprint(data["detail"]) != fmt.Sprint(f["detail"]) || data["nodeId"] != f["nodeId"] {
				t.Errorf("event %d = %v, fact %v", i, e, f)
			}
		}
	})

	t.Run("bad parameters", func(t *testing.T) {
		for _, tt := range []struct{ query, field string }{
			{"from=yesterday", "from"},
			{"to=2025-13-01T00:00:00Z", "to"},
			{"from=2025-03-01T12:00:00Z&to=2025-03-01T12:00:00Z", "to"},
			{"cursor=nonsense", "cursor"},
			{"cursor=h1.!!!", "cursor"},
			{"limit=0", "limit"},
			{"limit=1000001", "limit"},
			{"limit=ten", "limit"},
			{"format=xml", "format"},
			{"process=", "process"},
			{"process=exa,,exb", "process"},
		} {
			p := b.get("/api/v1/history/export?"+tt.query).problem(t, http.StatusBadRequest, "invalid-request")
			if p.Field != tt.field {
				t.Errorf("%s: field %q, want %q", tt.query, p.Field, tt.field)
			}
		}
	})
}

// A client that goes away stops the export: the handler ends without
// writing the rest.
func TestIntegrationHistoryExportClientGone(t *testing.T) {
	t.Parallel()
	b, _, clk := setupRealClock(t)
	exportHistory(t, b, func() { clk.Advance(time.Second) })
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	req := httptestRequest("GET", "/api/v1/history/export", nil).WithContext(ctx)
	rec := httptest.NewRecorder()
	b.handler.ServeHTTP(rec, req)
	if bytes.Contains(rec.Body.Bytes(), []byte(`"more"`)) {
		t.Errorf("a cancelled export answered %d with its end line: %s", rec.Code, rec.Body.Bytes())
	}
}

// A caller who may read one process gets its facts only; one who may
// read none gets 403; an admin gets all.
func TestIntegrationHistoryExportPermissions(t *testing.T) {
	t.Parallel()
	w := setupAuth(t)
	ctx := context.Background()
	admin := func(method, path, body string) *response { return w.call("admin", method, path, body) }
	admin("POST", "/api/v1/deployments", exportModels).wantStatus(t, http.StatusCreated)
	total := 0
	for _, key := range []string{"exa", "exb", "exa"} {
		id := admin("POST", "/api/v1/processes/"+key+"/instances", `{}`).wantStatus(t, http.StatusCreated).object(t)["id"].(string)
		total += len(admin("GET", "/api/v1/instances/"+id+"/history", "").wantStatus(t, http.StatusOK).items(t))
	}
	g, err := auth.NewGrant(auth.PermRead, auth.KindProcess, "exa")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.acc.Grant(ctx, "", access.GrantRecord{Subject: access.Subject{Kind: access.SubjectUser, ID: "u-nobody"}, Grant: &g}); err != nil {
		t.Fatal(err)
	}
	all := settledExport(t, func() exportResult { return parseExport(t, admin("GET", "/api/v1/history/export", ""), false) }, total)
	var exa []string
	keys := map[string]bool{}
	for _, f := range all.facts {
		keys[f.str("processKey")] = true
		if f.str("processKey") == "exa" {
			exa = append(exa, f.str("id"))
		}
	}
	if !keys["exa"] || !keys["exb"] {
		t.Fatalf("the admin's export has processes %v", keys)
	}
	one := parseExport(t, w.call("nobody", "GET", "/api/v1/history/export", ""), false)
	if !slices.Equal(one.keys(), exa) {
		t.Errorf("read on exa only: %v, want %v", one.keys(), exa)
	}
	// Asking for another process by name does not reach it.
	if got := parseExport(t, w.call("nobody", "GET", "/api/v1/history/export?process=exb", ""), false); len(got.facts) != 0 {
		t.Errorf("read on exa only, process=exb: %v", got.keys())
	}
	w.call("worker", "GET", "/api/v1/history/export", "").problem(t, http.StatusForbidden, "forbidden")
}
