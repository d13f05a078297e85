package api_test

// These tests drive the job lock rules ("jobs belong to their
// worker") through the real router, the real runtime and a real SQLite
// file: the lock token activation answers, the identity it is bound to,
// the conflicts of a job not held, and signed job keys.

import (
	"context"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gobpm/gobpm/internal/api"
	"github.com/gobpm/gobpm/internal/clock"
	"github.com/gobpm/gobpm/internal/runtime"
	"github.com/gobpm/gobpm/internal/testdb"
)

// jobServer is one gobpm over a database (testdb): the router, and what a test
// needs to restart it over the same file.
type jobServer struct {
	*bundle
	path  string // the database (testdb.DSN)
	clock *clock.Manual
}

// setupJobServer opens a server over a new database (testdb). Instance
// and deployment ids come from a counter, so two servers started alike
// name their instances (and waits) alike.
func setupJobServer(t *testing.T) *jobServer {
	t.Helper()
	s := &jobServer{path: testdb.DSN(t), clock: newTestClock()}
	s.open(t)
	return s
}

// open (re)opens the server over its database.
func (s *jobServer) open(t *testing.T) {
	t.Helper()
	ctx := context.Background()
	db, err := testdb.Open(ctx, s.path)
	if err != nil {
		t.Fatal(err)
	}
	var n atomic.Int64
	newID := func() string { return fmt.Sprintf("01a23361-0000-7000-8000-%012d", n.Add(1)) }
	rt := runtime.New(db, runtime.Options{Now: s.clock.Now, NewID: newID})
	if _, err := rt.Resume(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = rt.Close(); _ = db.Close() })
	s.bundle = setup(t, rt, api.Options{})
}

// startWorker starts the worker process and returns the instance id.
func (s *jobServer) startWorker(t *testing.T) string {
	t.Helper()
	return startProcess(t, s.bundle, "worker", `{"n":1}`)
}

// activateAs activates up to 10 "work" jobs as user ("" for none).
func (s *jobServer) activateAs(t *testing.T, user, worker string, lockMs int) []map[string]any {
	t.Helper()
	body := fmt.Sprintf(`{"type":"work","worker":%q,"maxJobs":10,"lockDurationMs":%d}`, worker, lockMs)
	return jobsOf(t, s.as(user, "", "/api/v1/jobs/activate", body))
}

// waitKey returns the id the instance's waits show for its job.
func (s *jobServer) waitKey(t *testing.T, id string) map[string]any {
	t.Helper()
	for _, it := range s.get("/api/v1/instances/"+id+"/waits").wantStatus(t, http.StatusOK).items(t) {
		if w := it.(map[string]any); w["kind"] == "job" {
			return w
		}
	}
	t.Fatalf("instance %s shows no job", id)
	return nil
}

var (
	jobKeyRE    = regexp.MustCompile(`^(01a23361-0000-7000-8000-\d{12}-w\d{6})\.[a-z2-7]{16}$`)
	lockTokenRE = regexp.MustCompile(`^[a-z2-7]{26}$`)
)

func TestIntegrationJobLocks(t *testing.T) {
	t.Parallel()
	s := setupJobServer(t)
	deployTestdata(t, s.bundle, "worker.bpmn")

	t.Run("activation answers a signed key and a lock token", func(t *testing.T) {
		id := s.startWorker(t)
		job := s.activateAs(t, "", "w1", 60_000)[0]
		key := job["key"].(string)
		m := jobKeyRE.FindStringSubmatch(key)
		if m == nil || !strings.HasPrefix(m[1], id+"-") || !lockTokenRE.MatchString(job["lockToken"].(string)) {
			t.Fatalf("job = %v; want key <wait id>.<mac> and a 26-character token", job)
		}
		// The instance's waits show the same key, and nothing of the token.
		w := s.waitKey(t, id)
		if w["id"] != key || w["lockOwner"] != "w1" {
			t.Errorf("wait = %v, want id %s locked by w1", w, key)
		}
		for _, k := range []string{"lockToken", "lockTokenHash", "lockUser"} {
			if _, ok := w[k]; ok {
				t.Errorf("the wait shows %s: %v", k, w)
			}
		}
		s.postJSON("/api/v1/jobs/"+key+"/complete", withToken(job, ``)).noContent(t)
	})

	t.Run("every act needs the lock token", func(t *testing.T) {
		s.startWorker(t)
		job := s.activateAs(t, "", "w1", 60_000)[0]
		key := job["key"].(string)
		for _, act := range []struct{ path, rest string }{
			{"/complete", `"variables":{"a":1}`},
			{"/fail", `"retries":1`},
			{"/error", `"errorCode":"E"`},
			{"/extend", `"lockDurationMs":1000`},
		} {
			p := s.postJSON("/api/v1/jobs/"+key+act.path, `{`+act.rest+`}`).problem(t, http.StatusBadRequest, "invalid-request")
			if p.Field != "lockToken" {
				t.Errorf("%s without a token: field %q (%s), want lockToken", act.path, p.Field, p.Detail)
			}
			p = s.postJSON("/api/v1/jobs/"+key+act.path, `{"lockToken":"no token!",`+act.rest+`}`).problem(t, http.StatusBadRequest, "invalid-request")
			if p.Field != "lockToken" {
				t.Errorf("%s with a malformed token: field %q (%s), want lockToken", act.path, p.Field, p.Detail)
			}
			p = s.postJSON("/api/v1/jobs/"+key+act.path, `{"lockToken":"`+strings.Repeat("a", 26)+`",`+act.rest+`}`).problem(t, http.StatusConflict, "conflict")
			if !strings.Contains(p.Detail, "another activation") {
				t.Errorf("%s with a wrong token: %q", act.path, p.Detail)
			}
		}
		s.postJSON("/api/v1/jobs/"+key+"/complete", withToken(job, ``)).noContent(t)
	})

	t.Run("a job never activated cannot be acted on", func(t *testing.T) {
		id := s.startWorker(t)
		key := s.waitKey(t, id)["id"].(string)
		for _, act := range []struct{ path, rest string }{
			{"/complete", ``}, {"/fail", `,"retries":0`}, {"/error", `,"errorCode":"E"`}, {"/extend", `,"lockDurationMs":1000`},
		} {
			p := s.postJSON("/api/v1/jobs/"+key+act.path, `{"lockToken":"`+strings.Repeat("b", 26)+`"`+act.rest+`}`).problem(t, http.StatusConflict, "conflict")
			if !strings.Contains(p.Detail, "not activated") {
				t.Errorf("%s of a job never activated: %q, want it to say so", act.path, p.Detail)
			}
		}
		if st := instanceStatus(t, s.bundle, id); st != "running" {
			t.Errorf("status = %s", st)
		}
		job := oneOf(t, s.activateAs(t, "", "w1", 60_000), id)
		s.postJSON("/api/v1/jobs/"+key+"/complete", withToken(job, ``)).noContent(t)
	})

	t.Run("a job belongs to the user who activated it", func(t *testing.T) {
		id := s.startWorker(t)
		job := oneOf(t, s.activateAs(t, "ann", "w1", 60_000), id)
		key := job["key"].(string)
		for _, user := range []string{"bob", ""} {
			p := s.as(user, "", "/api/v1/jobs/"+key+"/complete", withToken(job, ``)).problem(t, http.StatusForbidden, "forbidden")
			if !strings.Contains(p.Detail, "another user") {
				t.Errorf("complete as %q: %q", user, p.Detail)
			}
			s.as(user, "", "/api/v1/jobs/"+key+"/extend", withToken(job, `"lockDurationMs":1000`)).problem(t, http.StatusForbidden, "forbidden")
		}
		s.as("ann", "", "/api/v1/jobs/"+key+"/extend", withToken(job, `"lockDurationMs":120000`)).noContent(t)
		s.as(" ann ", "", "/api/v1/jobs/"+key+"/complete", withToken(job, ``)).noContent(t)
	})

	t.Run("keys are not guessable: a bad mac is an unknown key", func(t *testing.T) {
		id := s.startWorker(t)
		job := oneOf(t, s.activateAs(t, "", "w1", 60_000), id)
		key := job["key"].(string)
		wait, _, _ := strings.Cut(key, ".")
		unknown := s.postJSON("/api/v1/jobs/"+id+"-w999999.aaaaaaaaaaaaaaaa/complete", withToken(job, ``)).problem(t, http.StatusNotFound, "not-found")
		for _, forged := range []string{wait, wait + ".aaaaaaaaaaaaaaaa", wait + ".", id + "-w000002." + strings.SplitN(key, ".", 2)[1]} {
			p := s.postJSON("/api/v1/jobs/"+forged+"/complete", withToken(job, ``)).problem(t, http.StatusNotFound, "not-found")
			if want := strings.ReplaceAll(unknown.Detail, id+"-w999999.aaaaaaaaaaaaaaaa", forged); p.Detail != want {
				t.Errorf("forged key %s: detail %q, want the unknown key's %q", forged, p.Detail, want)
			}
		}
		if st := instanceStatus(t, s.bundle, id); st != "running" {
			t.Errorf("a forged key moved the instance: %s", st)
		}
		s.postJSON("/api/v1/jobs/"+key+"/complete", withToken(job, ``)).noContent(t)
	})

	t.Run("an expired lock taken by another worker is lost", func(t *testing.T) {
		id := s.startWorker(t)
		w1 := oneOf(t, s.activateAs(t, "", "w1", 10_000), id)
		key := w1["key"].(string)
		s.clock.Advance(10 * time.Second)
		p := s.postJSON("/api/v1/jobs/"+key+"/extend", withToken(w1, `"lockDurationMs":1000`)).problem(t, http.StatusConflict, "conflict")
		if !strings.Contains(p.Detail, "expired") {
			t.Errorf("extend of an expired lock: %q", p.Detail)
		}
		w2 := oneOf(t, s.activateAs(t, "", "w2", 10_000), id)
		for _, act := range []struct{ path, rest string }{
			{"/complete", ``}, {"/fail", `"retries":0`}, {"/error", `"errorCode":"E"`}, {"/extend", `"lockDurationMs":1000`},
		} {
			s.postJSON("/api/v1/jobs/"+key+act.path, withToken(w1, act.rest)).problem(t, http.StatusConflict, "conflict")
		}
		s.postJSON("/api/v1/jobs/"+key+"/complete", withToken(w2, `"variables":{"by":"w2"}`)).noContent(t)
		s.postJSON("/api/v1/jobs/"+key+"/complete", withToken(w1, ``)).problem(t, http.StatusNotFound, "not-found")
	})

	t.Run("an expired lock nobody took still completes", func(t *testing.T) {
		id := s.startWorker(t)
		job := oneOf(t, s.activateAs(t, "ann", "w1", 10_000), id)
		s.clock.Advance(time.Hour)
		s.as("bob", "", "/api/v1/jobs/"+job["key"].(string)+"/complete", withToken(job, ``)).problem(t, http.StatusForbidden, "forbidden")
		s.as("ann", "", "/api/v1/jobs/"+job["key"].(string)+"/complete", withToken(job, `"variables":{"late":true}`)).noContent(t)
		inst := s.get("/api/v1/instances/"+id).wantStatus(t, http.StatusOK).object(t)
		if inst["variables"].(map[string]any)["late"] != true {
			t.Errorf("instance = %v", inst)
		}
	})
}

// oneOf returns the job of instance id among jobs.
func oneOf(t *testing.T, jobs []map[string]any, id string) map[string]any {
	t.Helper()
	for _, j := range jobs {
		if j["instanceId"] == id {
			return j
		}
	}
	t.Fatalf("no job of %s among %v", id, jobs)
	return nil
}

// TestIntegrationJobKeysBelongToTheirServer: two servers whose instances
// (and waits) have the same ids sign their job keys differently, so one's
// key is an unknown key to the other; a restart keeps the keys valid.
func TestIntegrationJobKeysBelongToTheirServer(t *testing.T) {
	t.Parallel()
	a, b := setupJobServer(t), setupJobServer(t)
	var jobs [2]map[string]any
	for i, s := range []*jobServer{a, b} {
		deployTestdata(t, s.bundle, "worker.bpmn")
		id := s.startWorker(t)
		jobs[i] = oneOf(t, s.activateAs(t, "", "w", 600_000), id)
	}
	keyA, keyB := jobs[0]["key"].(string), jobs[1]["key"].(string)
	waitA, macA, _ := strings.Cut(keyA, ".")
	waitB, macB, _ := strings.Cut(keyB, ".")
	if waitA != waitB {
		t.Fatalf("the servers' waits differ: %s, %s", waitA, waitB)
	}
	if macA == macB {
		t.Fatalf("two servers signed wait %s alike: %s", waitA, macA)
	}
	// a's key on b, with b's own token: an unknown key.
	b.postJSON("/api/v1/jobs/"+keyA+"/complete", withToken(jobs[1], ``)).problem(t, http.StatusNotFound, "not-found")
	// a restarts over its file: its secret, and so its keys, stay.
	a.open(t)
	a.postJSON("/api/v1/jobs/"+keyB+"/complete", withToken(jobs[0], ``)).problem(t, http.StatusNotFound, "not-found")
	a.postJSON("/api/v1/jobs/"+keyA+"/complete", withToken(jobs[0], ``)).noContent(t)
	b.postJSON("/api/v1/jobs/"+keyB+"/complete", withToken(jobs[1], ``)).noContent(t)
}
