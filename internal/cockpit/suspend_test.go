package cockpit_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/gobpm/gobpm/internal/auth"
	"github.com/gobpm/gobpm/internal/runtime"
)

// An operator suspends and resumes an instance from its page (form POST
// with the CSRF token), which shows the suspended badge meanwhile; a
// viewer sees no buttons and a forged post is refused; the acts are
// audited.
func TestSuspendInstanceFromItsPage(t *testing.T) {
	t.Parallel()
	b := setupAuth(t, map[string]auth.Role{"olga": auth.RoleOperator, "vic": auth.RoleViewer}, nil)
	b.deploy("review.bpmn")
	inst := b.start("review", "s-1", nil)
	instPath := "/instances/" + string(inst.ID)
	olga, vic := b.as("olga"), b.as("vic")

	if p := vic.mustGet(instPath); p.testid("suspend-form").Length() != 0 || p.testid("resume-form").Length() != 0 {
		t.Error("a viewer is offered suspend or resume")
	}
	if p := vic.post(instPath+"/suspend", nil); p.status != http.StatusForbidden {
		t.Errorf("a viewer's forged suspend: %d", p.status)
	}
	p := olga.mustGet(instPath)
	if p.testid("suspend-form").Length() != 1 || p.testid("suspended-badge").Length() != 0 {
		t.Fatal("a running instance offers no Suspend button to an operator, or shows the badge")
	}
	p = olga.post(instPath+"/suspend", nil)
	if p.url != instPath || !strings.Contains(p.text("flash"), "suspended") {
		t.Errorf("suspend: %s %q", p.url, p.text("flash"))
	}
	if !b.instance(inst.ID).Suspended {
		t.Fatal("the instance is not suspended")
	}
	p = olga.mustGet(instPath)
	if p.testid("suspended-badge").Length() != 1 || p.testid("resume-form").Length() != 1 || p.testid("suspend-form").Length() != 0 {
		t.Error("a suspended instance's page shows no badge or no Resume button")
	}
	if e := b.lastAudit("cockpit: suspend instance"); e.Actor != "olga" || e.Outcome != "ok" || e.Resource != "instance "+string(inst.ID) {
		t.Errorf("the suspend is recorded as %+v", e)
	}
	olga.post(instPath+"/resume", nil)
	if b.instance(inst.ID).Suspended {
		t.Error("the instance is still suspended after Resume")
	}
	if p := olga.mustGet(instPath); p.testid("suspended-badge").Length() != 0 {
		t.Error("a resumed instance still shows the badge")
	}
}

// An operator suspends a process version with its instances from the
// version's page; a start is refused meanwhile; resuming lets it start.
func TestSuspendVersionFromItsPage(t *testing.T) {
	t.Parallel()
	b := setupAuth(t, map[string]auth.Role{"olga": auth.RoleOperator}, nil)
	b.deploy("review.bpmn")
	inst := b.start("review", "v-1", nil)
	olga := b.as("olga")
	page := "/processes/review?version=1"
	if olga.mustGet(page).testid("version-suspend-form").Length() != 1 {
		t.Fatal("no Suspend button on the version's page")
	}
	p := olga.post("/processes/review/versions/1/suspend", url.Values{"includeInstances": {"on"}})
	if !strings.Contains(p.text("flash"), "with 1 of its instances") {
		t.Errorf("suspend version: %s %q", p.url, p.text("flash"))
	}
	if !b.instance(inst.ID).Suspended {
		t.Error("the version's instance was not suspended with it")
	}
	if p := olga.mustGet(page); p.testid("suspended-badge").Length() != 1 || p.testid("version-resume-form").Length() != 1 {
		t.Error("a suspended version's page shows no badge or no Resume button")
	}
	if _, err := b.rt.StartInstance(t.Context(), runtime.StartRequest{ProcessKey: "review"}); runtime.ErrorCode(err) != runtime.ECONFLICT {
		t.Errorf("a start of the suspended version: %v", err)
	}
	olga.post("/processes/review/versions/1/resume", url.Values{"includeInstances": {"on"}})
	if b.instance(inst.ID).Suspended {
		t.Error("the instance is still suspended after the version's resume")
	}
	if _, err := b.rt.StartInstance(t.Context(), runtime.StartRequest{ProcessKey: "review"}); err != nil {
		t.Errorf("a start after the resume: %v", err)
	}
}
