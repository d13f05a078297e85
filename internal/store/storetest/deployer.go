package storetest

import (
	"context"
	"errors"
	"reflect"
	"testing"

	"github.com/gobpm/gobpm/internal/store"
)

// testDeployedBy: a deployment keeps who deployed it (user and the
// identity provider's groups); one deployed by nobody reads back as the
// zero Deployer; an unknown id is ErrNotFound.
func testDeployedBy(t *testing.T, open Opener) {
	t.Parallel()
	ctx := context.Background()
	db := open(t)
	alice := Deployment("d-alice", Resource("a.bpmn", "A1", "a"))
	alice.DeployedBy = store.Deployer{User: "alice", Groups: []string{"payroll", "order-team"}}
	bob := Deployment("d-bob", Resource("b.bpmn", "B1", "b"))
	bob.DeployedBy = store.Deployer{User: "bob"}
	for _, d := range []store.DeploymentRecord{alice, bob, Deployment("d-nobody", Resource("c.bpmn", "C1", "c"))} {
		if _, _, err := db.Deploy(ctx, d); err != nil {
			t.Fatal(err)
		}
	}
	for id, want := range map[string]store.Deployer{
		"d-alice":  alice.DeployedBy,
		"d-bob":    {User: "bob"},
		"d-nobody": {},
	} {
		got, err := db.DeployedBy(ctx, id)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("DeployedBy(%s) = %+v, %v; want %+v", id, got, err, want)
		}
	}
	if _, err := db.DeployedBy(ctx, "d-none"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("DeployedBy(unknown) = %v, want ErrNotFound", err)
	}
}
