package api_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/gobpm/gobpm/internal/access"
	"github.com/gobpm/gobpm/internal/auth"
	"github.com/gobpm/gobpm/internal/runtime"
)

// TestBatchActsWithItsCreatorsRights: alice reads every process but may
// operate only on order-*: her batch with an empty filter is narrowed to
// the order-* instances and leaves pay-x's alone; her batch is hers to see
// (another user gets 404), and an admin sees it too.
func TestBatchActsWithItsCreatorsRights(t *testing.T) {
	t.Parallel()
	w := reachWorld(t)
	ctx := context.Background()
	for _, g := range []struct {
		perm    auth.Permission
		pattern string
	}{{auth.PermOperate, "order-*"}, {auth.PermRead, "*"}} {
		grant, err := auth.NewGrant(g.perm, auth.KindProcess, g.pattern)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.acc.Grant(ctx, "", access.GrantRecord{Subject: access.Subject{Kind: access.SubjectUser, ID: "alice"}, Grant: &grant}); err != nil {
			t.Fatal(err)
		}
	}
	task := `<userTask id="reach"/>`
	w.call("admin", "POST", "/api/v1/deployments?name=order.bpmn", reachDoc("x", task)).wantStatus(t, http.StatusCreated)
	w.call("admin", "POST", "/api/v1/deployments?name=pay.bpmn", strings.ReplaceAll(reachDoc("x", task), `id="order-x"`, `id="pay-x"`)).wantStatus(t, http.StatusCreated)
	var orders, pays []string
	for range 2 {
		orders = append(orders, w.call("admin", "POST", "/api/v1/processes/order-x/instances", `{}`).wantStatus(t, http.StatusCreated).object(t)["id"].(string))
		pays = append(pays, w.call("admin", "POST", "/api/v1/processes/pay-x/instances", `{}`).wantStatus(t, http.StatusCreated).object(t)["id"].(string))
	}

	dry := w.call("alice", "POST", "/api/v1/batches", `{"operation":"cancel","filter":{"status":"running"},"dryRun":true}`).wantStatus(t, http.StatusOK).object(t)
	if fmt.Sprint(dry["count"]) != "2" {
		t.Fatalf("alice's dry run counts %v, want her 2 order-x instances", dry["count"])
	}
	created := w.call("alice", "POST", "/api/v1/batches", `{"operation":"cancel","filter":{"status":"running"}}`).wantStatus(t, http.StatusCreated).object(t)
	id := created["id"].(string)
	if created["createdBy"] != "alice" || fmt.Sprint(created["total"]) != "2" {
		t.Fatalf("created %s", mustJSON(t, created))
	}
	if err := w.rt.AwaitBatch(ctx, id); err != nil {
		t.Fatal(err)
	}
	for _, inst := range orders {
		if v, _ := w.rt.Instance(ctx, runtime.InstanceID(inst)); v.Status != runtime.StatusTerminated {
			t.Errorf("order instance %s is %s", inst, v.Status)
		}
	}
	for _, inst := range pays {
		if v, _ := w.rt.Instance(ctx, runtime.InstanceID(inst)); v.Status != runtime.StatusRunning {
			t.Errorf("pay instance %s is %s: the batch reached beyond alice's rights", inst, v.Status)
		}
	}
	if got := w.call("alice", "GET", "/api/v1/batches/"+id, "").wantStatus(t, http.StatusOK).object(t); got["state"] != "completed" {
		t.Errorf("alice's batch %s", mustJSON(t, got))
	}
	w.call("operator", "GET", "/api/v1/batches/"+id, "").problem(t, http.StatusNotFound, "not-found")
	w.call("operator", "POST", "/api/v1/batches/"+id+"/cancel", "").problem(t, http.StatusNotFound, "not-found")
	if list := w.call("operator", "GET", "/api/v1/batches", "").wantStatus(t, http.StatusOK).object(t); fmt.Sprint(list["total"]) != "0" {
		t.Errorf("the operator lists %s", mustJSON(t, list))
	}
	w.call("admin", "GET", "/api/v1/batches/"+id, "").wantStatus(t, http.StatusOK)

	// The audit trail names the batch alice started.
	if err := w.acc.FlushAudit(ctx); err != nil {
		t.Fatal(err)
	}
	entries, err := w.acc.Audit(ctx, access.AuditFilter{Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, e := range entries {
		found = found || e.Actor == "alice" && e.Action == "POST /api/v1/batches" && e.Resource == "batch "+id && e.Outcome == "ok"
	}
	if !found {
		t.Errorf("no audit entry of alice's batch %s", id)
	}
}
