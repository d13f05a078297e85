package access_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/gobpm/gobpm/internal/access"
	"github.com/gobpm/gobpm/internal/auth"
	"github.com/gobpm/gobpm/internal/runtime"
)

// TestReachNeeds: each kind of reach takes the right its caller would
// need to do the same through the API.
func TestReachNeeds(t *testing.T) {
	t.Parallel()
	tests := []struct {
		kind runtime.ReachKind
		want []string
	}{
		{runtime.ReachProcess, []string{"start process payroll", "read process payroll"}},
		{runtime.ReachDecision, []string{"start decision payroll"}},
		{runtime.ReachJobType, []string{"deploy job-type payroll"}},
		{runtime.ReachSignal, []string{"operate process *"}},
		{"teleport", []string{"admin system *"}},
	}
	for _, tt := range tests {
		var got []string
		for _, n := range access.ReachNeeds(runtime.Reach{Kind: tt.kind, Key: "payroll"}) {
			got = append(got, n.String())
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("%s: needs %v, want %v", tt.kind, got, tt.want)
		}
	}
}

// TestMayReachReadsCurrentRights: the run-time check follows the
// deployer's grants as they are now, and a disabled deployer reaches
// nothing.
func TestMayReachReadsCurrentRights(t *testing.T) {
	t.Parallel()
	svc, _, _ := newService(t)
	ctx := context.Background()
	mustUser(t, svc, "alice", "correct horse battery", "")
	alice := runtime.Deployer{User: "alice"}
	payroll := runtime.Reach{Process: "order", Element: "call", ElementKind: "callActivity", Kind: runtime.ReachProcess, Key: "payroll"}

	refusal, err := svc.MayReach(ctx, alice, payroll)
	if err != nil || refusal == nil || !strings.HasPrefix(refusal.Detail, "deployer alice may not start process payroll nor read process payroll") {
		t.Fatalf("MayReach = %+v, %v", refusal, err)
	}
	for _, perm := range []auth.Permission{auth.PermStart, auth.PermRead} {
		g, err := auth.NewGrant(perm, auth.KindProcess, "payroll")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := svc.Grant(ctx, "", access.GrantRecord{Subject: access.Subject{Kind: access.SubjectUser, ID: "alice"}, Grant: &g}); err != nil {
			t.Fatal(err)
		}
	}
	if refusal, err := svc.MayReach(ctx, alice, payroll); err != nil || refusal != nil {
		t.Errorf("after the grants: MayReach = %+v, %v; want allowed", refusal, err)
	}
	yes := true
	if _, err := svc.UpdateUser(ctx, "alice", access.UserChange{Disabled: &yes}); err != nil {
		t.Fatal(err)
	}
	if refusal, err := svc.MayReach(ctx, alice, payroll); err != nil || refusal == nil || !strings.Contains(refusal.Detail, "disabled or deleted") {
		t.Errorf("disabled deployer: MayReach = %+v, %v; want refused", refusal, err)
	}
	if refusal, err := svc.MayReach(ctx, runtime.Deployer{User: "gone"}, payroll); err != nil || refusal == nil {
		t.Errorf("unknown deployer: MayReach = %+v, %v; want refused", refusal, err)
	}
	if refusal, err := svc.MayReach(ctx, runtime.Deployer{}, payroll); err != nil || refusal != nil {
		t.Errorf("no recorded deployer: MayReach = %+v, %v; want allowed", refusal, err)
	}
}

// TestDeployerOf: who a caller deploys as — nobody without authentication.
func TestDeployerOf(t *testing.T) {
	t.Parallel()
	svc, _, _ := newService(t)
	c := access.Caller{Principal: auth.Principal{User: "alice", Groups: []auth.GroupID{"clerks"}}, Via: "session"}
	if got := svc.Deployer(c); got.User != "alice" || got.Groups != nil {
		t.Errorf("builtin caller deploys as %+v, want alice without groups (read from the store when checked)", got)
	}
	if got := svc.Deployer(access.Anonymous("bob", nil)); !got.IsZero() {
		t.Errorf("anonymous caller deploys as %+v, want nobody", got)
	}
}
