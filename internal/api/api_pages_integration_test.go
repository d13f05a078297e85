package api_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// manyModel runs a parallel multi-instance user task 250 times: the
// instance has 252 scopes (root, body, 250 iterations) and 251 tracks.
const manyModel = `<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" targetNamespace="urn:test">
  <process id="many" isExecutable="true">
    <startEvent id="start"/>
    <sequenceFlow id="f1" sourceRef="start" targetRef="work"/>
    <userTask id="work"><multiInstanceLoopCharacteristics isSequential="false"><loopCardinality>250</loopCardinality></multiInstanceLoopCharacteristics></userTask>
    <sequenceFlow id="f2" sourceRef="work" targetRef="end"/>
    <endEvent id="end"/>
  </process>
</definitions>`

// TestIntegrationInstancePages checks that an instance answers with its
// first scopes and tracks and their counts, and that …/scopes and
// …/tracks page through all of them by cursor, each once, in order.
func TestIntegrationInstancePages(t *testing.T) {
	t.Parallel()
	b := setupReal(t)
	b.postXML("/api/v1/deployments", manyModel).wantStatus(t, http.StatusCreated)
	started := b.postJSON("/api/v1/processes/many/instances", `{}`).wantStatus(t, http.StatusCreated).object(t)
	id := started["id"].(string)
	for name, inst := range map[string]map[string]any{"start answer": started, "get": b.get("/api/v1/instances/"+id).wantStatus(t, http.StatusOK).object(t)} {
		if inst["scopeCount"] != json.Number("252") || inst["trackCount"] != json.Number("251") || inst["waitCount"] != json.Number("250") {
			t.Errorf("%s: scopeCount %v, trackCount %v, waitCount %v; want 252, 251, 250", name, inst["scopeCount"], inst["trackCount"], inst["waitCount"])
		}
		if n, m := len(inst["scopes"].([]any)), len(inst["tracks"].([]any)); n != 100 || m != 100 {
			t.Errorf("%s: %d scopes and %d tracks inline, want the first 100 of each", name, n, m)
		}
		if first := inst["scopes"].([]any)[0].(map[string]any); first["path"] != "/" {
			t.Errorf("%s: first scope %v, want the root", name, first)
		}
	}
	for _, c := range []struct {
		what  string
		total int
	}{{"scopes", 252}, {"tracks", 251}, {"waits", 250}} {
		seen := map[string]bool{}
		var order []string
		cursor, pages := "", 0
		for {
			path := "/api/v1/instances/" + id + "/" + c.what + "?limit=100"
			if cursor != "" {
				path += "&cursor=" + url.QueryEscape(cursor)
			}
			page := b.get(path).wantStatus(t, http.StatusOK).object(t)
			pages++
			for _, it := range page["items"].([]any) {
				itemID := it.(map[string]any)["id"].(string)
				if seen[itemID] {
					t.Fatalf("%s: %s listed twice", c.what, itemID)
				}
				seen[itemID] = true
				order = append(order, itemID)
			}
			next, _ := page["nextCursor"].(string)
			if next == "" {
				break
			}
			if pages > 10 {
				t.Fatalf("%s: more pages than items allow", c.what)
			}
			cursor = next
		}
		if len(seen) != c.total || pages != 3 {
			t.Errorf("%s: %d items in %d pages, want %d in 3", c.what, len(seen), pages, c.total)
		}
		if c.what == "tracks" && (order[0] != "t1" || order[len(order)-1] != "t251") {
			t.Errorf("tracks not in creation order: first %s, last %s", order[0], order[len(order)-1])
		}
		if c.what == "waits" && (!strings.HasSuffix(order[0], "-w000001") || !strings.HasSuffix(order[len(order)-1], "-w000250")) {
			t.Errorf("waits not in creation order: first %s, last %s", order[0], order[len(order)-1])
		}
	}
	b.get("/api/v1/instances/"+id+"/scopes?cursor=nope").problem(t, http.StatusBadRequest, "invalid-request")
	b.get("/api/v1/instances/"+id+"/tracks?limit=0").problem(t, http.StatusBadRequest, "invalid-request")
	b.get("/api/v1/instances/no-such-instance/tracks").problem(t, http.StatusNotFound, "not-found")
	b.get("/api/v1/instances/no-such-instance/waits").problem(t, http.StatusNotFound, "not-found")
}
