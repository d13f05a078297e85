package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gobpm/gobpm/internal/runtime"
)

// repoFile returns the path of a file relative to the repository root.
func repoFile(parts ...string) string {
	return filepath.Join(append([]string{"..", ".."}, parts...)...)
}

func post(t *testing.T, url, ctype string, body []byte) (int, map[string]any) {
	t.Helper()
	resp, err := http.Post(url, ctype, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	return resp.StatusCode, decode(t, resp.Body)
}

func get(t *testing.T, url string) (int, map[string]any) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	return resp.StatusCode, decode(t, resp.Body)
}

func decode(t *testing.T, r io.Reader) map[string]any {
	t.Helper()
	var m map[string]any
	dec := json.NewDecoder(r)
	dec.UseNumber()
	if err := dec.Decode(&m); err != nil {
		t.Fatalf("decode: %v", err)
	}
	return m
}

// TestMainEndToEnd runs the README walk-through against Main on a free
// port, on each database driver.
func TestMainEndToEnd(t *testing.T) {
	t.Parallel()
	for _, d := range drivers {
		t.Run(d.name, func(t *testing.T) {
			t.Parallel()
			cfg, err := ParseConfig([]string{"--addr", "127.0.0.1:0", "--db", d.db(t)}, func(string) string { return "" }, io.Discard)
			if err != nil {
				t.Fatal(err)
			}
			m := NewMain(cfg, slog.New(slog.DiscardHandler))
			if err := m.Run(context.Background()); err != nil {
				t.Fatal(err)
			}
			defer m.Close()
			base := "http://" + m.Addr()

			model, err := os.ReadFile(repoFile("examples", "order-approval.bpmn"))
			if err != nil {
				t.Fatal(err)
			}
			code, dep := post(t, base+"/api/v1/deployments", "application/xml", model)
			if code != http.StatusCreated {
				t.Fatalf("deploy: %d %v", code, dep)
			}
			code, inst := post(t, base+"/api/v1/processes/order-approval/instances", "application/json",
				[]byte(`{"businessKey":"order-42","variables":{"quantity":3,"unitPrice":499.9}}`))
			if code != http.StatusCreated {
				t.Fatalf("start: %d %v", code, inst)
			}
			if inst["status"] != "completed" {
				t.Fatalf("status = %v", inst["status"])
			}
			vars := inst["variables"].(map[string]any)
			if vars["total"] != json.Number("1499.7") || vars["risk"] != "medium" || vars["approved"] != true {
				t.Errorf("variables = %v", vars)
			}
			code, again := get(t, fmt.Sprintf("%s/api/v1/instances/%s", base, inst["id"]))
			if code != http.StatusOK || again["status"] != "completed" || again["businessKey"] != "order-42" {
				t.Errorf("get: %d %v", code, again)
			}

			bad, err := os.ReadFile(repoFile("examples", "crossing-flow.bpmn"))
			if err != nil {
				t.Fatal(err)
			}
			code, prob := post(t, base+"/api/v1/deployments", "application/xml", bad)
			if code != http.StatusUnprocessableEntity {
				t.Fatalf("crossing flow: %d %v", code, prob)
			}
			if !strings.Contains(fmt.Sprint(prob["errors"]), "jumpIn") {
				t.Errorf("422 does not name the flow: %v", prob)
			}
		})
	}
}

func TestParseConfigEnvironment(t *testing.T) {
	t.Parallel()
	env := map[string]string{"GOBPM_ADDR": "127.0.0.1:9999", "GOBPM_DB": "/tmp/x.db"}
	cfg, err := ParseConfig(nil, func(k string) string { return env[k] }, io.Discard)
	if err != nil || cfg.Addr != "127.0.0.1:9999" || cfg.DB != "/tmp/x.db" || cfg.Synchronous != "FULL" {
		t.Fatalf("cfg = %+v, err %v", cfg, err)
	}
	if cfg, _ := ParseConfig([]string{"--secure-cookies"}, func(string) string { return "" }, io.Discard); !cfg.SecureCookies {
		t.Error("--secure-cookies ignored")
	}
	if cfg, _ := ParseConfig(nil, func(string) string { return "" }, io.Discard); cfg.StateCache != runtime.DefaultStateCacheWeight {
		t.Errorf("default state cache = %d", cfg.StateCache)
	}
	if cfg, err := ParseConfig(nil, func(k string) string { return map[string]string{"GOBPM_STATE_CACHE": "-1"}[k] }, io.Discard); err != nil || cfg.StateCache != -1 {
		t.Errorf("GOBPM_STATE_CACHE=-1: %d, %v", cfg.StateCache, err)
	}
	if _, err := ParseConfig(nil, func(k string) string { return map[string]string{"GOBPM_STATE_CACHE": "lots"}[k] }, io.Discard); err == nil {
		t.Error("GOBPM_STATE_CACHE=lots accepted")
	}
	cfg, _ = ParseConfig([]string{"--addr", "127.0.0.1:1"}, func(k string) string { return env[k] }, io.Discard)
	if cfg.Addr != "127.0.0.1:1" {
		t.Fatalf("flag does not win over environment: %+v", cfg)
	}
	if _, err := ParseConfig([]string{"--nope"}, func(string) string { return "" }, io.Discard); err == nil {
		t.Fatal("unknown flag accepted")
	}
	for _, addr := range []string{"0.0.0.0:8080", ":8080", "192.168.1.5:80", "[::]:80"} {
		if _, err := ParseConfig([]string{"--addr", addr}, func(string) string { return "" }, io.Discard); err == nil {
			t.Errorf("%s accepted with --auth none", addr)
		}
		// --allow-remote no longer opens a network without authentication.
		if _, err := ParseConfig([]string{"--addr", addr, "--allow-remote"}, func(string) string { return "" }, io.Discard); err == nil ||
			!strings.Contains(err.Error(), "--auth builtin") {
			t.Errorf("%s with --allow-remote and --auth none: %v, want a refusal naming --auth builtin", addr, err)
		}
		if _, err := ParseConfig([]string{"--addr", addr, "--auth", "builtin"}, func(string) string { return "" }, io.Discard); err != nil {
			t.Errorf("%s with --auth builtin: %v", addr, err)
		}
	}
	for _, addr := range []string{"127.0.0.1:0", "localhost:80", "[::1]:80"} {
		if _, err := ParseConfig([]string{"--addr", addr}, func(string) string { return "" }, io.Discard); err != nil {
			t.Errorf("%s refused: %v", addr, err)
		}
	}
}

// server is a gobpm-web process started by a test.
type server struct {
	cmd  *exec.Cmd
	base string
	done chan error
}

var listening = regexp.MustCompile(`msg=listening addr=(\S+)`)

// buildBinary compiles the server once per test into a temp dir.
func buildBinary(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "gobpm-web")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	if err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	return bin
}

// startServer starts the binary on a free loopback port with the
// database db and extra flags, and returns once it reports its address.
func startServer(t *testing.T, bin, db string, extra ...string) *server {
	t.Helper()
	return startServerEnv(t, bin, db, nil, extra...)
}

// startServerEnv is startServer with env added to the server's environment.
func startServerEnv(t *testing.T, bin, db string, env []string, extra ...string) *server {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"--addr", "127.0.0.1:0", "--db", db}, extra...)...)
	if env != nil {
		cmd.Env = append(os.Environ(), env...)
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &server{cmd: cmd, done: make(chan error, 1)}
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if m := listening.FindStringSubmatch(sc.Text()); m != nil {
				addr <- m[1]
			}
		}
	}()
	go func() { s.done <- cmd.Wait() }()
	select {
	case a := <-addr:
		s.base = "http://" + a
	case err := <-s.done:
		t.Fatalf("server exited early: %v", err)
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		t.Fatal("server did not report its address")
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			<-s.done
		}
	})
	return s
}

// TestCrashAndResume kills the real server process with SIGKILL while
// instances wait, restarts it on the same database (each driver), and
// checks that every acknowledged instance is back with its tracks and
// scopes.
func TestCrashAndResume(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs the server binary")
	}
	bin := buildBinary(t)
	for _, d := range drivers {
		t.Run(d.name, func(t *testing.T) {
			t.Parallel()
			dbPath := d.db(t)
			s := startServer(t, bin, dbPath)
			model, err := os.ReadFile(filepath.Join("testdata", "reentry.bpmn"))
			if err != nil {
				t.Fatal(err)
			}
			if code, body := post(t, s.base+"/api/v1/deployments", "application/xml", model); code != http.StatusCreated {
				t.Fatalf("deploy: %d %v", code, body)
			}
			var ids []string
			for i := 0; i < 20; i++ {
				code, inst := post(t, s.base+"/api/v1/processes/reentry/instances", "application/json", []byte(fmt.Sprintf(`{"variables":{"n":%d}}`, i)))
				if code != http.StatusCreated || inst["status"] != "running" {
					t.Fatalf("start %d: %d %v", i, code, inst)
				}
				ids = append(ids, inst["id"].(string))
			}
			if err := s.cmd.Process.Signal(syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			<-s.done

			s2 := startServer(t, bin, dbPath)
			for i, id := range ids {
				code, inst := get(t, s2.base+"/api/v1/instances/"+id)
				if code != http.StatusOK || inst["status"] != "running" {
					t.Fatalf("instance %s after crash: %d %v", id, code, inst)
				}
				if n := len(inst["tracks"].([]any)); n != 4 {
					t.Errorf("instance %s: %d tracks after crash, want 4", id, n)
				}
				if n := len(inst["scopes"].([]any)); n != 3 {
					t.Errorf("instance %s: %d scopes after crash, want 3", id, n)
				}
				if v := inst["variables"].(map[string]any)["n"]; v != json.Number(fmt.Sprint(i)) {
					t.Errorf("instance %s: n = %v", id, v)
				}
			}
			code, inst := post(t, s2.base+"/api/v1/instances/"+ids[0]+"/cancel", "application/json", nil)
			if code != http.StatusOK || inst["status"] != "terminated" {
				t.Fatalf("cancel after restart: %d %v", code, inst)
			}
			// Graceful shutdown on SIGTERM exits cleanly.
			if err := s2.cmd.Process.Signal(syscall.SIGTERM); err != nil {
				t.Fatal(err)
			}
			select {
			case err := <-s2.done:
				if err != nil {
					t.Fatalf("exit after SIGTERM: %v", err)
				}
			case <-time.After(30 * time.Second):
				t.Fatal("server did not stop on SIGTERM")
			}
		})
	}
}

// do sends a JSON request with optional identity headers.
func do(t *testing.T, method, url, user, groups string, body string) (int, map[string]any) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if user != "" {
		req.Header.Set("X-Gobpm-User", user)
	}
	if groups != "" {
		req.Header.Set("X-Gobpm-Groups", groups)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusNoContent {
		return resp.StatusCode, nil
	}
	return resp.StatusCode, decode(t, resp.Body)
}

// awaitStatus polls an instance until it has the status (the real timer
// scheduler runs in the server); it gives up after a generous deadline.
func awaitStatus(t *testing.T, base, id, status string) map[string]any {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		_, inst := get(t, base+"/api/v1/instances/"+id)
		if inst["status"] == status || time.Now().After(deadline) {
			if inst["status"] != status {
				t.Fatalf("instance %s is %v, want %s", id, inst["status"], status)
			}
			return inst
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// workerStory drives the fulfilment model as a curl worker would: activate
// and complete the job, claim and complete the user task; the timer then
// fires when the story moves the server's manual clock (--dev --clock
// manual) past it, within that call: no waiting.
func workerStory(t *testing.T, base string) {
	t.Helper()
	model, err := os.ReadFile(filepath.Join("testdata", "fulfilment-fast.bpmn"))
	if err != nil {
		t.Fatal(err)
	}
	if code, body := post(t, base+"/api/v1/deployments", "application/xml", model); code != http.StatusCreated {
		t.Fatalf("deploy: %d %v", code, body)
	}
	code, inst := do(t, "POST", base+"/api/v1/processes/fulfilment/instances", "", "", `{"variables":{"orderId":"o-1"}}`)
	if code != http.StatusCreated || inst["status"] != "running" {
		t.Fatalf("start: %d %v", code, inst)
	}
	id := inst["id"].(string)
	code, act := do(t, "POST", base+"/api/v1/jobs/activate", "", "", `{"type":"reserve-stock","worker":"curl","maxJobs":1,"lockDurationMs":60000,"requestTimeoutMs":10000}`)
	jobs, _ := act["jobs"].([]any)
	if code != http.StatusOK || len(jobs) != 1 {
		t.Fatalf("activate: %d %v", code, act)
	}
	key := jobs[0].(map[string]any)["key"].(string)
	token := jobs[0].(map[string]any)["lockToken"].(string)
	if code, body := do(t, "POST", base+"/api/v1/jobs/"+key+"/complete", "", "", `{"variables":{"reserved":true}}`); code != http.StatusBadRequest || body["field"] != "lockToken" {
		t.Fatalf("complete without the lock token: %d %v", code, body)
	}
	if code, body := do(t, "POST", base+"/api/v1/jobs/"+key+"/complete", "", "", `{"lockToken":"`+token+`","variables":{"reserved":true}}`); code != http.StatusNoContent {
		t.Fatalf("complete job: %d %v", code, body)
	}
	if code, _ := do(t, "POST", base+"/api/v1/jobs/"+key+"/complete", "", "", `{"lockToken":"`+token+`"}`); code != http.StatusNotFound {
		t.Fatalf("stale complete: %d", code)
	}
	code, list := do(t, "GET", base+"/api/v1/tasks?candidateGroup=warehouse&instanceId="+id, "", "", "")
	items, _ := list["items"].([]any)
	if code != http.StatusOK || len(items) != 1 {
		t.Fatalf("tasks: %d %v", code, list)
	}
	task := items[0].(map[string]any)["id"].(string)
	if code, _ := do(t, "POST", base+"/api/v1/tasks/"+task+"/claim", "mallory", "sales", ""); code != http.StatusForbidden {
		t.Fatalf("claim by a non-candidate: %d", code)
	}
	if code, body := do(t, "POST", base+"/api/v1/tasks/"+task+"/claim", "pat", "warehouse", ""); code != http.StatusOK {
		t.Fatalf("claim: %d %v", code, body)
	}
	if code, body := do(t, "POST", base+"/api/v1/tasks/"+task+"/complete", "pat", "warehouse", `{"variables":{"parcel":"p-9"}}`); code != http.StatusNoContent {
		t.Fatalf("complete task: %d %v", code, body)
	}
	if code, c := post(t, base+"/api/v1/clock", "application/json", []byte(`{"advanceMs":1000}`)); code != http.StatusOK || c["timersFired"] != json.Number("1") {
		t.Fatalf("advance the clock past the timer: %d %v", code, c)
	}
	_, done := get(t, base+"/api/v1/instances/"+id)
	if done["status"] != "completed" {
		t.Fatalf("after the clock passed the timer: %v", done["status"])
	}
	vars := done["variables"].(map[string]any)
	if vars["reserved"] != true || vars["parcel"] != "p-9" {
		t.Fatalf("variables %v", vars)
	}
}

// TestWorkerOverHTTP is the wait-state issue's "done when" against Main,
// on a manual clock: the timer fires when the story moves the clock, not
// after a real wait.
func TestWorkerOverHTTP(t *testing.T) {
	t.Parallel()
	cfg, err := ParseConfig([]string{"--addr", "127.0.0.1:0", "--db", filepath.Join(t.TempDir(), "gobpm.db"), "--dev", "--clock", "manual"}, func(string) string { return "" }, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	m := NewMain(cfg, slog.New(slog.DiscardHandler))
	if err := m.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	workerStory(t, "http://"+m.Addr())
}

// TestCrashKeepsOutstandingWork kills the server with a job locked, a task
// claimed and a timer pending; after the restart each still completes.
func TestCrashKeepsOutstandingWork(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs the server binary")
	}
	bin := buildBinary(t)
	db := filepath.Join(t.TempDir(), "gobpm.db")
	s := startServer(t, bin, db)
	model, err := os.ReadFile(filepath.Join("testdata", "fulfilment-fast.bpmn"))
	if err != nil {
		t.Fatal(err)
	}
	if code, body := post(t, s.base+"/api/v1/deployments", "application/xml", model); code != http.StatusCreated {
		t.Fatalf("deploy: %d %v", code, body)
	}
	var ids []string
	for i := 0; i < 3; i++ {
		_, inst := do(t, "POST", s.base+"/api/v1/processes/fulfilment/instances", "", "", `{}`)
		ids = append(ids, inst["id"].(string))
	}
	_, act := do(t, "POST", s.base+"/api/v1/jobs/activate", "", "", `{"type":"reserve-stock","worker":"w","maxJobs":3,"lockDurationMs":600000}`)
	jobs := act["jobs"].([]any)
	if len(jobs) != 3 {
		t.Fatalf("activate: %v", act)
	}
	key := func(i int) string { return jobs[i].(map[string]any)["key"].(string) }
	token := func(i int) string { return `{"lockToken":"` + jobs[i].(map[string]any)["lockToken"].(string) + `"}` }
	// Instance 1: job done, task claimed. Instance 2: task done, timer pending. Instance 0: job locked.
	for _, i := range []int{1, 2} {
		if code, _ := do(t, "POST", s.base+"/api/v1/jobs/"+key(i)+"/complete", "", "", token(i)); code != http.StatusNoContent {
			t.Fatalf("complete %d: %d", i, code)
		}
	}
	taskOf := func(base, id string) string {
		_, list := do(t, "GET", base+"/api/v1/tasks?instanceId="+id, "", "", "")
		items := list["items"].([]any)
		if len(items) != 1 {
			t.Fatalf("tasks of %s: %v", id, list)
		}
		return items[0].(map[string]any)["id"].(string)
	}
	t1, t2 := taskOf(s.base, ids[1]), taskOf(s.base, ids[2])
	for _, task := range []string{t1, t2} {
		if code, _ := do(t, "POST", s.base+"/api/v1/tasks/"+task+"/claim", "pat", "warehouse", ""); code != http.StatusOK {
			t.Fatalf("claim: %d", code)
		}
	}
	// Kill right after completing t2: its timer (0.2 s) comes due while the server is down.
	if code, _ := do(t, "POST", s.base+"/api/v1/tasks/"+t2+"/complete", "pat", "", `{}`); code != http.StatusNoContent {
		t.Fatalf("complete t2: %d", code)
	}
	if err := s.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-s.done

	s2 := startServer(t, bin, db)
	awaitStatus(t, s2.base, ids[2], "completed") // the timer due while down fired at start-up
	// The job key and lock token handed out before the crash still hold.
	if code, body := do(t, "POST", s2.base+"/api/v1/jobs/"+key(0)+"/complete", "", "", token(0)); code != http.StatusNoContent {
		t.Fatalf("locked job after restart: %d %v", code, body)
	}
	_, task := do(t, "GET", s2.base+"/api/v1/tasks/"+t1, "", "", "")
	if task["assignee"] != "pat" {
		t.Fatalf("claim lost in the crash: %v", task)
	}
	if code, _ := do(t, "POST", s2.base+"/api/v1/tasks/"+t1+"/complete", "pat", "", `{}`); code != http.StatusNoContent {
		t.Fatalf("complete t1 after restart: %d", code)
	}
	awaitStatus(t, s2.base, ids[1], "completed")
	t0 := taskOf(s2.base, ids[0])
	do(t, "POST", s2.base+"/api/v1/tasks/"+t0+"/claim", "pat", "warehouse", "")
	do(t, "POST", s2.base+"/api/v1/tasks/"+t0+"/complete", "pat", "", `{}`)
	awaitStatus(t, s2.base, ids[0], "completed")
}
