package runtime_test

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gobpm/gobpm/internal/runtime"
	"github.com/gobpm/gobpm/internal/store/postgres"
	"github.com/gobpm/gobpm/internal/testdb"
)

// TestActOnStaleCacheThroughOtherNode: node 1 caches an instance when it
// starts it; node 2 then steps it, creating a wait node 1's cached state
// does not know. An act on that wait through node 1 is served (its
// refusal on the cached state is re-checked against the store and re-run
// as a stale step), never refused: a user task's completion, its claim
// and unclaim, and an ad-hoc activation.
func TestActOnStaleCacheThroughOtherNode(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	rts := twoNodes(t, runtime.Options{})
	n1, n2 := rts[0], rts[1]
	mustDeploy(t, n1, fixture(t, "affinity.bpmn"))

	t.Run("complete", func(t *testing.T) {
		inst := start(t, n1, "twoTasks", nil)  // cached on node 1 with A open
		completeTask(t, n2, inst.ID, "A", nil) // node 2 creates B
		before := n1.Metrics().StaleSteps
		b := onlyTask(t, n2, inst.ID, "B")
		if err := n1.CompleteTask(ctx, b.ID, runtime.Actor{User: "u"}, nil); err != nil {
			t.Fatalf("completing B through node 1: %v", err)
		}
		if v := instance(t, n2, inst.ID); v.Status != runtime.StatusCompleted {
			t.Fatalf("instance after B: %s, want completed", v.Status)
		}
		if n := n1.Metrics().StaleSteps - before; n != 1 {
			t.Errorf("node 1 counted %d stale steps, want 1", n)
		}
	})

	t.Run("claim and unclaim", func(t *testing.T) {
		inst := start(t, n1, "twoTasks", nil)
		completeTask(t, n2, inst.ID, "A", nil) // node 2 caches B unclaimed
		b := onlyTask(t, n2, inst.ID, "B")
		if v, err := n1.ClaimTask(ctx, b.ID, runtime.Actor{User: "ann"}); err != nil || v.Assignee != "ann" {
			t.Fatalf("claiming B through node 1: %+v, %v", v, err)
		}
		// Node 2's cached B is unclaimed: only its store row says ann.
		if v, err := n2.UnclaimTask(ctx, b.ID, runtime.Actor{User: "ann"}); err != nil || v.Assignee != "" {
			t.Fatalf("unclaiming B through node 2: %+v, %v", v, err)
		}
		if err := n1.CompleteTask(ctx, b.ID, runtime.Actor{User: "bob"}, nil); err != nil {
			t.Fatalf("completing the unclaimed B through node 1: %v", err)
		}
		if v := instance(t, n2, inst.ID); v.Status != runtime.StatusCompleted {
			t.Fatalf("instance after B: %s, want completed", v.Status)
		}
	})

	t.Run("ad-hoc activation", func(t *testing.T) {
		inst := start(t, n1, "lateRegion", nil)      // cached on node 1 before the region opens
		completeTask(t, n2, inst.ID, "prepare", nil) // node 2 opens it
		regions, err := n2.AdHocRegions(ctx, inst.ID)
		if err != nil || len(regions) != 1 {
			t.Fatalf("regions through node 2: %+v, %v", regions, err)
		}
		if _, err := n1.ActivateAdHoc(ctx, inst.ID, regions[0].ScopeID, "X", runtime.Actor{User: "ann"}); err != nil {
			t.Fatalf("activating X through node 1: %v", err)
		}
		completeTask(t, n2, inst.ID, "X", nil)
	})

	// A refusal on a state that is current stays a refusal.
	t.Run("genuine refusal", func(t *testing.T) {
		inst := start(t, n1, "twoTasks", nil)
		a := onlyTask(t, n1, inst.ID, "A")
		if _, err := n1.ClaimTask(ctx, a.ID, runtime.Actor{User: "ann"}); err != nil {
			t.Fatal(err)
		}
		if _, err := n1.UnclaimTask(ctx, a.ID, runtime.Actor{User: "bob"}); err == nil {
			t.Fatal("bob unclaimed ann's task")
		}
	})
}

// TestResumeLeavesInstancesHomedElsewhere: a node that starts resumes
// only the running instances not homed on another registered node: one
// node 1 stepped last is node 1's while node 1 is registered, and the
// next node to start resumes it once node 1 has left.
func TestResumeLeavesInstancesHomedElsewhere(t *testing.T) {
	if d, _ := testdb.Driver(); d != testdb.Postgres {
		t.Skip("several nodes share a PostgreSQL server: run with GOBPM_TEST_DB=postgres")
	}
	t.Parallel()
	ctx := context.Background()
	url := testdb.DSN(t)
	open := func(id string) (*runtime.Runtime, int) {
		db, err := postgres.Open(ctx, url, postgres.Options{NodeID: id})
		if err != nil {
			t.Fatal(err)
		}
		rt := runtime.New(db, runtime.Options{Node: runtime.NodeInfo{Version: "test"}})
		t.Cleanup(func() {
			rt.Close()
			db.Close()
		})
		n, err := rt.Resume(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return rt, n
	}
	n1, _ := open("node-1")
	mustDeploy(t, n1, fixture(t, "job.bpmn"))
	if _, err := n1.StartInstance(ctx, runtime.StartRequest{ProcessKey: "job"}); err != nil {
		t.Fatal(err)
	}
	if _, n := open("node-2"); n != 0 {
		t.Fatalf("node 2 resumed %d instances at its start, want 0 (the one running is node 1's)", n)
	}
	n1.Close() // leaves the cluster
	if _, n := open("node-3"); n != 1 {
		t.Fatalf("node 3 resumed %d instances after node 1 left, want 1", n)
	}
}

// TestRemoverResumesInstancesOfSilentNode: a node that starts while the
// home of a running instance is registered but silent leaves the instance
// to it; its heartbeat, once it removes the silent node, resumes the
// instance.
func TestRemoverResumesInstancesOfSilentNode(t *testing.T) {
	if d, _ := testdb.Driver(); d != testdb.Postgres {
		t.Skip("several nodes share a PostgreSQL server: run with GOBPM_TEST_DB=postgres")
	}
	t.Parallel()
	ctx := context.Background()
	url := testdb.DSN(t)
	openDB := func(id string) *postgres.DB {
		db, err := postgres.Open(ctx, url, postgres.Options{NodeID: id})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return db
	}
	n1 := runtime.New(openDB("node-1"), runtime.Options{Node: runtime.NodeInfo{Version: "test"}})
	if _, err := n1.Resume(ctx); err != nil {
		t.Fatal(err)
	}
	mustDeploy(t, n1, fixture(t, "job.bpmn"))
	if _, err := n1.StartInstance(ctx, runtime.StartRequest{ProcessKey: "job"}); err != nil {
		t.Fatal(err)
	}
	n1.Close()
	// node-1 registered again, then silent: as a killed node.
	if _, err := openDB("node-1").Heartbeat(ctx, runtime.NodeInfo{Version: "test"}, time.Hour); err != nil {
		t.Fatal(err)
	}
	logs := &lockedBuffer{}
	n2 := runtime.New(openDB("node-2"), runtime.Options{Node: runtime.NodeInfo{Version: "test"},
		Logger: slog.New(slog.NewTextHandler(logs, nil)), Heartbeat: 100 * time.Millisecond, NodeTimeout: 500 * time.Millisecond})
	t.Cleanup(func() { n2.Close() })
	if n, err := n2.Resume(ctx); err != nil || n != 0 {
		t.Fatalf("node 2 resumed %d, %v at its start; want 0 (node 1 is registered)", n, err)
	}
	deadline := time.Now().Add(30 * time.Second) // a bound on a hang, not a timing assertion
	for !strings.Contains(logs.String(), `msg="instances of removed nodes resumed" nodes=[node-1] count=1 failed=0`) {
		if time.Now().After(deadline) {
			t.Fatalf("node 2 did not resume node 1's instance after removing it; logs:\n%s", logs.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// lockedBuffer is a bytes.Buffer safe for a logger and a reader at once.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
