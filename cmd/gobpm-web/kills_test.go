package main

// The kill test runs on a PostgreSQL server of its own (pgtest.Own), so
// that the server's log holds only this test's statements: it counts the
// ERROR lines in it afterwards.

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gobpm/gobpm/client"
	"github.com/gobpm/gobpm/internal/pgtest"
	"github.com/jackc/pgx/v5"
)

// clusterKills is how many times TestClusterKills kills a node.
const clusterKills = 100

// killCounters are the counters TestClusterKills reads from every node
// before it kills it, and from the nodes left at the end.
var killCounters = []string{"gobpm_steps_committed_total", "gobpm_stale_steps_total", "gobpm_step_collisions_total",
	"gobpm_timers_fired_total"}

// TestClusterKills runs three gobpm-web processes on one PostgreSQL under
// a small load through every node (starts of a model whose parallel
// branches are a job → 50 ms timer and a call activity whose child is a
// job, each start with an idempotency key and a business key; workers on
// every node) and kills a random node with SIGKILL
// clusterKills times, starting it again on a new port each time. Then it
// stops the load, lets the cluster drain and checks over the API and in
// the database: every acknowledged start exists once and completed, every
// job completed once, every timer fired once, no element completed twice
// in any instance, nothing waits, is locked or sits in the outbox, no
// child is an orphan; and PostgreSQL's log holds no ERROR line but those
// of the killed nodes' connections. It logs the stale steps and
// collisions per 1,000 committed steps (issue 38).
func TestClusterKills(t *testing.T) {
	if testing.Short() {
		t.Skip("three servers killed 100 times: not in -short (make test runs it)")
	}
	t.Parallel()
	pg := pgtest.Own(t)
	db := pg.URL(t)
	c := &cluster{t: t, bin: buildBinary(t), db: db}
	for i := range 3 {
		c.start(i)
	}
	ctx := context.Background()
	model, err := os.ReadFile(filepath.Join("testdata", "kills.bpmn"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.client(0).Deploy(ctx, client.File{Name: "kills.bpmn", Content: model}); err != nil {
		t.Fatal(err)
	}

	// Workers on every node.
	stopWork := make(chan struct{})
	var workers sync.WaitGroup
	var jobsDone atomic.Int64
	for i := range 3 {
		for _, typ := range []string{"kills-work", "kills-child"} {
			workers.Add(1)
			go func() {
				defer workers.Done()
				work(c, i, typ, stopWork, &jobsDone)
			}()
		}
	}

	// Starters, one per node: each start carries an idempotency key and a
	// business key; a start that fails (its node died under it) is sent
	// again with the same key to the next node until one acknowledges it.
	stopLoad := make(chan struct{})
	var (
		mu       sync.Mutex
		acked    = map[string]string{} // business key → instance acknowledged
		starters sync.WaitGroup
	)
	for s := range 3 {
		starters.Add(1)
		go func() {
			defer starters.Done()
			for k := s; ; k += 3 {
				select {
				case <-stopLoad:
					return
				case <-time.After(20 * time.Millisecond):
				}
				key := fmt.Sprintf("kills-%d", k)
				for attempt := 0; attempt < 100; attempt++ {
					inst, err := c.client((s+attempt)%3).Start(ctx, "kills-main",
						client.StartRequest{BusinessKey: key, IdempotencyKey: key})
					if err == nil {
						mu.Lock()
						acked[key] = inst.ID
						mu.Unlock()
						break
					}
					time.Sleep(20 * time.Millisecond) // the node is down: its replacement starts soon
				}
			}
		}()
	}

	// The kills: a random node every 150-400 ms, its counters read first
	// (what it counted between that read and its death is lost).
	seed := uint64(time.Now().UnixNano())
	t.Logf("kill seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	sums := map[string]int{}
	began := time.Now()
	for range clusterKills {
		time.Sleep(150*time.Millisecond + time.Duration(rng.IntN(250))*time.Millisecond)
		i := rng.IntN(3)
		for name, v := range counters(t, c, i, killCounters...) {
			sums[name] += v
		}
		c.mu.Lock()
		victim := c.nodes[i]
		c.mu.Unlock()
		killServer(t, victim)
		c.start(i)
	}
	close(stopLoad)
	starters.Wait()
	t.Logf("%d kills in %v; %d starts acknowledged", clusterKills, time.Since(began).Round(time.Millisecond), len(acked))

	// The drain: nothing running, waiting or in the outbox.
	conn, err := pgx.Connect(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	deadline := time.Now().Add(3 * time.Minute) // a bound on a hang, not a timing assertion
	for {
		var running, waits, outbox int
		if err := conn.QueryRow(ctx, `SELECT (SELECT count(*) FROM instances WHERE status = 'running'),
			(SELECT count(*) FROM waits), (SELECT count(*) FROM outbox)`).Scan(&running, &waits, &outbox); err != nil {
			t.Fatal(err)
		}
		if running == 0 && waits == 0 && outbox == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after the drain: %d instances running, %d waits, %d outbox rows", running, waits, outbox)
		}
		time.Sleep(200 * time.Millisecond)
	}
	close(stopWork)
	workers.Wait()
	for i := range 3 {
		for name, v := range counters(t, c, i, killCounters...) {
			sums[name] += v
		}
	}

	checkKillsOverAPI(t, c, acked)
	checkKillsInDB(t, conn, acked)

	committed := sums["gobpm_steps_committed_total"]
	if committed == 0 {
		t.Fatal("the nodes counted no committed steps")
	}
	t.Logf("counted by the nodes before each kill and at the end: %d committed steps, %d stale steps (%.1f per 1,000), "+
		"%d collisions (%.1f per 1,000), %d timers fired, %d jobs completed by the workers",
		committed, sums["gobpm_stale_steps_total"], perThousand(sums["gobpm_stale_steps_total"], committed),
		sums["gobpm_step_collisions_total"], perThousand(sums["gobpm_step_collisions_total"], committed),
		sums["gobpm_timers_fired_total"], jobsDone.Load())

	for i := range 3 {
		c.mu.Lock()
		s := c.nodes[i]
		c.mu.Unlock()
		stopServer(t, s)
	}
	checkPostgresLog(t, pg)
}

// perThousand is n per 1,000 of of.
func perThousand(n, of int) float64 { return 1000 * float64(n) / float64(of) }

// checkKillsOverAPI checks over the API that no instance runs, failed or
// was terminated, that every acknowledged start is completed, that no
// wait is open and that the history of a sample of instances holds each
// element's completion once.
func checkKillsOverAPI(t *testing.T, c *cluster, acked map[string]string) {
	t.Helper()
	ctx := context.Background()
	cl := c.client(1)
	for _, key := range []string{"kills-main", "kills-child"} {
		for _, status := range []string{"running", "failed", "terminated"} {
			page, err := cl.Instances(ctx, client.InstanceFilter{ProcessKey: key, Status: status, Limit: 1})
			if err != nil || page.Total != 0 {
				t.Fatalf("%s %s instances: %d, %v; want none", key, status, page.Total, err)
			}
		}
	}
	done := completedOf(t, cl, "kills-main")
	for key, id := range acked {
		if !done[id] {
			t.Errorf("acknowledged start %s (instance %s) is not completed", key, id)
		}
	}
	checkNothingWaits(t, c)
	sample := 0
	for _, id := range acked {
		if sample++; sample > 30 {
			break
		}
		facts, err := c.client(sample%3).History(ctx, id, 0, 1000)
		if err != nil {
			t.Fatal(err)
		}
		counts := map[string]int{}
		for _, f := range facts {
			node := ""
			if f.NodeID != nil {
				node = *f.NodeID
			}
			counts[f.Kind+" "+node]++
			counts[f.Kind]++
		}
		for what, want := range map[string]int{"instance-completed": 1, "call-started": 1, "call-ended": 1,
			"element-completed work": 1, "element-completed wait": 1, "element-completed call": 1,
			"element-completed join": 1, "element-completed end": 1} {
			if counts[what] != want {
				t.Errorf("history of %s over the API: %d × %s, want %d", id, counts[what], what, want)
			}
		}
	}
	t.Logf("over the API: %d instances completed, %d of them acknowledged starts", len(done), len(acked))
}

// checkKillsInDB checks the invariants of the kill test in the database.
func checkKillsInDB(t *testing.T, conn *pgx.Conn, acked map[string]string) {
	t.Helper()
	ctx := context.Background()
	// rows runs a query whose rows are each a violation, described by its
	// text columns.
	rows := func(what, sql string) {
		t.Helper()
		rs, err := conn.Query(ctx, sql)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		bad := 0
		for rs.Next() {
			vals, err := rs.Values()
			if err != nil {
				t.Fatalf("%s: %v", what, err)
			}
			if bad++; bad <= 10 {
				t.Errorf("%s: %v", what, vals)
			}
		}
		if err := rs.Err(); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if bad > 10 {
			t.Errorf("%s: %d rows in all", what, bad)
		}
	}

	// Every acknowledged start exists exactly once (its business key
	// names one instance, the one acknowledged) and completed.
	byKey := map[string][]string{}
	rs, err := conn.Query(ctx, `SELECT business_key, id FROM instances WHERE process_key = 'kills-main'`)
	if err != nil {
		t.Fatal(err)
	}
	for rs.Next() {
		var key, id string
		if err := rs.Scan(&key, &id); err != nil {
			t.Fatal(err)
		}
		byKey[key] = append(byKey[key], id)
	}
	if err := rs.Err(); err != nil {
		t.Fatal(err)
	}
	for key, id := range acked {
		if ids := byKey[key]; len(ids) != 1 || ids[0] != id {
			t.Errorf("acknowledged start %s (instance %s): instances %v in the database, want exactly it", key, id, ids)
		}
	}
	rows("business keys started more than once",
		`SELECT business_key, count(*)::text FROM instances WHERE process_key = 'kills-main' GROUP BY business_key HAVING count(*) > 1`)
	rows("instances not completed", `SELECT id, process_key, status FROM instances WHERE status <> 'completed'`)

	// Each main instance: its job completed once (the service task's
	// completion), its timer fired once (the catch event's), its call
	// ended once, itself completed once.
	rows("main instances without each fact exactly once", `
		SELECT i.id,
			count(*) FILTER (WHERE f.kind = 'element-completed' AND f.node_id = 'work')::text AS jobs,
			count(*) FILTER (WHERE f.kind = 'element-completed' AND f.node_id = 'wait')::text AS timers,
			count(*) FILTER (WHERE f.kind = 'call-ended')::text AS calls,
			count(*) FILTER (WHERE f.kind = 'instance-completed')::text AS completions
		FROM instances i LEFT JOIN facts f ON f.instance_seq = i.seq
		WHERE i.process_key = 'kills-main'
		GROUP BY i.id
		HAVING count(*) FILTER (WHERE f.kind = 'element-completed' AND f.node_id = 'work') <> 1
			OR count(*) FILTER (WHERE f.kind = 'element-completed' AND f.node_id = 'wait') <> 1
			OR count(*) FILTER (WHERE f.kind = 'call-ended') <> 1
			OR count(*) FILTER (WHERE f.kind = 'instance-completed') <> 1`)
	rows("children whose job did not complete exactly once", `
		SELECT i.id, count(f.seq)::text FROM instances i
		LEFT JOIN facts f ON f.instance_seq = i.seq AND f.kind = 'element-completed' AND f.node_id = 'childWork'
		WHERE i.process_key = 'kills-child' GROUP BY i.id HAVING count(f.seq) <> 1`)
	// No element completed twice in any instance (children included).
	rows("elements completed twice", `
		SELECT i.id, f.node_id, f.scope_path, count(*)::text
		FROM facts f JOIN instances i ON i.seq = f.instance_seq
		WHERE f.kind = 'element-completed'
		GROUP BY i.id, f.node_id, f.scope_path HAVING count(*) > 1`)
	// Nothing waits, is locked or sits in the outbox.
	rows("waits left", `SELECT id, instance_id, kind, coalesce(lock_owner, ''), claimed_by FROM waits`)
	rows("outbox rows left", `SELECT id::text, instance_id, kind, claimed_by FROM outbox`)
	// No orphan children: each child's parent exists and completed, and
	// each main instance has exactly one child.
	rows("orphan children", `
		SELECT c.id, c.parent_id FROM instances c LEFT JOIN instances p ON p.id = c.parent_id
		WHERE c.process_key = 'kills-child' AND (c.parent_id = '' OR p.id IS NULL OR p.status <> 'completed')`)
	rows("main instances without exactly one child", `
		SELECT p.id, count(c.id)::text FROM instances p LEFT JOIN instances c ON c.parent_id = p.id
		WHERE p.process_key = 'kills-main' GROUP BY p.id HAVING count(c.id) <> 1`)
	t.Logf("in the database: %d business keys started, each once", len(byKey))
}

// droppedConnection are the messages PostgreSQL logs for a client that
// went away without closing its connection: a killed node's.
var droppedConnection = []string{
	"terminating connection",
	"could not receive data from client",
	"could not send data to client",
	"unexpected EOF on client connection",
	"connection to client lost",
}

// checkPostgresLog reads the test's PostgreSQL log and fails on any
// ERROR, FATAL or PANIC line that is not a killed node's dropped
// connection, printing it with the statement logged after it.
func checkPostgresLog(t *testing.T, pg *pgtest.Server) {
	t.Helper()
	log, err := pg.Log()
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	sc := bufio.NewScanner(bytes.NewReader(log))
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	dropped, errorsOfKills, other := 0, 0, 0
	classes := map[string]int{} // severity and message of the killed nodes' lines
	for n, line := range lines {
		severity := ""
		for _, sv := range []string{"ERROR:", "FATAL:", "PANIC:", "LOG:"} {
			if strings.Contains(line, sv) {
				severity = sv
				break
			}
		}
		severe := severity != "" && severity != "LOG:"
		ofKill := ""
		for _, m := range droppedConnection {
			if strings.Contains(line, m) {
				ofKill = m
			}
		}
		if ofKill != "" {
			classes[severity+" "+ofKill]++
		}
		switch {
		case severe && ofKill != "":
			errorsOfKills++
		case severe:
			other++
			if other <= 20 {
				next := ""
				if n+1 < len(lines) && strings.Contains(lines[n+1], "STATEMENT:") {
					next = "\n\t" + lines[n+1]
				}
				t.Errorf("PostgreSQL log: %s%s", line, next)
			}
		case ofKill != "":
			dropped++
		}
	}
	t.Logf("PostgreSQL log: %d lines; %d ERROR/FATAL lines of killed nodes' connections, %d other ERROR/FATAL lines; "+
		"%d LOG lines of dropped connections (%v)", len(lines), errorsOfKills, other, dropped, classes)
}
