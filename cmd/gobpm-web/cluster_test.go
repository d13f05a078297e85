package main

// The cluster test runs on PostgreSQL only: several server processes share
// one database server, which a SQLite file (one process's) is not.

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gobpm/gobpm/client"
	"github.com/gobpm/gobpm/internal/pgtest"
)

// clusterInstances is how many instances the cluster test starts: 1,500,
// or GOBPM_CLUSTER_INSTANCES (make test runs it once more with 10,000, on
// its own, after the other packages).
func clusterInstances(t *testing.T) int {
	n := 1500
	if v := os.Getenv("GOBPM_CLUSTER_INSTANCES"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil || n < 10 {
			t.Fatalf("GOBPM_CLUSTER_INSTANCES=%q: want a number of at least 10", v)
		}
	}
	return n
}

// nodeTimeout is the --node-timeout of the test's nodes: short, so the
// killed node's timers and outbox rows pass to the others soon.
const nodeTimeout = "3s"

// cluster is the test's nodes: bases[i] is where node i answers now
// (a restarted node answers on a new port).
type cluster struct {
	t     *testing.T
	bin   string
	db    string
	mu    sync.Mutex
	nodes []*server
}

func (c *cluster) start(i int) {
	s := startServer(c.t, c.bin, c.db, "--node-timeout", nodeTimeout)
	c.mu.Lock()
	defer c.mu.Unlock()
	for len(c.nodes) <= i {
		c.nodes = append(c.nodes, nil)
	}
	c.nodes[i] = s
}

// client returns a client of node i as it is now.
func (c *cluster) client(i int) *client.Client {
	c.mu.Lock()
	base := c.nodes[i].base
	c.mu.Unlock()
	cl, err := client.New(base, client.WithRetries(0, 0))
	if err != nil {
		c.t.Fatal(err)
	}
	return cl
}

// TestClusterOfThreeNodes runs three gobpm-web processes on one
// PostgreSQL database. First, 20 completes of one job sent through the
// three nodes at once: exactly one succeeds. Then a load of instances
// (a parallel fork of a job followed by a timer, and a call activity
// whose child is a job), started round-robin on the nodes and worked by
// workers connected to different nodes; one node is killed with SIGKILL
// a third of the way in and started again. Afterwards every instance a
// node acknowledged completed exactly once, each timer fired once, no
// job or wait is left, and GET /api/v1/cluster no longer lists the
// killed node.
func TestClusterOfThreeNodes(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs three server binaries")
	}
	c := &cluster{t: t, bin: buildBinary(t), db: pgtest.URL(t)}
	for i := range 3 {
		c.start(i)
	}
	ctx := context.Background()
	model, err := os.ReadFile(filepath.Join("testdata", "cluster.bpmn"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.client(0).Deploy(ctx, client.File{Name: "cluster.bpmn", Content: model}); err != nil {
		t.Fatal(err)
	}
	nodes, err := c.client(1).Cluster(ctx)
	if err != nil || len(nodes.Items) != 3 {
		t.Fatalf("cluster = %+v, %v; want 3 nodes", nodes, err)
	}

	var acked []string // instances a node acknowledged
	acked = append(acked, completeOnce(t, c))

	// The load: starters round-robin over the nodes, workers on every node.
	n := clusterInstances(t)
	stop := make(chan struct{})
	var workers sync.WaitGroup
	var completed atomic.Int64
	for i := range 3 {
		for _, typ := range []string{"cluster-work", "cluster-child"} {
			workers.Add(1)
			go func() {
				defer workers.Done()
				work(c, i, typ, stop, &completed)
			}()
		}
	}
	var (
		mu      sync.Mutex
		started atomic.Int64
		killed  = make(chan string, 1)
		next    atomic.Int64
	)
	var starters sync.WaitGroup
	for s := range 6 {
		starters.Add(1)
		go func() {
			defer starters.Done()
			for {
				k := next.Add(1)
				if k > int64(n) {
					return
				}
				for attempt := 0; ; attempt++ {
					node := int(k+int64(attempt)+int64(s)) % 3
					inst, err := c.client(node).Start(ctx, "cluster-main", client.StartRequest{Variables: map[string]any{"k": k}})
					if err == nil {
						mu.Lock()
						acked = append(acked, inst.ID)
						mu.Unlock()
						break
					}
					// The node was killed under the request: try the next one.
					// (An instance whose start committed but whose answer was
					// lost is not acknowledged; it must complete all the same.)
				}
				if started.Add(1) == int64(n/3) {
					cl, err := c.client(2).Cluster(ctx)
					if err != nil {
						t.Error(err)
						return
					}
					c.mu.Lock()
					dead := c.nodes[2]
					c.mu.Unlock()
					killServer(t, dead)
					killed <- cl.Node
					c.start(2)
				}
			}
		}()
	}
	starters.Wait()
	var deadID string
	select {
	case deadID = <-killed:
	default:
		t.Fatal("no node was killed")
	}

	// Everything drains: nothing running, failed or waiting anywhere.
	deadline := time.Now().Add(5 * time.Minute) // a bound on a hang, not a timing assertion
	for {
		running := 0
		for _, key := range []string{"cluster-main", "cluster-child"} {
			page, err := c.client(0).Instances(ctx, client.InstanceFilter{ProcessKey: key, Status: "running", Limit: 1})
			if err != nil {
				t.Fatal(err)
			}
			running += page.Total
		}
		if running == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d instances still running; %d jobs completed", running, completed.Load())
		}
		time.Sleep(200 * time.Millisecond)
	}
	close(stop)
	workers.Wait()
	all := checkAllCompletedOnce(t, c, acked)
	checkNothingWaits(t, c)
	// The nodes running now fired at most one timer per instance between
	// them (the killed node's count went with it).
	fired := 0
	for i := range 3 {
		m := counters(t, c, i, "gobpm_timers_fired_total", "gobpm_stale_steps_total", "gobpm_steps_committed_total")
		t.Logf("node %d (as running now): %v", i+1, m)
		fired += m["gobpm_timers_fired_total"]
	}
	if fired > all {
		t.Errorf("the nodes fired %d timers for %d instances of one timer each", fired, all)
	}

	// The killed node leaves the list once it has been silent for the
	// node timeout; the restarted one is in it.
	for {
		cl, err := c.client(0).Cluster(ctx)
		if err != nil {
			t.Fatal(err)
		}
		ids := make([]string, 0, len(cl.Items))
		for _, it := range cl.Items {
			ids = append(ids, it.ID)
		}
		if !slices.Contains(ids, deadID) {
			if len(ids) != 3 {
				t.Fatalf("cluster = %v, want the 3 live nodes", ids)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("killed node %s still listed: %v", deadID, ids)
		}
		time.Sleep(200 * time.Millisecond)
	}
	for i := range 3 {
		c.mu.Lock()
		s := c.nodes[i]
		c.mu.Unlock()
		stopServer(t, s)
	}
}

// completeOnce starts an instance, activates its job through node 0 and
// sends 20 completes of it through the three nodes at once: exactly one
// succeeds, the others are told the job is gone or no longer theirs. It
// returns the instance.
func completeOnce(t *testing.T, c *cluster) string {
	t.Helper()
	ctx := context.Background()
	inst, err := c.client(1).Start(ctx, "cluster-main", client.StartRequest{})
	if err != nil {
		t.Fatal(err)
	}
	jobs, err := c.client(0).ActivateJobs(ctx, client.ActivateRequest{Type: "cluster-work", Worker: "once", MaxJobs: 1,
		LockDuration: time.Minute, RequestTimeout: 30 * time.Second})
	if err != nil || len(jobs) != 1 {
		t.Fatalf("activate = %v, %v", jobs, err)
	}
	var (
		wg   sync.WaitGroup
		errs [20]error
	)
	gate := make(chan struct{})
	for i := range errs {
		cl := c.client(i % 3)
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-gate
			errs[i] = cl.CompleteJob(ctx, jobs[0], map[string]any{"by": i})
		}()
	}
	close(gate)
	wg.Wait()
	won := 0
	for _, err := range errs {
		var p *client.Problem
		switch {
		case err == nil:
			won++
		case errors.As(err, &p) && (p.Status == http.StatusNotFound || p.Status == http.StatusConflict):
		default:
			t.Errorf("complete = %v", err)
		}
	}
	if won != 1 {
		t.Fatalf("%d of 20 completes succeeded (%v), want exactly 1", won, errs)
	}
	return inst.ID
}

// work is a worker connected to node i: it long-polls jobs of typ and
// completes them until stop closes. Requests to a killed node fail; the
// worker then talks to the node restarted in its place.
func work(c *cluster, i int, typ string, stop <-chan struct{}, completed *atomic.Int64) {
	ctx := context.Background()
	for {
		select {
		case <-stop:
			return
		default:
		}
		cl := c.client(i)
		jobs, err := cl.ActivateJobs(ctx, client.ActivateRequest{Type: typ, Worker: fmt.Sprintf("%s@%d", typ, i), MaxJobs: 32,
			LockDuration: 5 * time.Second, RequestTimeout: time.Second})
		if err != nil {
			time.Sleep(50 * time.Millisecond) // the node is down: its replacement starts soon
			continue
		}
		for _, j := range jobs {
			// A complete may fail when the node dies under it; the job's
			// lock then expires and another worker gets it.
			if cl.CompleteJob(ctx, j, nil) == nil {
				completed.Add(1)
			}
		}
	}
}

// checkAllCompletedOnce checks that every acknowledged instance and every
// instance there is completed, each exactly once, with its job done once,
// its timer fired once and its child completed once, and returns how many
// instances there are.
func checkAllCompletedOnce(t *testing.T, c *cluster, acked []string) int {
	t.Helper()
	ctx := context.Background()
	cl := c.client(1)
	for _, key := range []string{"cluster-main", "cluster-child"} {
		for _, status := range []string{"failed", "terminated"} {
			page, err := cl.Instances(ctx, client.InstanceFilter{ProcessKey: key, Status: status, Limit: 1})
			if err != nil || page.Total != 0 {
				t.Fatalf("%s %s instances: %d, %v; want none", key, status, page.Total, err)
			}
		}
	}
	all := completedOf(t, cl, "cluster-main")
	for _, id := range acked {
		if !all[id] {
			t.Fatalf("acknowledged instance %s is not completed", id)
		}
	}
	if children := completedOf(t, cl, "cluster-child"); len(children) != len(all) {
		t.Fatalf("%d completed children, want one per instance (%d)", len(children), len(all))
	}
	ids := make(chan string)
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cl := c.client(w % 3)
			for id := range ids {
				facts, err := cl.History(ctx, id, 0, 1000)
				if err != nil {
					t.Error(err)
					continue
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
				for what, want := range map[string]int{"instance-completed": 1, "element-completed work": 1,
					"element-completed wait": 1, "call-ended": 1, "element-completed end": 1} {
					if counts[what] != want {
						t.Errorf("instance %s: %d × %s, want %d", id, counts[what], what, want)
					}
				}
			}
		}()
	}
	for id := range all {
		ids <- id
	}
	close(ids)
	wg.Wait()
	t.Logf("%d instances (%d acknowledged) completed once each", len(all), len(acked))
	return len(all)
}

// completedOf returns the completed instances of a process key, paging
// through the list by cursor.
func completedOf(t *testing.T, cl *client.Client, key string) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	f := client.InstanceFilter{ProcessKey: key, Status: "completed", Limit: 500}
	for {
		page, err := cl.Instances(context.Background(), f)
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range page.Items {
			out[it.ID] = true
		}
		if page.NextCursor == "" || len(page.Items) == 0 {
			return out
		}
		f.Cursor = page.NextCursor
	}
}

// checkNothingWaits checks that no wait (job, timer, …) is left open.
func checkNothingWaits(t *testing.T, c *cluster) {
	t.Helper()
	m, err := c.client(0).Metrics(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(bytes.NewReader(m))
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "gobpm_open_waits{") && !strings.HasSuffix(line, " 0") {
			t.Errorf("open waits left: %s", line)
		}
	}
}

// counters returns the named counters of node i's /metrics.
func counters(t *testing.T, c *cluster, i int, names ...string) map[string]int {
	t.Helper()
	m, err := c.client(i).Metrics(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int{}
	sc := bufio.NewScanner(bytes.NewReader(m))
	for sc.Scan() {
		for _, n := range names {
			if v, ok := strings.CutPrefix(sc.Text(), n+" "); ok {
				if out[n], err = strconv.Atoi(v); err != nil {
					t.Fatalf("%s: %v", sc.Text(), err)
				}
			}
		}
	}
	return out
}
