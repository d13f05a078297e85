package auth_test

import (
	"testing"

	"github.com/gobpm/gobpm/internal/auth"
)

// TestDeployJobTypeGrant: deploy applies to job types (a model's deployer
// needs it on every job type the model creates jobs of), and a grant of it
// is that and nothing else: not work on the type, not deploy on a process
// or decision with the same key.
func TestDeployJobTypeGrant(t *testing.T) {
	t.Parallel()
	g, err := auth.NewGrant(auth.PermDeploy, auth.KindJobType, "order-*")
	if err != nil {
		t.Fatalf("NewGrant(deploy job-type order-*) = %v", err)
	}
	if !auth.PermDeploy.AppliesTo(auth.KindJobType) {
		t.Error("deploy does not apply to job-type")
	}
	if g.String() != "deploy job-type order-*" {
		t.Errorf("String() = %q", g)
	}
	p := auth.Principal{User: "alice", Grants: []auth.Grant{g}}
	tests := []struct {
		perm auth.Permission
		kind auth.ResourceKind
		key  string
		want bool
	}{
		{auth.PermDeploy, auth.KindJobType, "order-pay", true},
		{auth.PermDeploy, auth.KindJobType, "payroll-pay", false},
		{auth.PermWork, auth.KindJobType, "order-pay", false},
		{auth.PermDeploy, auth.KindProcess, "order-pay", false},
		{auth.PermDeploy, auth.KindDecision, "order-pay", false},
	}
	for _, tt := range tests {
		if got := auth.Allowed(p, tt.perm, tt.kind, tt.key); got != tt.want {
			t.Errorf("Allowed(%s %s %s) = %v, want %v", tt.perm, tt.kind, tt.key, got, tt.want)
		}
	}
	for _, role := range []auth.Role{auth.RoleAdmin, auth.RoleDeveloper} {
		if !auth.Allowed(auth.Principal{User: "u", Roles: []auth.Role{role}}, auth.PermDeploy, auth.KindJobType, "payroll-pay") {
			t.Errorf("role %s may not deploy job-type payroll-pay", role)
		}
	}
	for _, role := range []auth.Role{auth.RoleOperator, auth.RoleWorker, auth.RoleViewer} {
		if auth.Allowed(auth.Principal{User: "u", Roles: []auth.Role{role}}, auth.PermDeploy, auth.KindJobType, "payroll-pay") {
			t.Errorf("role %s may deploy job-type payroll-pay", role)
		}
	}
}
