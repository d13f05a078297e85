package api_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/gobpm/gobpm/internal/runtime"
)

// fakeAdHoc is the ad-hoc, variables and waits part of fakeService. Regions
// are seeded per instance with seedRegion; activation follows the runtime's
// rules: a non-candidate or an unknown region is ECONFLICT and changes
// nothing, an activated candidate moves to running (and out of the offer in
// a sequential region, which then refuses a second activation). Activity
// "explode" fails with an internal error; activating a candidate whose id
// starts with "straight" drains the region at once (it disappears and the
// answer carries only the scope id, as the runtime's does).
type fakeAdHoc struct {
	regions map[runtime.InstanceID][]*runtime.RegionView

	// What the API passed, for assertions.
	lastActivate *[3]string // scope, activity, user
	lastActs     []runtime.Activation
	lastGroups   []string
	lastSet      *fakeSet
}

type fakeSet struct {
	scopeID string
	vars    map[string]any
	local   bool
}

// seedRegion gives instance id a manual region on scope sc-r (node Review)
// offering A and B, ordered as given ("parallel" or "sequential").
func (f *fakeService) seedRegion(id runtime.InstanceID, ordering string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.adhoc.regions[id] = append(f.adhoc.regions[id], &runtime.RegionView{
		ScopeID: "sc-r", Path: "/Review", NodeID: "Review", Selection: "manual", Ordering: ordering,
		Candidates: []runtime.Candidate{{ActivityID: "A", Name: "Check A"}, {ActivityID: "B", Name: "B"}},
		Running:    []string{}, Completed: map[string]int{"Z": 2},
	}, &runtime.RegionView{
		ScopeID: "sc-auto", Path: "/Review/Inner", NodeID: "Inner", Selection: "automatic", Ordering: "parallel",
		Running: []string{"X", "X"}, Stopped: "completion condition",
	})
}

// seedStraightRegion gives instance id a manual region on scope sc-s
// offering one straight-through activity.
func (f *fakeService) seedStraightRegion(id runtime.InstanceID) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.adhoc.regions[id] = append(f.adhoc.regions[id], &runtime.RegionView{
		ScopeID: "sc-s", Path: "/Quick", NodeID: "Quick", Selection: "manual", Ordering: "sequential",
		Candidates: []runtime.Candidate{{ActivityID: "straight1", Name: "Note"}}, Running: []string{}, Completed: map[string]int{"straight0": 1},
	})
}

// setScopes replaces the scopes of instance id.
func (f *fakeService) setScopes(id runtime.InstanceID, scopes ...runtime.ScopeView) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.instances[id].Scopes = scopes
}

func cloneRegion(r *runtime.RegionView) runtime.RegionView {
	c := *r
	c.Candidates = slices.Clone(r.Candidates)
	c.Running = slices.Clone(r.Running)
	c.Completed = maps.Clone(r.Completed)
	return c
}

func (f *fakeService) AdHocRegions(_ context.Context, id runtime.InstanceID) ([]runtime.RegionView, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.instances[id]; !ok {
		return nil, runtime.Errorf(runtime.ENOTFOUND, "instance %s not found", id)
	}
	out := []runtime.RegionView{}
	for _, r := range f.adhoc.regions[id] {
		out = append(out, cloneRegion(r))
	}
	return out, nil
}

// ActivateAdHocWith records what it got and activates the activities one
// by one with ActivateAdHoc's rules (the fake is not all or nothing).
func (f *fakeService) ActivateAdHocWith(ctx context.Context, id runtime.InstanceID, scopeID string, acts []runtime.Activation, a runtime.Actor) (runtime.RegionView, error) {
	f.mu.Lock()
	f.adhoc.lastActs = acts
	f.mu.Unlock()
	var reg runtime.RegionView
	for _, x := range acts {
		var err error
		if reg, err = f.activateOne(ctx, id, scopeID, x.ActivityID, a); err != nil {
			return reg, err
		}
	}
	return reg, nil
}

// CompleteAdHoc closes a region with nothing running; one with running
// activities is ECONFLICT.
func (f *fakeService) CompleteAdHoc(_ context.Context, id runtime.InstanceID, scopeID string, a runtime.Actor) (runtime.RegionView, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if a.User == "" {
		return runtime.RegionView{}, &runtime.Error{Code: runtime.EFORBIDDEN, Message: "an acting user is required"}
	}
	i := slices.IndexFunc(f.adhoc.regions[id], func(r *runtime.RegionView) bool { return r.ScopeID == scopeID })
	if i < 0 {
		return runtime.RegionView{}, runtime.Errorf(runtime.ECONFLICT, "instance %s is running: complete ad-hoc region %s: it is not open", id, scopeID)
	}
	if r := f.adhoc.regions[id][i]; len(r.Running) > 0 {
		return runtime.RegionView{}, runtime.Errorf(runtime.ECONFLICT, "instance %s is running: complete ad-hoc region %s: %v still run", id, r.NodeID, r.Running)
	}
	f.adhoc.regions[id] = slices.Delete(f.adhoc.regions[id], i, i+1)
	return runtime.RegionView{ScopeID: scopeID, Candidates: []runtime.Candidate{}, Running: []string{}, Completed: map[string]int{}, Stopped: "completed by " + a.User}, nil
}

func (f *fakeService) activateOne(_ context.Context, id runtime.InstanceID, scopeID, activityID string, a runtime.Actor) (runtime.RegionView, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.adhoc.lastActivate = &[3]string{scopeID, activityID, a.User}
	f.adhoc.lastGroups = a.Groups
	if a.User == "" {
		return runtime.RegionView{}, &runtime.Error{Code: runtime.EFORBIDDEN, Message: "an acting user is required"}
	}
	if activityID == "" {
		return runtime.RegionView{}, &runtime.Error{Code: runtime.EINVALID, Message: "activityId is required", Field: "activityId"}
	}
	if activityID == "explode" {
		return runtime.RegionView{}, errors.New("disk on fire: /var/lib/secret")
	}
	if _, ok := f.instances[id]; !ok {
		return runtime.RegionView{}, runtime.Errorf(runtime.ENOTFOUND, "instance %s not found", id)
	}
	i := slices.IndexFunc(f.adhoc.regions[id], func(r *runtime.RegionView) bool { return r.ScopeID == scopeID })
	if i < 0 {
		return runtime.RegionView{}, runtime.Errorf(runtime.ECONFLICT, "instance %s is running: activate %s: no open ad-hoc region %s", id, activityID, scopeID)
	}
	r := f.adhoc.regions[id][i]
	if r.Ordering == "sequential" && len(r.Running) > 0 {
		return runtime.RegionView{}, runtime.Errorf(runtime.ECONFLICT, "instance %s is running: activate %s: sequential region %s already runs %v", id, activityID, r.NodeID, r.Running)
	}
	j := slices.IndexFunc(r.Candidates, func(c runtime.Candidate) bool { return c.ActivityID == activityID })
	if j < 0 {
		return runtime.RegionView{}, runtime.Errorf(runtime.ECONFLICT, "instance %s is running: activate %s: it is not a candidate of %s", id, activityID, r.NodeID)
	}
	if strings.HasPrefix(activityID, "straight") {
		f.adhoc.regions[id] = slices.Delete(f.adhoc.regions[id], i, i+1)
		return runtime.RegionView{ScopeID: scopeID, Candidates: []runtime.Candidate{}, Running: []string{}, Completed: map[string]int{}, Stopped: "drained"}, nil
	}
	r.Candidates = slices.Delete(r.Candidates, j, j+1)
	r.Running = append(r.Running, activityID)
	return cloneRegion(r), nil
}

func (f *fakeService) SetVariables(_ context.Context, id runtime.InstanceID, scopeID string, vars map[string]any, local bool) (runtime.InstanceView, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.adhoc.lastSet = &fakeSet{scopeID: scopeID, vars: vars, local: local}
	v, ok := f.instances[id]
	if !ok {
		return runtime.InstanceView{}, runtime.Errorf(runtime.ENOTFOUND, "instance %s not found", id)
	}
	if len(vars) == 0 {
		return runtime.InstanceView{}, &runtime.Error{Code: runtime.EINVALID, Message: "variables must not be empty", Field: "variables"}
	}
	if v.Status != runtime.StatusRunning {
		return runtime.InstanceView{}, runtime.Errorf(runtime.ECONFLICT, "instance %s is %s", id, v.Status)
	}
	root := ""
	if len(v.Scopes) > 0 {
		root = v.Scopes[0].ID
	}
	if scopeID == "" || scopeID == root {
		if v.Variables == nil {
			v.Variables = map[string]any{}
		}
		maps.Copy(v.Variables, vars)
		return *v, nil
	}
	for i := range v.Scopes {
		if v.Scopes[i].ID == scopeID {
			if v.Scopes[i].Variables == nil {
				v.Scopes[i].Variables = map[string]any{}
			}
			maps.Copy(v.Scopes[i].Variables, vars)
			return *v, nil
		}
	}
	return runtime.InstanceView{}, runtime.Errorf(runtime.ENOTFOUND, "instance %s has no open scope %q", id, scopeID)
}

// Waits answers, for any known instance, a locked job with retries, an
// exhausted job, a claimed task with a due date, a message subscription with
// a key and a timer.
func (f *fakeService) Waits(_ context.Context, id runtime.InstanceID, after string, limit int) ([]runtime.WaitRow, string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.instances[id]; !ok {
		return nil, "", fmt.Errorf("waits of %s: %w", id, runtime.ErrNotFound)
	}
	at := time.Date(2025, 3, 1, 11, 0, 0, 0, time.FixedZone("CET", 3600))
	return pageAfter([]runtime.WaitRow{
		{ID: "job-7", InstanceID: id, Kind: runtime.WaitJob, NodeID: "Charge", ScopeID: "sc-1", Name: "charge", Retries: 2, CreatedAt: at,
			LockOwner: "w1", LockExpiresAt: at.Add(time.Minute)},
		{ID: "job-8", InstanceID: id, Kind: runtime.WaitJob, NodeID: "Mail", ScopeID: "sc-1", Name: "mail", Retries: 0, CreatedAt: at, ErrorMessage: "smtp down"},
		{ID: "task-9", InstanceID: id, Kind: runtime.WaitTask, NodeID: "Approve", ScopeID: "sc-1", Name: "Approve", Assignee: "ann",
			CandidateGroups: []string{"managers"}, DueAt: at.Add(time.Hour), CreatedAt: at},
		{ID: "sub-1", InstanceID: id, Kind: runtime.WaitMessage, NodeID: "Paid", ScopeID: "sc-1", Name: "paid", CorrelationKey: "o-1", CreatedAt: at},
		{ID: "tmr-1", InstanceID: id, Kind: runtime.WaitTimer, NodeID: "Remind", ScopeID: "sc-1", DueAt: at.Add(2 * time.Hour), CreatedAt: at},
	}, after, limit, func(w runtime.WaitRow) string { return w.ID })
}
