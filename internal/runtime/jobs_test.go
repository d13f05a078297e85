package runtime_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gobpm/gobpm/internal/clock"
	"github.com/gobpm/gobpm/internal/runtime"
	"github.com/gobpm/gobpm/internal/testdb"
)

// activateAs activates up to 10 jobs of typ for worker and user, locked
// for lock, without long-polling.
func activateAs(t *testing.T, rt *runtime.Runtime, typ, worker, user string, lock time.Duration) []runtime.JobView {
	t.Helper()
	jobs, err := rt.ActivateJobs(context.Background(), runtime.ActivateRequest{Type: typ, Worker: worker, User: user, MaxJobs: 10, LockDuration: lock})
	if err != nil {
		t.Fatal(err)
	}
	return jobs
}

// oneJobOf asserts jobs holds exactly one job and returns it.
func oneJobOf(t *testing.T, jobs []runtime.JobView) runtime.JobView {
	t.Helper()
	if len(jobs) != 1 {
		t.Fatalf("want one job, got %+v", jobs)
	}
	return jobs[0]
}

// jobKeyOf returns the public key of the one job wait of instance id, as
// the instance's waits show it.
func jobKeyOf(t *testing.T, rt *runtime.Runtime, id runtime.InstanceID) string {
	t.Helper()
	waits, _, err := rt.Waits(context.Background(), id, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range waits {
		if w.Kind == runtime.WaitJob {
			if w.LockTokenHash != nil {
				t.Errorf("the waits view shows a token hash: %+v", w)
			}
			return w.ID
		}
	}
	t.Fatalf("instance %s has no job: %+v", id, waits)
	return ""
}

// keyRE is the shape of a public job key: the wait id, a dot and the
// 16-character base32 mac.
var keyRE = regexp.MustCompile(`^(.+-w\d{6})\.([a-z2-7]{16})$`)

func TestActivationAnswersKeyAndToken(t *testing.T) {
	t.Parallel()
	c := setupClocked(t)
	mustDeploy(t, c.rt, fixture(t, "worker.bpmn"))
	a := start(t, c.rt, "worker", nil)
	b := start(t, c.rt, "worker", nil)
	jobs := activateAs(t, c.rt, "fetch-order", "w1", "", time.Minute)
	if len(jobs) != 2 {
		t.Fatalf("jobs %+v", jobs)
	}
	for i, inst := range []runtime.InstanceView{a, b} {
		j := jobs[i]
		m := keyRE.FindStringSubmatch(j.Key)
		if m == nil || !strings.HasPrefix(m[1], string(inst.ID)+"-") {
			t.Errorf("job %d: key %q is not <wait id of %s>.<mac>", i, j.Key, inst.ID)
		}
		if !regexp.MustCompile(`^[a-z2-7]{26}$`).MatchString(j.LockToken) {
			t.Errorf("job %d: lock token %q is not 26 base32 characters (128 bits)", i, j.LockToken)
		}
		if got := jobKeyOf(t, c.rt, inst.ID); got != j.Key {
			t.Errorf("job %d: the instance's waits show key %q, activation %q", i, got, j.Key)
		}
		if got, err := c.rt.JobKey(context.Background(), m[1]); err != nil || got != j.Key {
			t.Errorf("JobKey(%s) = %q, %v; want %q", m[1], got, err, j.Key)
		}
	}
	if jobs[0].LockToken == jobs[1].LockToken {
		t.Errorf("two jobs of one activation share the token %s", jobs[0].LockToken)
	}
}

func TestJobActsNeedTheLock(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	type act struct {
		name string
		do   func(rt *runtime.Runtime, key string, h runtime.JobHolder) error
	}
	acts := []act{
		{"complete", func(rt *runtime.Runtime, key string, h runtime.JobHolder) error {
			return rt.CompleteJob(ctx, key, h, map[string]any{"by": "test"})
		}},
		{"fail", func(rt *runtime.Runtime, key string, h runtime.JobHolder) error {
			return rt.FailJob(ctx, key, h, runtime.FailRequest{ErrorMessage: "boom"})
		}},
		{"error", func(rt *runtime.Runtime, key string, h runtime.JobHolder) error {
			return rt.ThrowJobError(ctx, key, h, "E", "thrown", nil)
		}},
		{"extend", func(rt *runtime.Runtime, key string, h runtime.JobHolder) error {
			return rt.ExtendJobLock(ctx, key, h, time.Minute)
		}},
	}
	for _, a := range acts {
		t.Run(a.name, func(t *testing.T) {
			t.Parallel()
			c := setupClocked(t)
			mustDeploy(t, c.rt, fixture(t, "worker.bpmn"))

			// Never activated: a conflict that says so, whatever token.
			never := start(t, c.rt, "worker", nil)
			neverKey := jobKeyOf(t, c.rt, never.ID)
			err := a.do(c.rt, neverKey, runtime.JobHolder{Token: strings.Repeat("a", 26)})
			if runtime.ErrorCode(err) != runtime.ECONFLICT || !strings.Contains(err.Error(), "not activated") {
				t.Errorf("never activated: %v, want a conflict saying it is not activated", err)
			}

			inst := start(t, c.rt, "worker", nil)
			jobs := activateAs(t, c.rt, "fetch-order", "w1", "ann", time.Minute)
			if len(jobs) != 2 { // the never-activated job is activatable too
				t.Fatalf("jobs %+v", jobs)
			}
			var j runtime.JobView
			for _, x := range jobs {
				if x.InstanceID == inst.ID {
					j = x
				}
			}
			wait, _, _ := strings.Cut(j.Key, ".")
			otherToken := jobs[0].LockToken
			if j.Key == jobs[0].Key {
				otherToken = jobs[1].LockToken
			}
			refusals := []struct {
				name   string
				key    string
				holder runtime.JobHolder
				code   string
				field  string
			}{
				{"no token", j.Key, runtime.JobHolder{User: "ann"}, runtime.EINVALID, "lockToken"},
				{"not a token", j.Key, runtime.JobHolder{Token: "not-a-token!", User: "ann"}, runtime.EINVALID, "lockToken"},
				{"short token", j.Key, runtime.JobHolder{Token: j.LockToken[:20], User: "ann"}, runtime.EINVALID, "lockToken"},
				{"another job's token", j.Key, runtime.JobHolder{Token: otherToken, User: "ann"}, runtime.ECONFLICT, ""},
				{"another user", j.Key, runtime.JobHolder{Token: j.LockToken, User: "bob"}, runtime.EFORBIDDEN, ""},
				{"no user", j.Key, runtime.JobHolder{Token: j.LockToken}, runtime.EFORBIDDEN, ""},
				{"the wait id alone", wait, runtime.JobHolder{Token: j.LockToken, User: "ann"}, runtime.ENOTFOUND, ""},
				{"a forged mac", wait + ".aaaaaaaaaaaaaaaa", runtime.JobHolder{Token: j.LockToken, User: "ann"}, runtime.ENOTFOUND, ""},
				{"an empty mac", wait + ".", runtime.JobHolder{Token: j.LockToken, User: "ann"}, runtime.ENOTFOUND, ""},
				{"unknown", "nope", runtime.JobHolder{Token: j.LockToken, User: "ann"}, runtime.ENOTFOUND, ""},
			}
			for _, r := range refusals {
				err := a.do(c.rt, r.key, r.holder)
				var re *runtime.Error
				if !errors.As(err, &re) || re.Code != r.code || re.Field != r.field {
					t.Errorf("%s: %v, want code %s field %q", r.name, err, r.code, r.field)
				}
			}
			// A forged key is answered exactly like an unknown one.
			forged := a.do(c.rt, wait+".aaaaaaaaaaaaaaaa", runtime.JobHolder{Token: j.LockToken, User: "ann"})
			if want := "job " + wait + ".aaaaaaaaaaaaaaaa not found: it was completed, withdrawn or never existed"; forged == nil || forged.Error() != want {
				t.Errorf("forged key: %v, want %q", forged, want)
			}
			if v, _ := c.rt.Instance(ctx, inst.ID); len(v.Tracks) != 1 || v.Tracks[0].NodeID != "fetch" || len(v.Incidents) != 0 {
				t.Fatalf("a refused act changed the instance: %+v", v)
			}
			// The holder, its key in upper case too.
			if err := a.do(c.rt, strings.ToUpper(j.Key[:len(wait)+1])+strings.ToUpper(j.Key[len(wait)+1:]), runtime.JobHolder{Token: strings.ToUpper(j.LockToken), User: "ann"}); runtime.ErrorCode(err) != runtime.ENOTFOUND {
				t.Errorf("an upper-cased wait id names another wait: %v", err)
			}
			if err := a.do(c.rt, wait+"."+strings.ToUpper(j.Key[len(wait)+1:]), runtime.JobHolder{Token: strings.ToUpper(j.LockToken), User: "ann"}); err != nil {
				t.Fatalf("the holder (mac and token in upper case): %v", err)
			}
		})
	}
}

func TestLostLockIsAConflict(t *testing.T) {
	t.Parallel()
	c := setupClocked(t)
	ctx := context.Background()
	mustDeploy(t, c.rt, fixture(t, "worker.bpmn"))
	inst := start(t, c.rt, "worker", nil)
	w1 := oneJobOf(t, activateAs(t, c.rt, "fetch-order", "w1", "", time.Minute))
	c.clk.Advance(time.Minute) // expired at now
	if err := c.rt.ExtendJobLock(ctx, w1.Key, held(w1), time.Minute); runtime.ErrorCode(err) != runtime.ECONFLICT || !strings.Contains(err.Error(), "expired") {
		t.Fatalf("extend an expired lock: %v, want a conflict saying it expired", err)
	}
	w2 := oneJobOf(t, activateAs(t, c.rt, "fetch-order", "w2", "", time.Minute))
	if w2.Key != w1.Key || w2.LockToken == w1.LockToken {
		t.Fatalf("re-activation: %+v after %+v; want the same key under a new token", w2, w1)
	}
	for name, err := range map[string]error{
		"complete": c.rt.CompleteJob(ctx, w1.Key, held(w1), map[string]any{"by": "w1"}),
		"fail":     c.rt.FailJob(ctx, w1.Key, held(w1), runtime.FailRequest{}),
		"error":    c.rt.ThrowJobError(ctx, w1.Key, held(w1), "E", "", nil),
		"extend":   c.rt.ExtendJobLock(ctx, w1.Key, held(w1), time.Minute),
	} {
		if runtime.ErrorCode(err) != runtime.ECONFLICT || !strings.Contains(err.Error(), "activated again") {
			t.Errorf("%s by the worker that lost the lock: %v, want a conflict saying the job was activated again", name, err)
		}
	}
	if err := c.rt.ExtendJobLock(ctx, w2.Key, held(w2), time.Hour); err != nil {
		t.Fatal(err)
	}
	if err := c.rt.CompleteJob(ctx, w2.Key, held(w2), map[string]any{"by": "w2"}); err != nil {
		t.Fatal(err)
	}
	if v, _ := c.rt.Instance(ctx, inst.ID); v.Variables["by"] != "w2" {
		t.Fatalf("variables %v, want by=w2", v.Variables)
	}
}

func TestLateCompletionWhileNobodyTookTheJob(t *testing.T) {
	t.Parallel()
	c := setupClocked(t)
	ctx := context.Background()
	mustDeploy(t, c.rt, fixture(t, "worker.bpmn"))
	inst := start(t, c.rt, "worker", nil)
	j := oneJobOf(t, activateAs(t, c.rt, "fetch-order", "w1", "ann", time.Minute))
	c.clk.Advance(time.Hour)
	// The lock expired long ago, but the job was not activated again: the
	// holder's result is taken (at-least-once delivery), under its identity only.
	if err := c.rt.CompleteJob(ctx, j.Key, runtime.JobHolder{Token: j.LockToken, User: "bob"}, nil); runtime.ErrorCode(err) != runtime.EFORBIDDEN {
		t.Fatalf("late completion by another user: %v", err)
	}
	if err := c.rt.CompleteJob(ctx, j.Key, runtime.JobHolder{Token: j.LockToken, User: "ann"}, map[string]any{"late": true}); err != nil {
		t.Fatalf("late completion: %v", err)
	}
	if v, _ := c.rt.Instance(ctx, inst.ID); v.Variables["late"] != true || v.Tracks[0].NodeID != "review" {
		t.Fatalf("after the late completion: %+v", v)
	}
}

// TestFailureReleasesTheLock: a failure report (and an incident retry)
// releases the lock; its token no longer acts on the job.
func TestFailureReleasesTheLock(t *testing.T) {
	t.Parallel()
	c := setupClocked(t)
	ctx := context.Background()
	mustDeploy(t, c.rt, fixture(t, "worker.bpmn"))
	inst := start(t, c.rt, "worker", nil)
	j := oneJobOf(t, activateAs(t, c.rt, "fetch-order", "w1", "", time.Minute))
	zero := 0
	if err := c.rt.FailJob(ctx, j.Key, held(j), runtime.FailRequest{Retries: &zero, ErrorMessage: "down"}); err != nil {
		t.Fatal(err)
	}
	if err := c.rt.CompleteJob(ctx, j.Key, held(j), nil); runtime.ErrorCode(err) != runtime.ECONFLICT || !strings.Contains(err.Error(), "not activated") {
		t.Fatalf("complete after the failure report: %v, want a conflict saying it is not activated", err)
	}
	v, _ := c.rt.Instance(ctx, inst.ID)
	if _, err := c.rt.RetryIncident(ctx, v.Incidents[0].ID, 1); err != nil {
		t.Fatal(err)
	}
	if err := c.rt.CompleteJob(ctx, j.Key, held(j), nil); runtime.ErrorCode(err) != runtime.ECONFLICT {
		t.Fatalf("complete after the incident retry: %v, want a conflict", err)
	}
	again := oneJobOf(t, activateAs(t, c.rt, "fetch-order", "w1", "", time.Minute))
	if err := c.rt.CompleteJob(ctx, again.Key, held(again), nil); err != nil {
		t.Fatal(err)
	}
}

// stealingStore activates the job again (as worker "thief") right before
// the next step commits: the moment between the runtime's check of the
// lock and the step's transaction.
type stealingStore struct {
	testdb.Store
	now   func() time.Time
	armed atomic.Bool
	stole chan []runtime.WaitRow
}

func (s *stealingStore) CommitSteps(ctx context.Context, steps []runtime.StepRecord) error {
	if s.armed.CompareAndSwap(true, false) {
		rows, err := s.Store.ActivateJobs(ctx, "fetch-order", s.now(), runtime.JobLock{Worker: "thief", Until: s.now().Add(time.Hour),
			TokenHashes: [][]byte{make([]byte, 32)}})
		if err != nil {
			return err
		}
		s.stole <- rows
	}
	return s.Store.CommitSteps(ctx, steps)
}

// TestLockCheckedInTheStepTransaction: a job activated again between the
// check and the commit is not completed by the worker that lost it.
func TestLockCheckedInTheStepTransaction(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clk := clock.NewManual(time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC))
	db, err := testdb.Open(ctx, testdb.DSN(t))
	if err != nil {
		t.Fatal(err)
	}
	s := &stealingStore{Store: db, now: clk.Now, stole: make(chan []runtime.WaitRow, 1)}
	rt := runtime.New(s, runtime.Options{Now: clk.Now})
	t.Cleanup(func() { rt.Close(); db.Close() })
	mustDeploy(t, rt, fixture(t, "worker.bpmn"))
	inst := start(t, rt, "worker", nil)
	j := oneJobOf(t, activateAs(t, rt, "fetch-order", "w1", "", time.Minute))
	clk.Advance(2 * time.Minute) // expired, not yet taken: the check passes
	s.armed.Store(true)
	err = rt.CompleteJob(ctx, j.Key, held(j), map[string]any{"by": "w1"})
	if runtime.ErrorCode(err) != runtime.ECONFLICT || !errors.Is(err, runtime.ErrLockLost) {
		t.Fatalf("completion that lost the lock at commit: %v, want a conflict (ErrLockLost)", err)
	}
	if stolen := <-s.stole; len(stolen) != 1 {
		t.Fatalf("the thief activated %+v", stolen)
	}
	v, err := rt.Instance(ctx, inst.ID)
	if err != nil || v.Variables["by"] != nil || len(v.Tracks) != 1 || v.Tracks[0].NodeID != "fetch" {
		t.Fatalf("after the refused completion: %v, %+v", err, v)
	}
}

// TestJobKeysBelongToTheirDatabase: the secret that signs job keys is made
// on a database's first start and kept across restarts; a key of one
// database does not verify on another.
func TestJobKeysBelongToTheirDatabase(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a, b := setupClocked(t), setupClocked(t)
	for _, c := range []*clocked{a, b} {
		mustDeploy(t, c.rt, fixture(t, "worker.bpmn"))
		start(t, c.rt, "worker", nil)
	}
	ja := oneJobOf(t, activateAs(t, a.rt, "fetch-order", "w", "", time.Hour))
	jb := oneJobOf(t, activateAs(t, b.rt, "fetch-order", "w", "", time.Hour))
	waitA, _, _ := strings.Cut(ja.Key, ".")
	// The same wait id on b, signed by a: not found on b.
	waitB, macB, _ := strings.Cut(jb.Key, ".")
	_, macA, _ := strings.Cut(ja.Key, ".")
	if macA == macB && waitA != waitB {
		t.Fatalf("two databases sign alike")
	}
	if err := b.rt.CompleteJob(ctx, waitB+"."+mustMAC(t, a.rt, waitB), held(jb), nil); runtime.ErrorCode(err) != runtime.ENOTFOUND {
		t.Fatalf("b's job under a's key: %v, want not found", err)
	}
	if err := b.rt.CompleteJob(ctx, ja.Key, held(ja), nil); runtime.ErrorCode(err) != runtime.ENOTFOUND {
		t.Fatalf("a's key on b: %v, want not found", err)
	}
	// A restart keeps the secret: the key a handed out still works.
	a.close(t)
	a.open(t)
	if _, err := a.rt.Resume(ctx); err != nil {
		t.Fatal(err)
	}
	if err := a.rt.CompleteJob(ctx, ja.Key, held(ja), nil); err != nil {
		t.Fatalf("a's key after a restart: %v", err)
	}
}

// mustMAC is the mac rt gives wait id.
func mustMAC(t *testing.T, rt *runtime.Runtime, wait string) string {
	t.Helper()
	key, err := rt.JobKey(context.Background(), wait)
	if err != nil {
		t.Fatal(err)
	}
	_, mac, _ := strings.Cut(key, ".")
	return mac
}

// TestSecretsComeFromTheInjectedReader: the job-key secret and the lock
// tokens are read from Options.Rand, so two runtimes with the same seeded
// reader on two new databases sign alike and mint alike.
func TestSecretsComeFromTheInjectedReader(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	var keys, tokens [2]string
	for i := range 2 {
		db, err := testdb.Open(ctx, testdb.DSN(t))
		if err != nil {
			t.Fatal(err)
		}
		seed := [32]byte{1, 2, 3}
		rt := runtime.New(db, runtime.Options{Rand: rand.NewChaCha8(seed), NewID: func() string { return "0199a3c2-5b4e-7c1d-8e2f-3a4b5c6d7e8f" }})
		mustDeploy(t, rt, fixture(t, "worker.bpmn"))
		start(t, rt, "worker", nil)
		j := oneJobOf(t, activateAs(t, rt, "fetch-order", "w", "", time.Hour))
		keys[i], tokens[i] = j.Key, j.LockToken
		rt.Close()
		db.Close()
	}
	if keys[0] != keys[1] || tokens[0] != tokens[1] {
		t.Fatalf("same reader, different secrets: keys %v, tokens %v", keys, tokens)
	}
}

// failingReader fails every read.
type failingReader struct{}

func (failingReader) Read([]byte) (int, error) { return 0, errors.New("no entropy") }

func TestActivationFailsWithoutRandomness(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, err := testdb.Open(ctx, testdb.DSN(t))
	if err != nil {
		t.Fatal(err)
	}
	rt := runtime.New(db, runtime.Options{Rand: failingReader{}})
	t.Cleanup(func() { rt.Close(); db.Close() })
	if _, err := rt.Resume(ctx); err == nil || !strings.Contains(err.Error(), "no entropy") {
		t.Fatalf("Resume without randomness: %v", err)
	}
	if _, err := rt.ActivateJobs(ctx, runtime.ActivateRequest{Type: "t", Worker: "w", MaxJobs: 1, LockDuration: time.Minute}); err == nil {
		t.Fatal("activation without randomness succeeded")
	}
}

// TestJobsActivatedByAnotherRuntime: a runtime acts on jobs it did not
// activate (another process, or itself before a restart) by reading the
// job first, with the same refusals as on jobs it activated itself.
func TestJobsActivatedByAnotherRuntime(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, err := testdb.Open(ctx, testdb.DSN(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	first := runtime.New(db, runtime.Options{})
	mustDeploy(t, first, fixture(t, "worker.bpmn"))
	a, b := start(t, first, "worker", nil), start(t, first, "worker", nil)
	jobs := activateAs(t, first, "fetch-order", "w1", "ann", time.Minute)
	if len(jobs) != 2 {
		t.Fatalf("activated %d jobs, want 2", len(jobs))
	}
	first.Close()
	second := runtime.New(db, runtime.Options{})
	t.Cleanup(func() { second.Close() })
	for _, j := range jobs {
		for name, holder := range map[string]runtime.JobHolder{
			"another user":  {Token: j.LockToken, User: "bob"},
			"another token": {Token: jobs[0].LockToken + jobs[1].LockToken, User: "ann"},
		} {
			if err := second.CompleteJob(ctx, j.Key, holder, nil); err == nil {
				t.Errorf("%s completed a job of ann's", name)
			}
		}
		if err := second.CompleteJob(ctx, j.Key, runtime.JobHolder{Token: j.LockToken, User: "ann"}, map[string]any{"by": "ann"}); err != nil {
			t.Fatalf("completion through another runtime: %v", err)
		}
		if err := second.CompleteJob(ctx, j.Key, runtime.JobHolder{Token: j.LockToken, User: "ann"}, nil); runtime.ErrorCode(err) != runtime.ENOTFOUND {
			t.Errorf("second completion: %v, want not found", err)
		}
	}
	for _, in := range []runtime.InstanceView{a, b} {
		if v, err := second.Instance(ctx, in.ID); err != nil || v.Variables["by"] != "ann" {
			t.Errorf("instance %s after completion: %v %v", in.ID, err, v.Variables)
		}
	}
}
