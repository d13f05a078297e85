package main

import (
	"database/sql"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	_ "modernc.org/sqlite"

	"github.com/gobpm/gobpm/internal/store/sqlite"
)

// The call-activity restart contract (docs/scopes.md#call-activities) against the real server:
// testdata/calls-levels.bpmn is levelA, which forks into two call
// activities (callB1, callB2) on levelB, which calls levelC (callC), which
// waits on a user task. One A instance therefore holds two B children and
// two C grandchildren, and callers wait at two depths.

// deployLevels deploys the three-level call model.
func deployLevels(t *testing.T, base string) { deployTestdata(t, base, "calls-levels.bpmn") }

// deployTestdata deploys each file of testdata, one deployment each, to
// the server at base.
func deployTestdata(t *testing.T, base string, names ...string) {
	t.Helper()
	for _, name := range names {
		model, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		if code, body := post(t, base+"/api/v1/deployments", "application/xml", model); code != http.StatusCreated {
			t.Fatalf("deploy %s: %d %v", name, code, body)
		}
	}
}

// startA starts a levelA instance and returns its id.
func startA(t *testing.T, base string) string {
	t.Helper()
	code, inst := post(t, base+"/api/v1/processes/levelA/instances", "application/json", []byte(`{}`))
	if code != http.StatusCreated || inst["status"] != "running" {
		t.Fatalf("start levelA: %d %v", code, inst)
	}
	return inst["id"].(string)
}

// instance reads an instance; it must exist.
func instance(t *testing.T, base, id string) map[string]any {
	t.Helper()
	code, inst := get(t, base+"/api/v1/instances/"+id)
	if code != http.StatusOK {
		t.Fatalf("instance %s: %d %v", id, code, inst)
	}
	return inst
}

// childByNode returns the child a caller launched from a call activity.
func childByNode(t *testing.T, base, caller, node string) string {
	t.Helper()
	inst := instance(t, base, caller)
	for _, c := range inst["children"].([]any) {
		c := c.(map[string]any)
		if c["nodeId"] == node {
			return c["instanceId"].(string)
		}
	}
	t.Fatalf("instance %s has no child from %s: %v", caller, node, inst["children"])
	return ""
}

// childrenOf lists the instances whose parent is id (GET ?parentId=).
func childrenOf(t *testing.T, base, id string) []map[string]any {
	t.Helper()
	code, page := get(t, base+"/api/v1/instances?limit=500&parentId="+id)
	if code != http.StatusOK {
		t.Fatalf("children of %s: %d %v", id, code, page)
	}
	var out []map[string]any
	for _, it := range page["items"].([]any) {
		out = append(out, it.(map[string]any))
	}
	return out
}

// historyOf returns the facts of an instance.
func historyOf(t *testing.T, base, id string) []map[string]any {
	t.Helper()
	code, page := get(t, base+"/api/v1/instances/"+id+"/history?limit=10000")
	if code != http.StatusOK {
		t.Fatalf("history of %s: %d %v", id, code, page)
	}
	var out []map[string]any
	for _, it := range page["items"].([]any) {
		out = append(out, it.(map[string]any))
	}
	return out
}

// callFacts counts facts of a kind per call node, and per child id.
func callFacts(facts []map[string]any, kind string) (perNode, perChild map[string]int) {
	perNode, perChild = map[string]int{}, map[string]int{}
	for _, f := range facts {
		if f["kind"] != kind {
			continue
		}
		node, _ := f["nodeId"].(string)
		perNode[node]++
		if d, ok := f["detail"].(map[string]any); ok {
			if c, ok := d["childId"].(string); ok {
				perChild[c]++
			}
		}
	}
	return perNode, perChild
}

// openTasks lists the open user tasks, of one instance or (id "") of all.
func openTasks(t *testing.T, base, id string) []map[string]any {
	t.Helper()
	url := base + "/api/v1/tasks?limit=500"
	if id != "" {
		url += "&instanceId=" + id
	}
	code, page := do(t, "GET", url, "", "", "")
	if code != http.StatusOK {
		t.Fatalf("tasks: %d %v", code, page)
	}
	var out []map[string]any
	for _, it := range page["items"].([]any) {
		out = append(out, it.(map[string]any))
	}
	return out
}

func completeTask(t *testing.T, base, task string) {
	t.Helper()
	if code, body := do(t, "POST", base+"/api/v1/tasks/"+task+"/complete", "pat", "", `{}`); code != http.StatusNoContent {
		t.Fatalf("complete task %s: %d %v", task, code, body)
	}
}

// stopServer ends a server with SIGTERM and waits for a clean exit.
func stopServer(t *testing.T, s *server) {
	t.Helper()
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-s.done:
		if err != nil {
			t.Fatalf("exit after SIGTERM: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("server did not stop on SIGTERM")
	}
}

// killServer ends a server with SIGKILL: no shutdown code runs.
func killServer(t *testing.T, s *server) {
	t.Helper()
	if err := s.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-s.done
}

// storedID is an instance id as the store keeps it in an id column
// (migration 0005; sqlite.EncodeID).
func storedID(id string) any { return sqlite.EncodeID(id) }

// eraseInstance deletes every row of an instance from the stopped server's
// SQLite file, as a careless operator or a broken restore would.
func eraseInstance(t *testing.T, db, id string) {
	t.Helper()
	conn, err := sql.Open("sqlite", "file:"+db+"?_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	tx, err := conn.Begin()
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`DELETE FROM waits WHERE COALESCE(instance_id, substr(id, 1, 16)) = ?`,
		`DELETE FROM instance_parts WHERE instance_seq = (SELECT seq FROM instances WHERE id = ?)`,
		`DELETE FROM facts WHERE instance_seq = (SELECT seq FROM instances WHERE id = ?)`,
		`DELETE FROM incidents WHERE instance_id = ?`,
		`DELETE FROM instances WHERE id = ?`,
	} {
		if _, err := tx.Exec(q, storedID(id)); err != nil {
			tx.Rollback()
			t.Fatalf("%s: %v", q, err)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := conn.QueryRow(`SELECT count(*) FROM instances WHERE id = ?`, storedID(id)).Scan(&n); err != nil || n != 0 {
		t.Fatalf("instance %s still stored (%d, %v)", id, n, err)
	}
}

// TestCrashWithCallersWaiting kills the server (SIGKILL) while callers wait
// on children at two depths, some of them with a child that has just ended,
// restarts it on the same file, finishes every grandchild through the API
// and checks that every caller resumed exactly once.
func TestCrashWithCallersWaiting(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs the server binary")
	}
	bin := buildBinary(t)
	db := filepath.Join(t.TempDir(), "gobpm.db")
	s := startServer(t, bin, db)
	deployLevels(t, s.base)

	const n = 4
	var as []string
	for i := 0; i < n; i++ {
		as = append(as, startA(t, s.base))
	}
	tasks := openTasks(t, s.base, "")
	if len(tasks) != 2*n {
		t.Fatalf("%d open tasks before the crash, want %d: %v", len(tasks), 2*n, tasks)
	}
	// One C task completes before the crash. Four more completions are sent
	// at once and the process is killed as soon as the first is
	// acknowledged: the others die anywhere between the child's commit and
	// its callers' (the outcome of an unacknowledged one is unknown). The
	// remaining tasks are untouched.
	completed := map[string]bool{}
	first := tasks[0]["id"].(string)
	completeTask(t, s.base, first)
	completed[first] = true
	type ack struct {
		id string
		ok bool
	}
	acks := make(chan ack, 4)
	var wg sync.WaitGroup
	for _, task := range tasks[1:5] {
		id := task["id"].(string)
		wg.Add(1)
		go func() {
			defer wg.Done()
			req, _ := http.NewRequest("POST", s.base+"/api/v1/tasks/"+id+"/complete", strings.NewReader(`{}`))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("X-Gobpm-User", "pat")
			resp, err := http.DefaultClient.Do(req)
			if err == nil {
				resp.Body.Close()
			}
			acks <- ack{id, err == nil && resp.StatusCode == http.StatusNoContent}
		}()
	}
	a := <-acks
	killServer(t, s)
	wg.Wait()
	close(acks)
	for ; a.id != ""; a = <-acks {
		if a.ok {
			completed[a.id] = true
		}
	}

	s2 := startServer(t, bin, db)
	left := openTasks(t, s2.base, "")
	if len(left) > 2*n-len(completed) || len(left) < 2*n-5 {
		t.Errorf("%d open tasks after the crash, want %d to %d: %v", len(left), 2*n-5, 2*n-len(completed), left)
	}
	t.Logf("%d of 5 completions acknowledged before the kill; %d tasks open after the restart", len(completed), len(left))
	for _, task := range left {
		id := task["id"].(string)
		if completed[id] {
			t.Errorf("task %s completed before the crash is open again", id)
			continue
		}
		completeTask(t, s2.base, id)
	}

	for i, a := range as {
		var inst map[string]any
		if !t.Run(fmt.Sprintf("await A%d", i), func(t *testing.T) { inst = awaitStatus(t, s2.base, a, "completed") }) {
			t.Fatalf("caller %s did not resume after the restart (every grandchild task is done): %v", a, instance(t, s2.base, a))
		}
		if len(inst["incidents"].([]any)) != 0 {
			t.Errorf("A %s: incidents %v", a, inst["incidents"])
		}
		checkResumedOnce(t, s2.base, a, []string{"callB1", "callB2"})
		for _, b := range childrenOf(t, s2.base, a) {
			bid := b["id"].(string)
			if b["status"] != "completed" {
				t.Errorf("B %s of %s is %v, want completed", bid, a, b["status"])
			}
			checkResumedOnce(t, s2.base, bid, []string{"callC"})
			for _, c := range childrenOf(t, s2.base, bid) {
				if c["status"] != "completed" {
					t.Errorf("C %s of %s is %v, want completed", c["id"], bid, c["status"])
				}
			}
		}
	}
	// Nothing was launched twice: exactly 2n B and 2n C instances exist.
	for _, key := range []string{"levelA", "levelB", "levelC"} {
		want := 2 * n
		if key == "levelA" {
			want = n
		}
		_, page := get(t, s2.base+"/api/v1/instances?limit=500&processKey="+key)
		if got := len(page["items"].([]any)); got != want {
			t.Errorf("%d %s instances, want %d", got, key, want)
		}
	}
	if left := openTasks(t, s2.base, ""); len(left) != 0 {
		t.Errorf("open tasks at the end: %v", left)
	}
}

// checkResumedOnce checks a caller's history: each call node started one
// child and saw it end exactly once (one call-ended fact per call), and the
// children the caller lists are exactly those, completed.
func checkResumedOnce(t *testing.T, base, caller string, nodes []string) {
	t.Helper()
	facts := historyOf(t, base, caller)
	started, startedChild := callFacts(facts, "call-started")
	ended, endedChild := callFacts(facts, "call-ended")
	for _, node := range nodes {
		if started[node] != 1 || ended[node] != 1 {
			t.Errorf("caller %s at %s: %d call-started, %d call-ended facts, want 1 and 1", caller, node, started[node], ended[node])
		}
	}
	kids := childrenOf(t, base, caller)
	if len(kids) != len(nodes) {
		t.Errorf("caller %s has %d children, want %d: %v", caller, len(kids), len(nodes), kids)
	}
	for _, k := range kids {
		id := k["id"].(string)
		if startedChild[id] != 1 || endedChild[id] != 1 {
			t.Errorf("caller %s, child %s: %d call-started, %d call-ended facts, want 1 and 1", caller, id, startedChild[id], endedChild[id])
		}
	}
}

// TestRestartWithChildMissing stops the server, deletes a child's rows while
// its caller waits on it, and restarts: the caller fails loudly with a
// child-missing incident naming the child and launches no new child.
func TestRestartWithChildMissing(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs the server binary")
	}
	bin := buildBinary(t)
	db := filepath.Join(t.TempDir(), "gobpm.db")
	s := startServer(t, bin, db)
	deployLevels(t, s.base)
	a := startA(t, s.base)
	b1 := childByNode(t, s.base, a, "callB1")
	b2 := childByNode(t, s.base, a, "callB2")
	c1 := childByNode(t, s.base, b1, "callC")
	stopServer(t, s)
	eraseInstance(t, db, c1)

	for round := 1; round <= 2; round++ { // a second restart changes nothing
		s2 := startServer(t, bin, db)
		if code, body := get(t, s2.base+"/api/v1/instances/"+c1); code != http.StatusNotFound {
			t.Fatalf("round %d: erased child %s: %d %v", round, c1, code, body)
		}
		inst := awaitStatus(t, s2.base, b1, "failed")
		_, incs := get(t, s2.base+"/api/v1/incidents?instanceId="+b1)
		items := incs["items"].([]any)
		if len(items) != 1 {
			t.Fatalf("round %d: caller %s has %d open incidents, want 1: %v", round, b1, len(items), incs)
		}
		in := items[0].(map[string]any)
		if in["kind"] != "child-missing" || in["nodeId"] != "callC" || !strings.Contains(fmt.Sprint(in["message"]), c1) {
			t.Errorf("round %d: incident %v, want kind child-missing at callC naming %s", round, in, c1)
		}
		if len(inst["incidents"].([]any)) != 1 {
			t.Errorf("round %d: instance view incidents %v", round, inst["incidents"])
		}
		// Never a silent re-launch: no child of b1 exists, one call was ever started.
		if kids := childrenOf(t, s2.base, b1); len(kids) != 0 {
			t.Errorf("round %d: caller %s has children after the restart: %v", round, b1, kids)
		}
		if started, _ := callFacts(historyOf(t, s2.base, b1), "call-started"); started["callC"] != 1 {
			t.Errorf("round %d: caller %s started callC %d times, want 1", round, b1, started["callC"])
		}
		_, cs := get(t, s2.base+"/api/v1/instances?limit=500&processKey=levelC")
		if got := len(cs["items"].([]any)); got != 1 {
			t.Errorf("round %d: %d levelC instances, want 1 (the other branch's)", round, got)
		}
		// The top caller still waits on both Bs; the untouched branch is unaffected.
		if st := instance(t, s2.base, a)["status"]; st != "running" {
			t.Errorf("round %d: top caller %s is %v, want running", round, a, st)
		}
		if st := instance(t, s2.base, b2)["status"]; st != "running" {
			t.Errorf("round %d: sibling %s is %v, want running", round, b2, st)
		}
		stopServer(t, s2)
	}
}

// TestRestartWithCallerMissing stops the server, deletes a caller's rows
// while its child waits, and restarts: the child is stopped for good with
// the classified error gobpm.call.orphaned and no task left open.
func TestRestartWithCallerMissing(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs the server binary")
	}
	bin := buildBinary(t)
	db := filepath.Join(t.TempDir(), "gobpm.db")
	s := startServer(t, bin, db)
	deployLevels(t, s.base)
	a := startA(t, s.base)
	b1 := childByNode(t, s.base, a, "callB1")
	c1 := childByNode(t, s.base, b1, "callC")
	tasks := openTasks(t, s.base, c1)
	if len(tasks) != 1 {
		t.Fatalf("child %s: %d open tasks, want 1: %v", c1, len(tasks), tasks)
	}
	task := tasks[0]["id"].(string)
	stopServer(t, s)
	eraseInstance(t, db, b1)

	for round := 1; round <= 2; round++ { // a second restart changes nothing
		s2 := startServer(t, bin, db)
		inst := awaitStatus(t, s2.base, c1, "failed")
		if tr := inst["tracks"].([]any); len(tr) != 0 {
			t.Errorf("round %d: orphan %s keeps tracks %v", round, c1, tr)
		}
		if open := openTasks(t, s2.base, c1); len(open) != 0 {
			t.Errorf("round %d: orphan %s keeps open tasks %v", round, c1, open)
		}
		if code, body := do(t, "POST", s2.base+"/api/v1/tasks/"+task+"/complete", "pat", "", `{}`); code == http.StatusNoContent {
			t.Errorf("round %d: the orphan's task %s could still be completed: %v", round, task, body)
		}
		failed := 0
		for _, f := range historyOf(t, s2.base, c1) {
			if f["kind"] != "instance-failed" {
				continue
			}
			failed++
			d, _ := f["detail"].(map[string]any)
			if d["errorCode"] != "gobpm.call.orphaned" {
				t.Errorf("round %d: instance-failed detail %v, want errorCode gobpm.call.orphaned", round, f["detail"])
			}
		}
		if failed != 1 {
			t.Errorf("round %d: orphan %s has %d instance-failed facts, want 1", round, c1, failed)
		}
		// The top caller, whose child b1 is gone, fails loudly too.
		awaitStatus(t, s2.base, a, "failed")
		_, incs := get(t, s2.base+"/api/v1/incidents?instanceId="+a)
		items := incs["items"].([]any)
		if len(items) != 1 || items[0].(map[string]any)["kind"] != "child-missing" || !strings.Contains(fmt.Sprint(items[0].(map[string]any)["message"]), b1) {
			t.Errorf("round %d: top caller %s incidents %v, want one child-missing naming %s", round, a, incs, b1)
		}
		if kids := childrenOf(t, s2.base, a); len(kids) != 1 {
			t.Errorf("round %d: top caller %s has %d children, want 1 (b2; b1 not re-launched): %v", round, a, len(kids), kids)
		}
		stopServer(t, s2)
	}
}

// TestRestartHandsOverEndedChild rebuilds, deterministically, the state a
// crash leaves between a child's last commit and its caller's: the child
// has ended but its caller (and the caller's caller) still await it. The
// rows of the two callers are put back from a snapshot taken before the
// child ended. At start-up the runtime must hand the outcome over, once.
func TestRestartHandsOverEndedChild(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs the server binary")
	}
	bin := buildBinary(t)
	dir := t.TempDir()
	db, snap := filepath.Join(dir, "gobpm.db"), filepath.Join(dir, "snapshot.db")
	s := startServer(t, bin, db)
	deployLevels(t, s.base)
	a := startA(t, s.base)
	b1 := childByNode(t, s.base, a, "callB1")
	b2 := childByNode(t, s.base, a, "callB2")
	c1 := childByNode(t, s.base, b1, "callC")
	c2 := childByNode(t, s.base, b2, "callC")
	stopServer(t, s)
	sqlExec(t, db, `VACUUM INTO ?`, snap)

	s = startServer(t, bin, db)
	completeTask(t, s.base, openTasks(t, s.base, c1)[0]["id"].(string))
	awaitStatus(t, s.base, b1, "completed")
	stopServer(t, s)
	// c1 stays completed; a and b1 go back to awaiting their children.
	restoreInstances(t, db, snap, a, b1)
	if st := sqlStatus(t, db, b1); st != "running" {
		t.Fatalf("restored b1 is %s", st)
	}
	if st := sqlStatus(t, db, c1); st != "completed" {
		t.Fatalf("c1 is %s", st)
	}

	for round := 1; round <= 2; round++ { // a second restart changes nothing
		s2 := startServer(t, bin, db)
		if !t.Run(fmt.Sprintf("round %d await b1", round), func(t *testing.T) { awaitStatus(t, s2.base, b1, "completed") }) {
			t.Fatalf("caller %s was not handed the outcome of its ended child %s at start-up: %v", b1, c1, instance(t, s2.base, b1))
		}
		checkResumedOnce(t, s2.base, b1, []string{"callC"})
		if round == 1 {
			if st := instance(t, s2.base, a)["status"]; st != "running" {
				t.Fatalf("top caller %s is %v while b2 still waits", a, st)
			}
			completeTask(t, s2.base, openTasks(t, s2.base, c2)[0]["id"].(string))
		}
		awaitStatus(t, s2.base, a, "completed")
		checkResumedOnce(t, s2.base, a, []string{"callB1", "callB2"})
		_, cs := get(t, s2.base+"/api/v1/instances?limit=500&processKey=levelC")
		if got := len(cs["items"].([]any)); got != 2 {
			t.Errorf("round %d: %d levelC instances, want 2", round, got)
		}
		stopServer(t, s2)
	}
}

// sqlExec runs one statement on the stopped server's file.
func sqlExec(t *testing.T, db, q string, args ...any) {
	t.Helper()
	conn, err := sql.Open("sqlite", "file:"+db+"?_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.Exec(q, args...); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}

// sqlStatus reads an instance's stored status.
func sqlStatus(t *testing.T, db, id string) string {
	t.Helper()
	conn, err := sql.Open("sqlite", "file:"+db+"?_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	var st string
	if err := conn.QueryRow(`SELECT status FROM instances WHERE id = ?`, storedID(id)).Scan(&st); err != nil {
		t.Fatalf("status of %s: %v", id, err)
	}
	return st
}

// restoreInstances replaces every row of the instances in db by their rows
// in the snapshot file.
func restoreInstances(t *testing.T, db, snap string, ids ...string) {
	t.Helper()
	conn, err := sql.Open("sqlite", "file:"+db+"?_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetMaxOpenConns(1) // ATTACH is per connection
	if _, err := conn.Exec(`ATTACH DATABASE ? AS snap`, snap); err != nil {
		t.Fatal(err)
	}
	tx, err := conn.Begin()
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range ids {
		for _, q := range []string{
			`DELETE FROM main.waits WHERE COALESCE(instance_id, substr(id, 1, 16)) = ?`,
			`DELETE FROM main.instance_parts WHERE instance_seq = (SELECT seq FROM main.instances WHERE id = ?)`,
			`DELETE FROM main.facts WHERE instance_seq = (SELECT seq FROM main.instances WHERE id = ?)`,
			`DELETE FROM main.incidents WHERE instance_id = ?`,
			`DELETE FROM main.instances WHERE id = ?`,
			`INSERT INTO main.instances SELECT * FROM snap.instances WHERE id = ?`,
			`INSERT INTO main.instance_parts SELECT * FROM snap.instance_parts WHERE instance_seq = (SELECT seq FROM snap.instances WHERE id = ?)`,
			`INSERT INTO main.waits SELECT * FROM snap.waits WHERE COALESCE(instance_id, substr(id, 1, 16)) = ?`,
			`INSERT INTO main.facts SELECT * FROM snap.facts WHERE instance_seq = (SELECT seq FROM snap.instances WHERE id = ?)`,
			`INSERT INTO main.incidents SELECT * FROM snap.incidents WHERE instance_id = ?`,
		} {
			if _, err := tx.Exec(q, storedID(id)); err != nil {
				tx.Rollback()
				t.Fatalf("%s (%s): %v", q, id, err)
			}
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
}
