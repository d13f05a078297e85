package postgres_test

// These tests exist for PostgreSQL only: they are about several processes
// sharing one database (store.ClusterStore), which the SQLite store, one
// file of one process, does not offer.

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/gobpm/gobpm/internal/pgtest"
	"github.com/gobpm/gobpm/internal/store"
	"github.com/gobpm/gobpm/internal/store/postgres"
)

// nodes opens n stores on one fresh database, each registered as a node.
func nodes(t *testing.T, n int) []*postgres.DB {
	t.Helper()
	return nodesAt(t, pgtest.URL(t), n)
}

// nodesAt opens n stores on the database at url, registered as nodes.
func nodesAt(t *testing.T, url string, n int) []*postgres.DB {
	t.Helper()
	var out []*postgres.DB
	for i := range n {
		db := mustOpen(t, url, postgres.Options{NodeID: fmt.Sprintf("node-%d", i+1)})
		if _, err := db.Heartbeat(context.Background(), store.NodeInfo{Address: fmt.Sprintf("127.0.0.1:%d", 8081+i), Version: "test"}, time.Hour); err != nil {
			t.Fatal(err)
		}
		out = append(out, db)
	}
	return out
}

// stepWith commits the first step of a new instance id with waits and
// outbox rows through db.
func stepWith(t *testing.T, db *postgres.DB, id string, waits []store.WaitRow, outbox []store.OutboxRow) {
	t.Helper()
	at := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	in := store.InstanceRow{ID: store.InstanceID(id), ProcessKey: "p", ProcessVersion: 1, Status: store.StatusRunning,
		CreatedAt: at, UpdatedAt: at, Revision: 1}
	if err := db.CommitSteps(context.Background(), []store.StepRecord{{Instance: in, Waits: waits, Outbox: outbox}}); err != nil {
		t.Fatal(err)
	}
}

// TestNodesRegisterAndExpire: nodes register with their address and
// version; a clean leave removes a node at once, and a heartbeat removes
// the nodes silent for longer than its timeout, never itself.
func TestNodesRegisterAndExpire(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dbs := nodes(t, 3)
	got, err := dbs[0].Nodes(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got[0].ID != "node-1" || got[2].Address != "127.0.0.1:8083" || got[1].Version != "test" ||
		got[0].StartedAt.IsZero() || got[0].HeartbeatAt.Before(got[0].StartedAt) {
		t.Fatalf("Nodes = %+v", got)
	}
	if err := dbs[2].Leave(ctx); err != nil {
		t.Fatal(err)
	}
	// node-2 went silent; node-1's heartbeat with a tiny timeout removes it
	// (the database's clock has moved on since node-2's last beat).
	removed, err := dbs[0].Heartbeat(ctx, store.NodeInfo{Address: "127.0.0.1:8081", Version: "test"}, time.Nanosecond)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(removed, []string{"node-2"}) {
		t.Fatalf("removed = %v, want [node-2]", removed)
	}
	got, err = dbs[1].Nodes(ctx)
	if err != nil || len(got) != 1 || got[0].ID != "node-1" {
		t.Fatalf("Nodes after = %+v, %v", got, err)
	}
	// A removed node that beats again is back, its start time reset.
	if _, err := dbs[1].Heartbeat(ctx, store.NodeInfo{}, time.Hour); err != nil {
		t.Fatal(err)
	}
	if got, err = dbs[0].Nodes(ctx); err != nil || len(got) != 2 {
		t.Fatalf("Nodes after rejoin = %+v, %v", got, err)
	}
}

// TestTimersClaimedOnce: nodes claiming due timers at the same time get
// disjoint sets that together are every due timer; a claim holds while
// its node is registered and passes to the others once it is not; a
// re-armed timer is free again.
func TestTimersClaimedOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dbs := nodes(t, 3)
	due := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	const instances, perInstance = 40, 5
	for i := range instances {
		var waits []store.WaitRow
		for j := range perInstance {
			waits = append(waits, store.WaitRow{ID: fmt.Sprintf("t-%02d-%d", i, j), Kind: store.WaitTimer, NodeID: "timer",
				DueAt: due.Add(time.Duration(j) * time.Second), CreatedAt: due})
		}
		// One timer per instance is not due yet.
		waits = append(waits, store.WaitRow{ID: fmt.Sprintf("t-%02d-later", i), Kind: store.WaitTimer, DueAt: due.Add(time.Hour), CreatedAt: due})
		stepWith(t, dbs[i%3], fmt.Sprintf("i-%02d", i), waits, nil)
	}
	now := due.Add(time.Minute)
	var (
		wg     sync.WaitGroup
		mu     sync.Mutex
		claims = map[string]string{}
	)
	for _, db := range dbs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				rows, err := db.ClaimDueTimers(ctx, now, 7)
				if err != nil {
					t.Error(err)
					return
				}
				fresh := 0
				mu.Lock()
				for _, w := range rows {
					if by, ok := claims[w.ID]; ok && by != db.NodeID() {
						t.Errorf("timer %s claimed by %s and %s", w.ID, by, db.NodeID())
					}
					if _, ok := claims[w.ID]; !ok {
						fresh++
					}
					claims[w.ID] = db.NodeID()
				}
				mu.Unlock()
				if !slices.IsSortedFunc(rows, func(a, b store.WaitRow) int { return a.DueAt.Compare(b.DueAt) }) {
					t.Errorf("claimed timers not earliest first: %v", rows)
				}
				if fresh == 0 {
					return // only its own claims come back: nothing left
				}
				// Fire what was claimed: the timers go away.
				for _, w := range rows {
					if _, err := db.Pool().Exec(ctx, `DELETE FROM waits WHERE id = $1`, w.ID); err != nil {
						t.Error(err)
					}
				}
			}
		}()
	}
	wg.Wait()
	if len(claims) != instances*perInstance {
		t.Fatalf("%d timers claimed, want %d", len(claims), instances*perInstance)
	}

	// A claim holds while its node is registered.
	later := due.Add(2 * time.Hour)
	a, err := dbs[0].ClaimDueTimers(ctx, later, 10)
	if err != nil || len(a) != 10 {
		t.Fatalf("node-1 claimed %d, %v; want 10", len(a), err)
	}
	if next, ok, err := dbs[1].NextClaimableTimer(ctx); err != nil || !ok || !next.Equal(due.Add(time.Hour)) {
		t.Fatalf("NextClaimableTimer = %v %v %v", next, ok, err)
	}
	b, err := dbs[1].ClaimDueTimers(ctx, later, 100)
	if err != nil || len(b) != instances-10 {
		t.Fatalf("node-2 claimed %d, %v; want %d", len(b), err, instances-10)
	}
	if c, err := dbs[2].ClaimDueTimers(ctx, later, 100); err != nil || len(c) != 0 {
		t.Fatalf("node-3 claimed %d, %v; want none", len(c), err)
	}
	if _, ok, err := dbs[2].NextClaimableTimer(ctx); err != nil || ok {
		t.Fatalf("node-3 NextClaimableTimer = %v, %v; want none", ok, err)
	}
	// node-1 leaves: its claims pass to node-3.
	if err := dbs[0].Leave(ctx); err != nil {
		t.Fatal(err)
	}
	c, err := dbs[2].ClaimDueTimers(ctx, later, 100)
	if err != nil || len(c) != 10 {
		t.Fatalf("node-3 claimed %d, %v after node-1 left; want 10", len(c), err)
	}
	// A timer re-armed by a step is free again.
	in := store.InstanceRow{ID: store.InstanceID(b[0].InstanceID), ProcessKey: "p", ProcessVersion: 1, Status: store.StatusRunning,
		CreatedAt: due, UpdatedAt: due, Revision: 2}
	rearmed := b[0]
	rearmed.DueAt = due
	if err := dbs[1].CommitSteps(ctx, []store.StepRecord{{Instance: in, PrevRevision: 1, Waits: []store.WaitRow{rearmed}}}); err != nil {
		t.Fatal(err)
	}
	// node-3 gets its own 10 claims back and the re-armed timer, first.
	if c, err := dbs[2].ClaimDueTimers(ctx, later, 100); err != nil || len(c) != 11 || c[0].ID != rearmed.ID {
		t.Fatalf("node-3 claimed %v, %v; want the re-armed %s and its own 10", c, err, rearmed.ID)
	}
}

// TestOutboxClaimedByCommitter: a step's outbox rows are held by the node
// that committed it; another node claims them only once that node is
// gone, and two nodes never claim the same row.
func TestOutboxClaimedByCommitter(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	url := pgtest.URL(t)
	dbs := nodesAt(t, url, 2)
	for i := range 30 {
		stepWith(t, dbs[0], fmt.Sprintf("i-%02d", i), nil, []store.OutboxRow{{Kind: store.OutboxSignal, Payload: []byte(`{"name":"s"}`)}})
	}
	if rows, err := dbs[1].ClaimOutbox(ctx, 100); err != nil || len(rows) != 0 {
		t.Fatalf("node-2 claimed %d rows of live node-1, %v", len(rows), err)
	}
	mine, err := dbs[0].ClaimOutbox(ctx, 10)
	if err != nil || len(mine) != 10 || !slices.IsSortedFunc(mine, func(a, b store.OutboxRow) int { return int(a.ID - b.ID) }) {
		t.Fatalf("node-1 claimed %v, %v; want its 10 oldest", mine, err)
	}
	if err := dbs[0].Leave(ctx); err != nil {
		t.Fatal(err)
	}
	var (
		wg  sync.WaitGroup
		got [2][]store.OutboxRow
	)
	other := mustOpen(t, url, postgres.Options{NodeID: "node-3"})
	if _, err := other.Heartbeat(ctx, store.NodeInfo{}, time.Hour); err != nil {
		t.Fatal(err)
	}
	for i, db := range []*postgres.DB{dbs[1], other} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rows, err := db.ClaimOutbox(ctx, 100)
			if err != nil {
				t.Error(err)
			}
			got[i] = rows
		}()
	}
	wg.Wait()
	seen := map[int64]bool{}
	for _, rows := range got {
		for _, o := range rows {
			if seen[o.ID] {
				t.Fatalf("row %d claimed twice", o.ID)
			}
			seen[o.ID] = true
		}
	}
	// Between them the two took all 30 rows of the departed node-1.
	if len(seen) != 30 {
		t.Fatalf("%d rows claimed after node-1 left, want 30", len(seen))
	}
}

// TestWakeAcrossNodes: a commit that makes jobs activatable or arms a
// timer wakes the other nodes' listeners (LISTEN/NOTIFY), not its own.
func TestWakeAcrossNodes(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	dbs := nodes(t, 2)
	wakes := make(chan store.Wake, 100)
	own := make(chan store.Wake, 100)
	done := make(chan error, 2)
	listening := make(chan struct{}, 2)
	heard := func() { listening <- struct{}{} }
	go func() { done <- dbs[1].Listen(ctx, heard, func(w store.Wake) { wakes <- w }) }()
	go func() { done <- dbs[0].Listen(ctx, heard, func(w store.Wake) { own <- w }) }()
	<-listening
	<-listening
	due := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	stepWith(t, dbs[0], "i-1", []store.WaitRow{
		{ID: "j-1-a", Kind: store.WaitJob, Name: "charge", Retries: 3, CreatedAt: due},
		{ID: "j-1-b", Kind: store.WaitJob, Name: "charge", Retries: 3, CreatedAt: due},
		{ID: "j-1-c", Kind: store.WaitJob, Name: "incident", Retries: 0, CreatedAt: due},
		{ID: "t-1", Kind: store.WaitTimer, DueAt: due, CreatedAt: due},
	}, nil)
	w := <-wakes
	if w.Jobs["charge"] != 2 || len(w.Jobs) != 1 || !w.Timers {
		t.Fatalf("wake = %+v, want two charge jobs and timers", w)
	}
	// A commit without jobs or timers publishes nothing; the node that
	// committed never hears its own.
	stepWith(t, dbs[0], "quiet", nil, nil)
	stepWith(t, dbs[1], "from-2", []store.WaitRow{{ID: "j-from-2", Kind: store.WaitJob, Name: "ship", Retries: 1, CreatedAt: due}}, nil)
	// node-1's own wake-up went out before node-2 committed (node-2 heard
	// it): had node-1 heard its own, it would come first.
	if w = <-own; w.Jobs["ship"] != 1 || len(w.Jobs) != 1 || w.Timers {
		t.Fatalf("node-1 heard %+v, want node-2's ship job only", w)
	}
	if len(wakes) != 0 {
		t.Fatalf("node-2 heard its own commit or the quiet one: %+v", <-wakes)
	}
	cancel()
	for range 2 {
		if err := <-done; err != nil {
			t.Fatalf("Listen = %v after its context ended, want nil", err)
		}
	}
}

// TestStartTimerFiredByItsClaimer: a step firing a timer start schedule
// commits only while its node holds the schedule's claim, so a node that
// lost the claim (silent too long: another took over) starts nothing.
func TestStartTimerFiredByItsClaimer(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dbs := nodes(t, 2)
	due := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	schedule := store.WaitRow{ID: "start:order:tick", Kind: store.WaitStartTimer, NodeID: "tick", ProcessKey: "order",
		ProcessVersion: 1, DueAt: due, CreatedAt: due}
	if err := dbs[0].ReplaceStartTimers(ctx, "order", []store.WaitRow{schedule}); err != nil {
		t.Fatal(err)
	}
	fire := func(db *postgres.DB, id string) error {
		rearmed := schedule
		rearmed.DueAt, rearmed.Retries = due.Add(time.Minute), 1
		in := store.InstanceRow{ID: store.InstanceID(id), ProcessKey: "order", ProcessVersion: 1, Status: store.StatusRunning,
			CreatedAt: due, UpdatedAt: due, Revision: 1}
		return db.CommitSteps(ctx, []store.StepRecord{{Instance: in, Waits: []store.WaitRow{rearmed}, FiresStartTimer: schedule.ID}})
	}
	// Unclaimed: nobody may fire it.
	if err := fire(dbs[0], "i-0"); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("firing an unclaimed schedule = %v, want ErrConflict", err)
	}
	if got, err := dbs[0].ClaimDueTimers(ctx, due, 10); err != nil || len(got) != 1 {
		t.Fatalf("node-1 claimed %v, %v", got, err)
	}
	// node-2 has no claim; node-1 fires it once, and the re-armed
	// schedule is free again.
	if err := fire(dbs[1], "i-1"); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("node-2 firing node-1's schedule = %v, want ErrConflict", err)
	}
	if err := fire(dbs[0], "i-2"); err != nil {
		t.Fatalf("node-1 firing its schedule: %v", err)
	}
	if err := fire(dbs[0], "i-3"); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("firing the re-armed schedule without claiming it again = %v, want ErrConflict", err)
	}
	for id, want := range map[string]bool{"i-0": false, "i-1": false, "i-2": true, "i-3": false} {
		_, err := dbs[1].InstanceRow(ctx, store.InstanceID(id))
		if (err == nil) != want {
			t.Errorf("instance %s exists: %v, want %v", id, err == nil, want)
		}
	}
}
