package api_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/gobpm/gobpm/internal/runtime"
)

// fakeWaits is the wait-state part of fakeService. Its seed data:
//   - jobs job-1 and job-2 of type "mail" (unlocked, 3 retries); type
//     "explode" fails with an internal error;
//   - incidents inc-9 (open) and inc-10 (resolved);
//   - tasks task-1 (candidates alice and group managers), task-2 (assigned
//     to bob), task-3 (no assignee, no candidates), task-4 (due date set);
//   - one "payment" message subscription with key "order-1";
//   - signal "alarm" has two waiting catches.
//
// Long polls wait on wake (a job added) until RequestTimeout or ctx ends;
// pollStarted and pollEnded let tests watch them.
type fakeWaits struct {
	jobs      map[string]*fakeJob
	jobOrder  []string
	nextJob   int
	incidents map[string]*runtime.IncidentRow
	tasks     map[string]*runtime.TaskView
	taskOrder []string
	messages  map[string][]string // name → correlation keys, oldest first
	signals   map[string]int
	wake      chan struct{} // closed and replaced when a job is added

	pollStarted chan struct{}
	pollEnded   chan error

	// What the API passed, for assertions.
	lastActivate   runtime.ActivateRequest
	lastAnswer     *runtime.RouterAnswer
	lastJobKey     string
	lastHolder     runtime.JobHolder
	lastVars       map[string]any
	lastFail       runtime.FailRequest
	lastError      [2]string // code, message
	lastExtend     time.Duration
	lastRetries    int
	lastTaskFilter runtime.TaskFilter
	lastActor      *runtime.Actor
	lastMessage    [2]string // name, correlation key
	lastSignal     string
}

type fakeJob struct {
	view   runtime.JobView
	locked bool
}

func newFakeWaits() fakeWaits {
	now := time.Date(2025, 3, 1, 11, 0, 0, 0, time.UTC)
	w := fakeWaits{
		jobs: map[string]*fakeJob{},
		incidents: map[string]*runtime.IncidentRow{
			"inc-9":  {ID: "inc-9", InstanceID: "inst-1", ProcessKey: "mail", InstanceNumber: 1, NodeID: "Send_1", ScopeID: "sc-1", Kind: "job-failed", Message: "smtp down", CreatedAt: now},
			"inc-10": {ID: "inc-10", InstanceID: "inst-1", ProcessKey: "mail", InstanceNumber: 1, NodeID: "Send_1", ScopeID: "sc-1", Kind: "job-failed", Message: "smtp down", CreatedAt: now, ResolvedAt: now},
		},
		tasks:       map[string]*runtime.TaskView{},
		messages:    map[string][]string{"payment": {"order-1"}},
		signals:     map[string]int{"alarm": 2},
		wake:        make(chan struct{}),
		pollStarted: make(chan struct{}, 16),
		pollEnded:   make(chan error, 16),
	}
	w.addJob("mail", map[string]any{"to": "a@example.com"})
	w.addJob("mail", nil)
	for _, t := range []runtime.TaskView{
		{ID: "task-1", InstanceID: "inst-1", NodeID: "Approve", Name: "Approve order", CandidateUsers: []string{"alice"}, CandidateGroups: []string{"managers"}, CreatedAt: now},
		{ID: "task-2", InstanceID: "inst-1", NodeID: "Review", Name: "Review", Assignee: "bob", CreatedAt: now},
		{ID: "task-3", InstanceID: "inst-2", NodeID: "Anyone", Name: "Anyone", CreatedAt: now},
		{ID: "task-4", InstanceID: "inst-2", NodeID: "Due", Name: "Due soon", CandidateGroups: []string{"ops"}, CreatedAt: now, DueAt: now.Add(time.Hour)},
	} {
		w.tasks[t.ID] = &t
		w.taskOrder = append(w.taskOrder, t.ID)
	}
	return w
}

// addJob adds an unlocked job and wakes long polls; the caller holds f.mu
// (or owns w exclusively).
func (w *fakeWaits) addJob(typ string, vars map[string]any) string {
	w.nextJob++
	key := fmt.Sprintf("job-%d", w.nextJob)
	w.jobs[key] = &fakeJob{view: runtime.JobView{Key: key, Type: typ, InstanceID: "inst-1", NodeID: "Send_1", Retries: 3, Variables: vars}}
	w.jobOrder = append(w.jobOrder, key)
	close(w.wake)
	w.wake = make(chan struct{})
	return key
}

// AddJob adds a job of typ, waking long polls.
func (f *fakeService) AddJob(typ string) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.waits.addJob(typ, nil)
}

// lockJobs locks up to max unlocked jobs of typ, each with the lock token
// "lock-<key>"; the caller holds f.mu.
func (f *fakeService) lockJobs(req runtime.ActivateRequest) []runtime.JobView {
	out := []runtime.JobView{}
	for _, key := range f.waits.jobOrder {
		j, ok := f.waits.jobs[key]
		if !ok || j.locked || j.view.Type != req.Type || len(out) == req.MaxJobs {
			continue
		}
		j.locked = true
		j.view.Deadline = f.now.Add(req.LockDuration)
		j.view.LockToken = "lock-" + key
		out = append(out, j.view)
	}
	return out
}

func (f *fakeService) ActivateJobs(ctx context.Context, req runtime.ActivateRequest) ([]runtime.JobView, error) {
	if req.Type == "explode" {
		return nil, errors.New("job table corrupt")
	}
	deadline := time.After(req.RequestTimeout)
	for {
		f.mu.Lock()
		f.waits.lastActivate = req
		jobs := f.lockJobs(req)
		wake := f.waits.wake
		f.mu.Unlock()
		if len(jobs) > 0 || req.RequestTimeout == 0 {
			return jobs, nil
		}
		f.waits.pollStarted <- struct{}{}
		select {
		case <-wake:
		case <-deadline:
			return []runtime.JobView{}, nil
		case <-ctx.Done():
			f.waits.pollEnded <- ctx.Err()
			return nil, fmt.Errorf("activate %s: %w", req.Type, ctx.Err())
		}
	}
}

// job finds a job by key and records h; the caller holds f.mu. The fake
// does not check locks (the real runtime's tests do), except that the
// token "stale" is a lock lost to another activation and the user "mallory"
// is not the activating one.
func (f *fakeService) job(key string, h runtime.JobHolder) (*fakeJob, error) {
	f.waits.lastHolder = h
	j, ok := f.waits.jobs[key]
	switch {
	case !ok:
		return nil, runtime.Errorf(runtime.ENOTFOUND, "job %s not found (completed, withdrawn or never existed)", key)
	case h.Token == "stale":
		return nil, runtime.Errorf(runtime.ECONFLICT, "job %s is locked by another activation", key)
	case h.User == "mallory":
		return nil, runtime.Errorf(runtime.EFORBIDDEN, "job %s was activated by another user", key)
	}
	return j, nil
}

func (f *fakeService) CompleteJob(_ context.Context, key string, h runtime.JobHolder, vars map[string]any) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.waits.lastJobKey, f.waits.lastVars = key, vars
	if _, err := f.job(key, h); err != nil {
		return err
	}
	if _, bad := vars["__bad"]; bad {
		return &runtime.Error{Code: runtime.EINVALID, Message: "variable name __bad is reserved", Field: "variables.__bad"}
	}
	delete(f.waits.jobs, key)
	return nil
}

// CompleteRouterJob records the answer; a job whose key starts with
// "task" is no router job (ECONFLICT).
func (f *fakeService) CompleteRouterJob(_ context.Context, key string, h runtime.JobHolder, a runtime.RouterAnswer) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.waits.lastJobKey, f.waits.lastVars, f.waits.lastAnswer = key, a.Variables, &a
	if _, err := f.job(key, h); err != nil {
		return err
	}
	if strings.HasPrefix(key, "task") {
		return runtime.Errorf(runtime.ECONFLICT, "instance i is running: complete job %s with activate: it is not the job of an ad-hoc router", key)
	}
	delete(f.waits.jobs, key)
	return nil
}

func (f *fakeService) FailJob(_ context.Context, key string, h runtime.JobHolder, req runtime.FailRequest) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.waits.lastJobKey, f.waits.lastFail = key, req
	j, err := f.job(key, h)
	if err != nil {
		return err
	}
	j.locked = false
	return nil
}

func (f *fakeService) ThrowJobError(_ context.Context, key string, h runtime.JobHolder, code, message string, vars map[string]any) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.waits.lastJobKey, f.waits.lastError, f.waits.lastVars = key, [2]string{code, message}, vars
	if _, err := f.job(key, h); err != nil {
		return err
	}
	delete(f.waits.jobs, key)
	return nil
}

func (f *fakeService) ExtendJobLock(_ context.Context, key string, h runtime.JobHolder, d time.Duration) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.waits.lastJobKey, f.waits.lastExtend = key, d
	j, err := f.job(key, h)
	if err != nil {
		return err
	}
	if !j.locked {
		return runtime.Errorf(runtime.ECONFLICT, "job %s is not locked", key)
	}
	j.view.Deadline = f.now.Add(d)
	return nil
}

func (f *fakeService) RetryIncident(_ context.Context, id string, retries int) (runtime.IncidentRow, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.waits.lastRetries = retries
	inc, ok := f.waits.incidents[id]
	if !ok {
		return runtime.IncidentRow{}, fmt.Errorf("incident %s: %w", id, runtime.ErrNotFound)
	}
	if !inc.ResolvedAt.IsZero() {
		return runtime.IncidentRow{}, runtime.Errorf(runtime.ECONFLICT, "incident %s is resolved already", id)
	}
	inc.ResolvedAt = f.now
	return *inc, nil
}

func (f *fakeService) Tasks(_ context.Context, flt runtime.TaskFilter) ([]runtime.TaskView, int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.waits.lastTaskFilter = flt
	var match []runtime.TaskView
	for _, id := range f.waits.taskOrder {
		t, ok := f.waits.tasks[id]
		if ok && (flt.Assignee == "" || t.Assignee == flt.Assignee) &&
			(flt.CandidateUser == "" || slices.Contains(t.CandidateUsers, flt.CandidateUser)) &&
			(flt.CandidateGroup == "" || slices.Contains(t.CandidateGroups, flt.CandidateGroup)) &&
			(flt.InstanceID == "" || t.InstanceID == flt.InstanceID) {
			match = append(match, *t)
		}
	}
	total := len(match)
	lo, hi := min(flt.Offset, total), min(flt.Offset+flt.Limit, total)
	return match[lo:hi], total, nil
}

// task finds a task by id; the caller holds f.mu.
func (f *fakeService) task(id string) (*runtime.TaskView, error) {
	t, ok := f.waits.tasks[id]
	if !ok {
		return nil, runtime.Errorf(runtime.ENOTFOUND, "task %s not found", id)
	}
	return t, nil
}

func (f *fakeService) Task(_ context.Context, id string) (runtime.TaskView, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	t, err := f.task(id)
	if err != nil {
		return runtime.TaskView{}, err
	}
	return *t, nil
}

func (f *fakeService) ClaimTask(_ context.Context, id string, a runtime.Actor) (runtime.TaskView, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.waits.lastActor = &a
	t, err := f.task(id)
	if err != nil {
		return runtime.TaskView{}, err
	}
	if t.Assignee == a.User {
		return *t, nil // claiming your own task again changes nothing
	}
	if t.Assignee != "" {
		return runtime.TaskView{}, runtime.Errorf(runtime.ECONFLICT, "task %s is claimed by %s", id, t.Assignee)
	}
	candidate := len(t.CandidateUsers)+len(t.CandidateGroups) == 0 || slices.Contains(t.CandidateUsers, a.User) ||
		slices.ContainsFunc(a.Groups, func(g string) bool { return slices.Contains(t.CandidateGroups, g) })
	if !candidate {
		return runtime.TaskView{}, runtime.Errorf(runtime.EFORBIDDEN, "%s is not a candidate of task %s", a.User, id)
	}
	t.Assignee = a.User
	return *t, nil
}

func (f *fakeService) UnclaimTask(_ context.Context, id string, a runtime.Actor) (runtime.TaskView, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.waits.lastActor = &a
	t, err := f.task(id)
	if err != nil {
		return runtime.TaskView{}, err
	}
	switch t.Assignee {
	case "":
		return runtime.TaskView{}, runtime.Errorf(runtime.ECONFLICT, "task %s is not claimed", id)
	case a.User:
		t.Assignee = ""
		return *t, nil
	default:
		return runtime.TaskView{}, runtime.Errorf(runtime.EFORBIDDEN, "only the assignee %s may unclaim task %s", t.Assignee, id)
	}
}

func (f *fakeService) CompleteTask(_ context.Context, id string, a runtime.Actor, vars map[string]any) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.waits.lastActor, f.waits.lastVars = &a, vars
	t, err := f.task(id)
	if err != nil {
		return err
	}
	switch {
	case t.Assignee != "" && t.Assignee != a.User:
		return runtime.Errorf(runtime.EFORBIDDEN, "only the assignee %s may complete task %s", t.Assignee, id)
	case t.Assignee == "" && len(t.CandidateUsers)+len(t.CandidateGroups) > 0:
		return runtime.Errorf(runtime.ECONFLICT, "task %s must be claimed before it is completed", id)
	}
	if _, bad := vars["__bad"]; bad {
		return &runtime.Error{Code: runtime.EINVALID, Message: "variable name __bad is reserved", Field: "variables.__bad"}
	}
	delete(f.waits.tasks, id)
	return nil
}

func (f *fakeService) CorrelateMessage(_ context.Context, name, correlationKey string, vars map[string]any) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.waits.lastMessage, f.waits.lastVars = [2]string{name, correlationKey}, vars
	keys := f.waits.messages[name]
	i := slices.Index(keys, correlationKey)
	if i < 0 {
		return 0, runtime.Errorf(runtime.ENOTFOUND, "no subscription waits for message %q with correlation key %q", name, correlationKey)
	}
	f.waits.messages[name] = slices.Delete(keys, i, i+1)
	return 1, nil
}

func (f *fakeService) BroadcastSignal(_ context.Context, name string, vars map[string]any) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.waits.lastSignal, f.waits.lastVars = name, vars
	return f.waits.signals[name], nil
}
