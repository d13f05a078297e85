package cockpit_test

import (
	"context"
	"testing"

	"github.com/gobpm/gobpm/internal/access"
	"github.com/gobpm/gobpm/internal/auth"
)

// The instance list names a caller (parent column) only to a person who
// may read the caller's process: its key and number are not theirs to see.
func TestInstanceListHidesUnreadableParent(t *testing.T) {
	t.Parallel()
	b := setupAuth(t, map[string]auth.Role{"pia": "", "ada": auth.RoleAdmin}, nil)
	g, err := auth.NewGrant(auth.PermRead, auth.KindProcess, "picky")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.acc.Grant(context.Background(), "", access.GrantRecord{Subject: access.Subject{Kind: access.SubjectUser, ID: "pia"}, Grant: &g}); err != nil {
		t.Fatal(err)
	}
	stuckTree(t, b.bundle)

	list := b.as("pia").mustGet("/instances?process=picky")
	if n := list.testid("parent-link").Length(); n != 0 {
		t.Errorf("pia sees %d parent links (%q) to a process she may not read", n, list.text("parent-link"))
	}
	if got := b.as("ada").mustGet("/instances?process=picky").text("parent-link"); got != "caller #1" {
		t.Errorf("the admin's parent column %q", got)
	}
}
