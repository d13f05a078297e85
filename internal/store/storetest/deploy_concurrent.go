package storetest

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/gobpm/gobpm/internal/store"
)

// testDeployConcurrentSameContent: two nodes deploying the same content at
// once (every node of a cluster watching one --deploy-dir folder) make one
// version between them, round after round: the store serialises
// deployments, so the second finds the first's version and keeps it.
func testDeployConcurrentSameContent(t *testing.T, open Opener) {
	t.Parallel()
	ctx := context.Background()
	a := open(t)
	b := a.Reopen(t)
	const rounds = 3
	for round := 1; round <= rounds; round++ {
		content := fmt.Sprintf("A%d", round)
		var wg sync.WaitGroup
		got := make([][]store.DefinitionRef, 2)
		errs := make([]error, 2)
		for n, db := range []*Harness{a, b} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				d := Deployment(fmt.Sprintf("d%d-node%d", round, n), Resource("a.bpmn", content, "a"))
				got[n], _, errs[n] = db.Deploy(ctx, d)
			}()
		}
		wg.Wait()
		for n, err := range errs {
			if err != nil {
				t.Fatalf("round %d, node %d: %v", round, n, err)
			}
		}
		want := []store.DefinitionRef{dref("a", round)}
		for n := range got {
			if len(got[n]) != 1 || got[n][0] != want[0] {
				t.Fatalf("round %d, node %d registered %v, want %v", round, n, got[n], want)
			}
		}
	}
	vs, err := a.DefinitionVersions(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	if len(vs) != rounds {
		t.Fatalf("%d rounds of the same content on two nodes made %d versions, want %d", rounds, len(vs), rounds)
	}
}
