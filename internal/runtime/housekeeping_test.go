package runtime_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gobpm/gobpm/internal/clock"
	"github.com/gobpm/gobpm/internal/runtime"
	"github.com/gobpm/gobpm/internal/store/sqlite"
)

// manual is a runtime on a real SQLite file with a manual clock, resumed
// (scheduler running), with the given options otherwise.
type manual struct {
	clk  *clock.Manual
	db   *sqlite.DB
	rt   *runtime.Runtime
	path string
}

var manualEpoch = time.Date(2026, 1, 5, 8, 0, 0, 0, time.UTC)

func setupManual(t *testing.T, opts runtime.Options) *manual {
	t.Helper()
	m := &manual{clk: clock.NewManual(manualEpoch), path: filepath.Join(t.TempDir(), "gobpm.db")}
	db, err := sqlite.Open(context.Background(), m.path, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	opts.ManualClock = m.clk
	m.db, m.rt = db, runtime.New(db, opts)
	t.Cleanup(func() {
		m.rt.Close()
		m.db.Close()
	})
	if _, err := m.rt.Resume(context.Background()); err != nil {
		t.Fatal(err)
	}
	return m
}

func deployXML(t *testing.T, rt *runtime.Runtime, name, xml string) {
	t.Helper()
	mustDeploy(t, rt, runtime.File{Name: name, Content: []byte(xml)})
}

// bpmnProcess wraps process elements into a definitions document.
func bpmnProcess(id, attrs, body string) string {
	return fmt.Sprintf(`<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:gobpm="urn:gobpm:1" targetNamespace="urn:test">
  <process id="%s" isExecutable="true" %s>%s</process>
</definitions>`, id, attrs, body)
}

const (
	straightBody = `<startEvent id="s"/><sequenceFlow id="f1" sourceRef="s" targetRef="e"/><endEvent id="e"/>`
	taskBody     = `<startEvent id="s"/><sequenceFlow id="f1" sourceRef="s" targetRef="t"/>
		<userTask id="t" gobpm:assignee="ann"/><sequenceFlow id="f2" sourceRef="t" targetRef="e"/><endEvent id="e"/>`
	jobBody = `<startEvent id="s"/><sequenceFlow id="f1" sourceRef="s" targetRef="j"/>
		<serviceTask id="j" gobpm:type="work" gobpm:retries="3"/><sequenceFlow id="f2" sourceRef="j" targetRef="e"/><endEvent id="e"/>`
	timerBody = `<startEvent id="s"/><sequenceFlow id="f1" sourceRef="s" targetRef="w"/>
		<intermediateCatchEvent id="w"><timerEventDefinition><timeDuration>PT1H</timeDuration></timerEventDefinition></intermediateCatchEvent>
		<sequenceFlow id="f2" sourceRef="w" targetRef="e"/><endEvent id="e"/>`
	callerBody = `<startEvent id="s"/><sequenceFlow id="f1" sourceRef="s" targetRef="c"/>
		<callActivity id="c" calledElement="plain"/><sequenceFlow id="f2" sourceRef="c" targetRef="t"/>
		<userTask id="t" gobpm:assignee="ann"/><sequenceFlow id="f3" sourceRef="t" targetRef="e"/><endEvent id="e"/>`
)

func instanceStatus(t *testing.T, rt *runtime.Runtime, id runtime.InstanceID) string {
	t.Helper()
	v, err := rt.Instance(context.Background(), id)
	if err != nil {
		t.Fatalf("instance %s: %v", id, err)
	}
	return v.Status
}

// TestManualClockFiresTimers: timers fire when the clock is moved past
// them, in the call that moves it; nothing sleeps.
func TestManualClockFiresTimers(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	m := setupManual(t, runtime.Options{})
	deployXML(t, m.rt, "timer.bpmn", bpmnProcess("timed", "", timerBody))
	inst := start(t, m.rt, "timed", nil)

	if v := m.rt.Clock(); !v.Manual || !v.Now.Equal(manualEpoch) {
		t.Fatalf("clock = %+v", v)
	}
	v, err := m.rt.AdvanceClock(ctx, 59*time.Minute)
	if err != nil || v.TimersFired != 0 || instanceStatus(t, m.rt, inst.ID) != runtime.StatusRunning {
		t.Fatalf("after 59m: %+v, %v, %s", v, err, instanceStatus(t, m.rt, inst.ID))
	}
	v, err = m.rt.SetClock(ctx, manualEpoch.Add(time.Hour))
	if err != nil || v.TimersFired != 1 || !v.Now.Equal(manualEpoch.Add(time.Hour)) {
		t.Fatalf("set to +1h: %+v, %v", v, err)
	}
	if s := instanceStatus(t, m.rt, inst.ID); s != runtime.StatusCompleted {
		t.Errorf("instance is %s after its timer's time", s)
	}

	if _, err := m.rt.SetClock(ctx, manualEpoch); runtime.ErrorCode(err) != runtime.EINVALID {
		t.Errorf("moving back = %v, want invalid", err)
	}
	if _, err := m.rt.AdvanceClock(ctx, -time.Second); runtime.ErrorCode(err) != runtime.EINVALID {
		t.Errorf("negative advance = %v, want invalid", err)
	}
	if !m.rt.Clock().Now.Equal(manualEpoch.Add(time.Hour)) {
		t.Error("a refused move moved the clock")
	}

	real := setup(t)
	if v := real.rt.Clock(); v.Manual {
		t.Error("a runtime without a manual clock says it is manual")
	}
	if _, err := real.rt.AdvanceClock(ctx, time.Minute); runtime.ErrorCode(err) != runtime.ECONFLICT || !strings.Contains(err.Error(), "--clock=manual") {
		t.Errorf("advancing a real clock = %v, want a conflict naming --clock=manual", err)
	}
}

// TestManualClockCountsItsTimers: a move of the manual clock answers with
// exactly the timers it made due, even while the scheduler keeps being
// woken (here by other instances arming far timers) and could otherwise
// fire one of them first.
func TestManualClockCountsItsTimers(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	m := setupManual(t, runtime.Options{})
	deployXML(t, m.rt, "timer.bpmn", bpmnProcess("timed", "", timerBody))
	deployXML(t, m.rt, "far.bpmn", bpmnProcess("far", "", strings.Replace(timerBody, "PT1H", "PT1000H", 1)))

	stop := make(chan struct{})
	done := make(chan struct{})
	go func() { // every far timer armed wakes the scheduler
		defer close(done)
		for {
			select {
			case <-stop:
				return
			default:
			}
			if _, err := m.rt.StartInstance(ctx, runtime.StartRequest{ProcessKey: "far"}); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	defer func() { close(stop); <-done }()

	const rounds, perRound = 20, 3
	for round := range rounds {
		var ids []runtime.InstanceID
		for range perRound {
			ids = append(ids, start(t, m.rt, "timed", nil).ID)
		}
		v, err := m.rt.AdvanceClock(ctx, time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		if v.TimersFired != perRound {
			t.Fatalf("round %d: the move says %d timers fired, want %d", round, v.TimersFired, perRound)
		}
		for _, id := range ids {
			if s := instanceStatus(t, m.rt, id); s != runtime.StatusCompleted {
				t.Fatalf("round %d: instance %s is %s after its timer's time", round, id, s)
			}
		}
	}
}

// TestManualClockExpiresJobLocks: a job lock and a failed job's backoff
// end when the clock passes them, and a worker long-polling for the job
// is woken by the move (its poll would otherwise run for the full real
// timeout and answer nothing).
func TestManualClockExpiresJobLocks(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	m := setupManual(t, runtime.Options{})
	deployXML(t, m.rt, "job.bpmn", bpmnProcess("jobbed", "", jobBody))
	start(t, m.rt, "jobbed", nil)

	req := runtime.ActivateRequest{Type: "work", Worker: "w1", MaxJobs: 1, LockDuration: time.Minute}
	first, err := m.rt.ActivateJobs(ctx, req)
	if err != nil || len(first) != 1 {
		t.Fatalf("first activation: %v %v", first, err)
	}
	if again, _ := m.rt.ActivateJobs(ctx, req); len(again) != 0 {
		t.Fatal("a locked job was activated again")
	}

	polled := make(chan []runtime.JobView, 1)
	read := m.clk.NextRead()
	go func() {
		long := req
		long.RequestTimeout = 5 * time.Second // real time: the clock move must end it early
		jobs, err := m.rt.ActivateJobs(ctx, long)
		if err != nil {
			t.Error(err)
		}
		polled <- jobs
	}()
	// The poll reads the clock only after it registered for wake-ups: once
	// it has read it, a move must wake it, or it answers nothing after its
	// 5 s. (The scheduler reads the clock too; a move before the poll's
	// look is found by that look: the test still passes, without
	// exercising the wake-up.)
	<-read
	if _, err := m.rt.AdvanceClock(ctx, time.Minute+time.Second); err != nil {
		t.Fatal(err)
	}
	second := <-polled
	if len(second) != 1 {
		t.Fatalf("long poll after the lock expired = %v", second)
	}

	// Failing with a backoff hides the job until the clock passes it.
	retries := 2
	if err := m.rt.FailJob(ctx, second[0].Key, runtime.JobHolder{Token: second[0].LockToken},
		runtime.FailRequest{Retries: &retries, RetryBackoff: 10 * time.Minute}); err != nil {
		t.Fatal(err)
	}
	if jobs, _ := m.rt.ActivateJobs(ctx, req); len(jobs) != 0 {
		t.Fatal("a job in backoff was activated")
	}
	if _, err := m.rt.AdvanceClock(ctx, 10*time.Minute); err != nil {
		t.Fatal(err)
	}
	if jobs, _ := m.rt.ActivateJobs(ctx, req); len(jobs) != 1 {
		t.Fatal("the job stayed hidden after its backoff")
	}
}

// TestCleanHistory runs the cleaner at moments of a manual clock: each
// process version's ended instances go once their time to live has
// passed, never a running instance, never a child whose caller runs.
func TestCleanHistory(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	m := setupManual(t, runtime.Options{Retention: runtime.RetentionOptions{HistoryTTL: time.Hour, Batch: 2, Every: -1}})
	deployXML(t, m.rt, "quick.bpmn", bpmnProcess("quick", `gobpm:historyTimeToLive="10m"`, straightBody))
	deployXML(t, m.rt, "plain.bpmn", bpmnProcess("plain", "", straightBody))
	deployXML(t, m.rt, "hold.bpmn", bpmnProcess("hold", "", taskBody))
	deployXML(t, m.rt, "caller.bpmn", bpmnProcess("caller", "", callerBody))

	var quick, plain []runtime.InstanceID
	for range 5 {
		quick = append(quick, start(t, m.rt, "quick", nil).ID)
		plain = append(plain, start(t, m.rt, "plain", nil).ID)
	}
	hold := start(t, m.rt, "hold", nil).ID
	caller := start(t, m.rt, "caller", nil).ID
	child := waitChild(t, m.rt, caller)

	clean := func(advance time.Duration) int {
		t.Helper()
		if _, err := m.rt.AdvanceClock(ctx, advance); err != nil {
			t.Fatal(err)
		}
		n, err := m.rt.CleanHistory(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	gone := func(ids ...runtime.InstanceID) bool {
		for _, id := range ids {
			if _, err := m.rt.Instance(ctx, id); runtime.ErrorCode(err) != runtime.ENOTFOUND {
				return false
			}
		}
		return true
	}

	if n := clean(9 * time.Minute); n != 0 {
		t.Fatalf("deleted %d before any time to live passed", n)
	}
	if n := clean(2 * time.Minute); n != 5 || !gone(quick...) {
		t.Fatalf("after 11m deleted %d; quick gone: %v", n, gone(quick...))
	}
	if n := clean(time.Hour); n != 5 || !gone(plain...) {
		t.Fatalf("after 1h11m deleted %d; plain gone: %v", n, gone(plain...))
	}
	if gone(hold) || gone(caller) || gone(child) {
		t.Fatal("a running instance, or the ended child of a running caller, was deleted")
	}
	if n := clean(24 * time.Hour); n != 0 {
		t.Fatalf("deleted %d with nothing expired", n)
	}

	// The caller ends.
	tasks, _, err := m.rt.Tasks(ctx, runtime.TaskFilter{InstanceID: caller})
	if err != nil || len(tasks) != 1 {
		t.Fatalf("caller's tasks: %v %v", tasks, err)
	}
	if err := m.rt.CompleteTask(ctx, tasks[0].ID, runtime.Actor{User: "ann"}, nil); err != nil {
		t.Fatal(err)
	}
	// The child's own time to live has long passed: it goes once its
	// caller has ended; the caller an hour after its end.
	if n := clean(time.Minute); n != 1 || !gone(child) || gone(caller) {
		t.Fatalf("deleted %d; child gone: %v, caller gone: %v", n, gone(child), gone(caller))
	}
	if n := clean(time.Hour); n != 1 || !gone(caller) {
		t.Fatalf("deleted %d; caller gone: %v", n, gone(caller))
	}
	if gone(hold) {
		t.Fatal("the running instance was deleted")
	}
	if got := m.rt.Metrics().InstancesDeleted; got != 12 {
		t.Errorf("InstancesDeleted = %d, want 12", got)
	}
}

// waitChild returns the child a call activity of caller started, once it
// is recorded (the caller learns its child's end after the commit).
func waitChild(t *testing.T, rt *runtime.Runtime, caller runtime.InstanceID) runtime.InstanceID {
	t.Helper()
	for range 500 {
		rows, _, err := rt.ListInstances(context.Background(), runtime.InstanceFilter{ParentID: caller})
		if err != nil {
			t.Fatal(err)
		}
		if len(rows) == 1 && rows[0].Status == runtime.StatusCompleted {
			if tasks, _, _ := rt.Tasks(context.Background(), runtime.TaskFilter{InstanceID: caller}); len(tasks) == 1 {
				return rows[0].ID
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("the caller's child never completed")
	return ""
}

func TestDeleteInstance(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	m := setupManual(t, runtime.Options{})
	deployXML(t, m.rt, "plain.bpmn", bpmnProcess("plain", "", straightBody))
	deployXML(t, m.rt, "hold.bpmn", bpmnProcess("hold", "", taskBody))
	done := start(t, m.rt, "plain", nil).ID
	hold := start(t, m.rt, "hold", nil).ID

	if err := m.rt.DeleteInstance(ctx, hold); runtime.ErrorCode(err) != runtime.ECONFLICT || !strings.Contains(err.Error(), "cancel it first") {
		t.Errorf("delete running = %v, want a conflict", err)
	}
	if err := m.rt.DeleteInstance(ctx, "01900000-0000-7000-8000-0000000000ff"); runtime.ErrorCode(err) != runtime.ENOTFOUND {
		t.Errorf("delete unknown = %v, want not found", err)
	}
	if err := m.rt.DeleteInstance(ctx, done); err != nil {
		t.Fatal(err)
	}
	if _, err := m.rt.History(ctx, done, 0, 10); runtime.ErrorCode(err) != runtime.ENOTFOUND {
		t.Errorf("history after delete = %v, want not found", err)
	}
	// Cancelled, it may go at once.
	if _, err := m.rt.Cancel(ctx, hold); err != nil {
		t.Fatal(err)
	}
	if err := m.rt.DeleteInstance(ctx, hold); err != nil {
		t.Errorf("delete terminated = %v", err)
	}
}

// TestBackupUnderLoad takes a backup while instances start and complete
// concurrently, then opens the copy as a server would and resumes it: the
// waiting instances it holds are there and can be driven to their end.
func TestBackupUnderLoad(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	m := setupManual(t, runtime.Options{BackupDir: dir})
	deployXML(t, m.rt, "hold.bpmn", bpmnProcess("hold", "", taskBody))

	var (
		wg      sync.WaitGroup
		stop    = make(chan struct{})
		mu      sync.Mutex
		loadErr error
	)
	started := make(chan struct{}, 1000)
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				inst, err := m.rt.StartInstance(ctx, runtime.StartRequest{ProcessKey: "hold", BusinessKey: fmt.Sprintf("w%d-%d", w, i)})
				if err == nil && i%2 == 1 {
					var tasks []runtime.TaskView
					if tasks, _, err = m.rt.Tasks(ctx, runtime.TaskFilter{InstanceID: inst.ID}); err == nil && len(tasks) == 1 {
						err = m.rt.CompleteTask(ctx, tasks[0].ID, runtime.Actor{User: "ann"}, nil)
					}
				}
				if err != nil {
					mu.Lock()
					loadErr = errors.Join(loadErr, err)
					mu.Unlock()
					return
				}
				select {
				case started <- struct{}{}:
				default:
				}
			}
		}()
	}
	for range 40 {
		<-started
	}
	res, err := m.rt.Backup(ctx, "under-load.db")
	close(stop)
	wg.Wait()
	if err != nil {
		t.Fatal(err)
	}
	if loadErr != nil {
		t.Fatalf("the load failed during the backup: %v", loadErr)
	}
	if res.Path != filepath.Join(dir, "under-load.db") || res.Bytes == 0 {
		t.Errorf("backup = %+v", res)
	}

	// Refusals: the same name again, a path, a server without a directory.
	if _, err := m.rt.Backup(ctx, "under-load.db"); runtime.ErrorCode(err) != runtime.ECONFLICT {
		t.Errorf("second backup to the same name = %v, want a conflict", err)
	}
	for _, name := range []string{"../escape.db", "sub/dir.db", ".hidden", "x.db.partial", strings.Repeat("a", 201)} {
		if _, err := m.rt.Backup(ctx, name); runtime.ErrorCode(err) != runtime.EINVALID {
			t.Errorf("backup to %q = %v, want invalid", name, err)
		}
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(dir), "escape.db")); err == nil {
		t.Error("a backup escaped its directory")
	}
	if auto, err := m.rt.Backup(ctx, ""); err != nil || !strings.HasPrefix(filepath.Base(auto.Path), "gobpm-") {
		t.Errorf("a backup without a name = %+v, %v", auto, err)
	}
	if _, err := setup(t).rt.Backup(ctx, "x.db"); runtime.ErrorCode(err) != runtime.ECONFLICT || !strings.Contains(err.Error(), "--backup-dir") {
		t.Errorf("backup without a directory = %v", err)
	}

	// The copy opens and resumes; its waiting instances complete.
	db, err := sqlite.Open(ctx, res.Path, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rt := runtime.New(db, runtime.Options{})
	defer rt.Close()
	if _, err := rt.Resume(ctx); err != nil {
		t.Fatal(err)
	}
	running, total, err := rt.ListInstances(ctx, runtime.InstanceFilter{ProcessKey: "hold", Status: runtime.StatusRunning, Limit: 1000})
	if err != nil || total == 0 {
		t.Fatalf("the copy has %d running instances (%v)", total, err)
	}
	for _, in := range running {
		tasks, _, err := rt.Tasks(ctx, runtime.TaskFilter{InstanceID: in.ID})
		if err != nil || len(tasks) != 1 {
			t.Fatalf("tasks of %s in the copy: %v %v", in.ID, tasks, err)
		}
		if err := rt.CompleteTask(ctx, tasks[0].ID, runtime.Actor{User: "ann"}, nil); err != nil {
			t.Fatalf("complete in the copy: %v", err)
		}
		if s := instanceStatus(t, rt, in.ID); s != runtime.StatusCompleted {
			t.Errorf("%s is %s in the copy after its task", in.ID, s)
		}
	}
}
