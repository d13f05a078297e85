package cockpit_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/gobpm/gobpm/internal/auth"
	"github.com/gobpm/gobpm/internal/runtime"
)

// An ended instance can be deleted from its page by someone with delete on
// its process (admins): the button shows only then, the act is confirmed,
// audited and returns to the instance list; a running or failed instance
// offers no delete and a forged one changes nothing.
func TestDeleteEndedInstance(t *testing.T) {
	t.Parallel()
	b := setupAuth(t, map[string]auth.Role{"olga": auth.RoleOperator, "ada": auth.RoleAdmin}, nil)
	b.deploy("review.bpmn", "picky.bpmn")
	inst := b.start("review", "c-1", nil)
	failed := b.start("picky", "p-1", nil)
	instPath := "/instances/" + string(inst.ID)
	olga, ada := b.as("olga"), b.as("ada")

	if ada.mustGet(instPath).testid("delete").Length() != 0 || ada.mustGet("/instances/"+string(failed.ID)).testid("delete").Length() != 0 {
		t.Error("a running or failed instance offers delete")
	}
	if p := ada.post(instPath+"/delete", nil); p.url != instPath || !strings.Contains(p.text("flash"), "cancel it first") {
		t.Errorf("a forged delete of a running instance: %s %q", p.url, p.text("flash"))
	}
	if b.instance(inst.ID).Status != runtime.StatusRunning {
		t.Fatal("the refused delete changed the instance")
	}

	olga.post(instPath+"/cancel", nil)
	if olga.mustGet(instPath).testid("delete").Length() != 0 {
		t.Error("an operator (no delete permission) is offered delete")
	}
	if p := olga.post(instPath+"/delete", nil); p.status != http.StatusForbidden {
		t.Errorf("an operator's forged delete: %d", p.status)
	}
	if ada.mustGet(instPath).testid("delete-form").Length() != 1 {
		t.Fatal("an admin is not offered delete of the terminated instance")
	}
	p := ada.post(instPath+"/delete", nil)
	if p.url != "/instances" || !strings.Contains(p.text("flash"), "deleted") {
		t.Errorf("the admin's delete: %s %q", p.url, p.text("flash"))
	}
	if _, err := b.rt.Instance(t.Context(), inst.ID); runtime.ErrorCode(err) != runtime.ENOTFOUND {
		t.Errorf("the instance after delete: %v", err)
	}
	if e := b.lastAudit("cockpit: delete instance"); e.Actor != "ada" || e.Outcome != "ok" || e.Resource != "instance "+string(inst.ID) {
		t.Errorf("the delete is recorded as %+v", e)
	}
}
