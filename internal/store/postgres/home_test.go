package postgres_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/gobpm/gobpm/internal/pgtest"
	"github.com/gobpm/gobpm/internal/store"
	"github.com/gobpm/gobpm/internal/store/postgres"
)

// homeGrace is the home grace of the stores of the home-node tests.
const homeGrace = 2 * time.Second

// homeNodes opens n stores with homeGrace on one fresh database, each
// registered as a node.
func homeNodes(t *testing.T, n int) []*postgres.DB {
	t.Helper()
	url := pgtest.URL(t)
	var out []*postgres.DB
	for i := range n {
		db := mustOpen(t, url, postgres.Options{NodeID: fmt.Sprintf("node-%d", i+1), HomeGrace: homeGrace})
		if _, err := db.Heartbeat(context.Background(), store.NodeInfo{Version: "test"}, time.Hour); err != nil {
			t.Fatal(err)
		}
		out = append(out, db)
	}
	return out
}

// homeOf reads the home node of instance id.
func homeOf(t *testing.T, db *postgres.DB, id string) string {
	t.Helper()
	var home string
	if err := db.Pool().QueryRow(context.Background(), `SELECT home_node FROM instances WHERE id = $1`, id).Scan(&home); err != nil {
		t.Fatal(err)
	}
	return home
}

// TestHomeNodeOfInstance: a step's commit makes its node the instance's
// home, the first step's and every later one's.
func TestHomeNodeOfInstance(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dbs := homeNodes(t, 2)
	stepWith(t, dbs[0], "i-1", nil, nil)
	if got := homeOf(t, dbs[1], "i-1"); got != "node-1" {
		t.Fatalf("home after node-1's start = %q, want node-1", got)
	}
	at := time.Date(2026, 12, 1, 9, 0, 1, 0, time.UTC)
	in := store.InstanceRow{ID: "i-1", ProcessKey: "p", ProcessVersion: 1, Status: store.StatusRunning,
		CreatedAt: at, UpdatedAt: at, Revision: 2}
	if err := dbs[1].CommitSteps(ctx, []store.StepRecord{{Instance: in, PrevRevision: 1}}); err != nil {
		t.Fatal(err)
	}
	if got := homeOf(t, dbs[0], "i-1"); got != "node-2" {
		t.Fatalf("home after node-2's step = %q, want node-2", got)
	}
}

// TestJobsGoHomeFirst: a job of an instance homed on node-1 is handed to
// node-1's activation; node-2's finds nothing until the grace has passed
// since the job became activatable (and learns when that is), or at once
// when node-1 is gone. A job of nobody's instance is anybody's.
func TestJobsGoHomeFirst(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dbs := homeNodes(t, 2)
	a, b := dbs[0], dbs[1]
	created := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	job := func(id string) store.WaitRow {
		return store.WaitRow{ID: id, Kind: store.WaitJob, NodeID: "svc", ProcessKey: "p", ProcessVersion: 1,
			Name: "pay", Retries: 3, CreatedAt: created}
	}
	lock := func(worker string) store.JobLock {
		return store.JobLock{Worker: worker, Until: created.Add(time.Hour), TokenHashes: [][]byte{
			[]byte("0123456789abcdef0123456789abcdef"), []byte("fedcba9876543210fedcba9876543210")}}
	}
	stepWith(t, a, "i-a1", []store.WaitRow{job("j-a1")}, nil)
	stepWith(t, a, "i-a2", []store.WaitRow{job("j-a2")}, nil)

	now := created.Add(homeGrace / 2)
	if got, err := b.ActivateJobs(ctx, "pay", now, lock("w-b")); err != nil || len(got) != 0 {
		t.Fatalf("node-2 activated %v, %v within the grace; want nothing", ids(got), err)
	}
	if next, ok, err := b.NextJobAvailable(ctx, "pay", now); err != nil || !ok || !next.Equal(created.Add(homeGrace)) {
		t.Fatalf("node-2's NextJobAvailable = %v, %v, %v; want the grace's end %v", next, ok, err, created.Add(homeGrace))
	}
	if _, ok, err := a.NextJobAvailable(ctx, "pay", now); err != nil || ok {
		t.Fatalf("node-1's NextJobAvailable = %v, %v; want nothing later (its jobs are activatable)", ok, err)
	}
	one := lock("w-a")
	one.TokenHashes = one.TokenHashes[:1]
	if got, err := a.ActivateJobs(ctx, "pay", now, one); err != nil || len(got) != 1 || got[0].ID != "j-a1" {
		t.Fatalf("node-1 activated %v, %v; want j-a1", ids(got), err)
	}
	// Past the grace, node-2 takes what node-1 left.
	if got, err := b.ActivateJobs(ctx, "pay", created.Add(homeGrace), lock("w-b")); err != nil || len(got) != 1 || got[0].ID != "j-a2" {
		t.Fatalf("node-2 activated %v, %v past the grace; want j-a2", ids(got), err)
	}

	// node-1 gone: its instances' jobs are node-2's at once; a job of an
	// instance without a home (written before migration 0020) too.
	stepWith(t, a, "i-a3", []store.WaitRow{job("j-a3")}, nil)
	stepWith(t, a, "i-none", []store.WaitRow{job("j-none")}, nil)
	if _, err := b.Pool().Exec(ctx, `UPDATE instances SET home_node = '' WHERE id = 'i-none'`); err != nil {
		t.Fatal(err)
	}
	if got, err := b.ActivateJobs(ctx, "pay", now, lock("w-b")); err != nil || len(got) != 1 || got[0].ID != "j-none" {
		t.Fatalf("node-2 activated %v, %v; want only the homeless j-none", ids(got), err)
	}
	if err := a.Leave(ctx); err != nil {
		t.Fatal(err)
	}
	if got, err := b.ActivateJobs(ctx, "pay", now, lock("w-b")); err != nil || len(got) != 1 || got[0].ID != "j-a3" {
		t.Fatalf("node-2 activated %v, %v after node-1 left; want j-a3", ids(got), err)
	}
}

// TestTimersGoHomeFirst: a due timer of an instance homed on node-1 is
// claimed by node-1; node-2 may claim it only once the grace has passed
// since it fell due (its NextClaimableTimer says when), or at once when
// node-1 is gone.
func TestTimersGoHomeFirst(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dbs := homeNodes(t, 2)
	a, b := dbs[0], dbs[1]
	due := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	timer := func(id string, at time.Time) store.WaitRow {
		return store.WaitRow{ID: id, Kind: store.WaitTimer, NodeID: "t", DueAt: at, CreatedAt: due}
	}
	stepWith(t, a, "i-a1", []store.WaitRow{timer("t-a1", due)}, nil)
	stepWith(t, a, "i-a2", []store.WaitRow{timer("t-a2", due.Add(time.Second))}, nil)
	stepWith(t, b, "i-b1", []store.WaitRow{timer("t-b1", due.Add(homeGrace+time.Minute))}, nil)

	now := due.Add(time.Second)
	if next, ok, err := b.NextClaimableTimer(ctx); err != nil || !ok || !next.Equal(due.Add(homeGrace)) {
		t.Fatalf("node-2's NextClaimableTimer = %v, %v, %v; want t-a1's grace's end %v", next, ok, err, due.Add(homeGrace))
	}
	if next, ok, err := a.NextClaimableTimer(ctx); err != nil || !ok || !next.Equal(due) {
		t.Fatalf("node-1's NextClaimableTimer = %v, %v, %v; want %v", next, ok, err, due)
	}
	if got, err := b.ClaimDueTimers(ctx, now, 10); err != nil || len(got) != 0 {
		t.Fatalf("node-2 claimed %v, %v within the grace; want nothing", ids(got), err)
	}
	if got, err := a.ClaimDueTimers(ctx, due, 10); err != nil || len(got) != 1 || got[0].ID != "t-a1" {
		t.Fatalf("node-1 claimed %v, %v; want t-a1", ids(got), err)
	}
	// t-a2 fell due a second after t-a1: node-2 may take it a grace after.
	if got, err := b.ClaimDueTimers(ctx, due.Add(homeGrace), 10); err != nil || len(got) != 0 {
		t.Fatalf("node-2 claimed %v, %v before t-a2's grace ended; want nothing", ids(got), err)
	}
	if got, err := b.ClaimDueTimers(ctx, due.Add(time.Second+homeGrace), 10); err != nil || len(got) != 1 || got[0].ID != "t-a2" {
		t.Fatalf("node-2 claimed %v, %v past t-a2's grace; want t-a2", ids(got), err)
	}

	stepWith(t, a, "i-a3", []store.WaitRow{timer("t-a3", due)}, nil)
	if err := a.Leave(ctx); err != nil {
		t.Fatal(err)
	}
	// node-2's claims come back with node-1's t-a1 and the fresh t-a3.
	if got, err := b.ClaimDueTimers(ctx, now, 10); err != nil || !slices.Equal(ids(got), []string{"t-a1", "t-a3", "t-a2"}) {
		t.Fatalf("node-2 claimed %v, %v after node-1 left; want t-a1, t-a3 and its own t-a2", ids(got), err)
	}
}

// ids lists the ids of waits.
func ids(ws []store.WaitRow) []string {
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = w.ID
	}
	return out
}

// TestHomedElsewhere lists the running instances homed on another
// registered node: not this node's own, not an ended one, not one homed on
// a node that left; HomedOn lists those homed on given nodes.
func TestHomedElsewhere(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dbs := homeNodes(t, 3)
	stepWith(t, dbs[0], "i-1", nil, nil)
	stepWith(t, dbs[1], "i-2", nil, nil)
	stepWith(t, dbs[2], "i-3", nil, nil)
	stepWith(t, dbs[1], "i-ended", nil, nil)
	if _, err := dbs[0].Pool().Exec(ctx, `UPDATE instances SET status = 'completed' WHERE id = 'i-ended'`); err != nil {
		t.Fatal(err)
	}
	got, err := dbs[0].HomedElsewhere(ctx)
	slices.Sort(got)
	if err != nil || !slices.Equal(got, []store.InstanceID{"i-2", "i-3"}) {
		t.Fatalf("node-1's HomedElsewhere = %v, %v; want i-2 and i-3", got, err)
	}
	if err := dbs[2].Leave(ctx); err != nil {
		t.Fatal(err)
	}
	if got, err := dbs[0].HomedElsewhere(ctx); err != nil || !slices.Equal(got, []store.InstanceID{"i-2"}) {
		t.Fatalf("node-1's HomedElsewhere after node-3 left = %v, %v; want i-2", got, err)
	}
	// The instances of the node that left, for the node removing it.
	if got, err := dbs[0].HomedOn(ctx, []string{"node-3"}); err != nil || !slices.Equal(got, []store.InstanceID{"i-3"}) {
		t.Fatalf("HomedOn(node-3) = %v, %v; want i-3", got, err)
	}
	if got, err := dbs[0].HomedOn(ctx, []string{"node-2", "node-9"}); err != nil || !slices.Equal(got, []store.InstanceID{"i-2"}) {
		t.Fatalf("HomedOn(node-2, node-9) = %v, %v; want i-2 (i-ended is not running)", got, err)
	}
}
