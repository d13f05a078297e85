package api_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/gobpm/gobpm/internal/api"
	"github.com/gobpm/gobpm/internal/runtime"
)

// fakeService is a small in-memory stand-in for *runtime.Runtime, enough to
// drive every route and error path of the API. Its conventions:
//   - a file containing "<!-- invalid -->" is refused with a DeploymentError;
//   - process keys starting with "straight" complete at once, others keep
//     running with one track on "Task_1";
//   - key "explode" fails with an internal error, key "panic" panics;
//   - business key "incident" gives the instance an open incident;
//   - business key "scoped" gives it an interrupted sub-process scope with
//     armed handlers under a root scope with none.
type fakeService struct {
	mu        sync.Mutex
	now       time.Time
	deploys   int
	versions  map[string][]runtime.DefinitionRecord
	instances map[runtime.InstanceID]*runtime.InstanceView
	order     []runtime.InstanceID

	// What the API passed, for assertions.
	lastStart   runtime.StartRequest
	lastFilter  runtime.InstanceFilter
	lastHistory [2]int64
	lastOpen    *bool

	// Wait states (fake_waits_test.go).
	waits fakeWaits
	// Ad-hoc regions, variables and waits of instances (fake_adhoc_test.go).
	adhoc fakeAdHoc
	// Deployed decisions (fake_decisions_test.go).
	decisions fakeDecisions
}

var _ api.Service = (*fakeService)(nil)

func newFake() *fakeService {
	return &fakeService{
		now:       time.Date(2025, 3, 1, 12, 0, 0, 123456789, time.FixedZone("CET", 3600)),
		versions:  map[string][]runtime.DefinitionRecord{},
		instances: map[runtime.InstanceID]*runtime.InstanceView{},
		waits:     newFakeWaits(),
		adhoc:     fakeAdHoc{regions: map[runtime.InstanceID][]*runtime.RegionView{}},
		decisions: fakeDecisions{versions: map[string][]runtime.DefinitionRecord{}},
	}
}

var processRE = regexp.MustCompile(`<process\s+id="([^"]+)"(?:\s+name="([^"]*)")?`)

func (f *fakeService) Deploy(_ context.Context, files []runtime.File) (runtime.DeploymentResult, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var problems []runtime.Problem
	for _, file := range files {
		if bytes.Contains(file.Content, []byte("<!-- invalid -->")) {
			problems = append(problems,
				runtime.Problem{Resource: file.Name, Element: "Flow_3", Rule: "flow-crosses-boundary", Detail: "sequence flow Flow_3 crosses the boundary of sub-process Sub_1"},
				runtime.Problem{Resource: file.Name, Element: "Timer_1", Rule: "unsupported-element", Detail: "timer events are not supported yet"})
		} else if !processRE.Match(file.Content) && !decisionRE.Match(file.Content) {
			problems = append(problems, runtime.Problem{Resource: file.Name, Element: "definitions", Rule: "no-process", Detail: "the document declares no process"})
		}
	}
	if problems != nil {
		return runtime.DeploymentResult{}, &runtime.DeploymentError{Problems: problems}
	}
	f.deploys++
	res := runtime.DeploymentResult{ID: fmt.Sprintf("dep-%d", f.deploys)}
	for _, file := range files {
		hash := fmt.Sprintf("%x", sha256.Sum256(file.Content))
		for _, m := range processRE.FindAllSubmatch(file.Content, -1) {
			key := string(m[1])
			vs := f.versions[key]
			if n := len(vs); n > 0 && vs[n-1].ResourceHash == hash {
				res.Processes = append(res.Processes, runtime.DefinitionRef{Key: key, Version: vs[n-1].Version})
				continue
			}
			rec := runtime.DefinitionRecord{
				Key: key, Version: len(vs) + 1, Name: string(m[2]), DeploymentID: res.ID,
				ResourceName: file.Name, ResourceHash: hash, XML: file.Content, DeployedAt: f.now,
			}
			f.versions[key] = append(vs, rec)
			res.Processes = append(res.Processes, runtime.DefinitionRef{Key: key, Version: rec.Version})
		}
		res.Decisions = append(res.Decisions, f.deployDecisions(file, res.ID, hash)...)
	}
	return res, nil
}

func (f *fakeService) Processes(context.Context) ([]runtime.DefinitionRecord, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []runtime.DefinitionRecord
	for _, vs := range f.versions {
		out = append(out, vs[len(vs)-1])
	}
	slices.SortFunc(out, func(a, b runtime.DefinitionRecord) int { return strings.Compare(a.Key, b.Key) })
	return out, nil
}

func (f *fakeService) ProcessVersions(_ context.Context, key string) ([]runtime.DefinitionRecord, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	vs, ok := f.versions[key]
	if !ok {
		return nil, fmt.Errorf("process %q: %w", key, runtime.ErrNotFound)
	}
	return slices.Clone(vs), nil
}

func (f *fakeService) Definition(_ context.Context, key string, version int) (runtime.DefinitionRecord, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	vs := f.versions[key]
	if version < 1 || version > len(vs) {
		return runtime.DefinitionRecord{}, runtime.Errorf(runtime.ENOTFOUND, "process %q has no version %d", key, version)
	}
	return vs[version-1], nil
}

func (f *fakeService) StartInstance(_ context.Context, req runtime.StartRequest) (runtime.InstanceView, error) {
	switch req.ProcessKey {
	case "explode":
		return runtime.InstanceView{}, errors.New("disk on fire: /var/lib/secret")
	case "panic":
		panic("boom")
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.lastStart = req
	vs := f.versions[req.ProcessKey]
	if len(vs) == 0 {
		return runtime.InstanceView{}, runtime.Errorf(runtime.ENOTFOUND, "no process with key %q", req.ProcessKey)
	}
	version := len(vs)
	if req.Version != 0 {
		if req.Version > len(vs) {
			return runtime.InstanceView{}, runtime.Errorf(runtime.ENOTFOUND, "process %q has no version %d", req.ProcessKey, req.Version)
		}
		version = req.Version
	}
	if _, bad := req.Variables["__bad"]; bad {
		return runtime.InstanceView{}, &runtime.Error{Code: runtime.EINVALID, Message: "variable name __bad is reserved", Field: "variables.__bad"}
	}
	id := runtime.InstanceID(fmt.Sprintf("inst-%d", len(f.order)+1))
	v := &runtime.InstanceView{
		InstanceRow: runtime.InstanceRow{
			ID: id, Number: int64(len(f.order) + 1), ProcessKey: req.ProcessKey, ProcessVersion: version, Status: runtime.StatusRunning,
			BusinessKey: req.BusinessKey, CreatedAt: f.now, UpdatedAt: f.now,
		},
		Variables: req.Variables,
		Scopes:    []runtime.ScopeView{{ID: "sc-1", Path: "/", State: "active"}},
	}
	if strings.HasPrefix(req.ProcessKey, "straight") {
		v.Status, v.EndedAt, v.Scopes = runtime.StatusCompleted, f.now, nil
	} else {
		v.Tracks = []runtime.TrackView{{ID: "tr-1", ScopeID: "sc-1", NodeID: "Task_1", State: "waiting"}}
	}
	if req.BusinessKey == "scoped" {
		v.Scopes = append(v.Scopes, runtime.ScopeView{
			ID: "sc-2", ParentID: "sc-1", NodeID: "Sub_1", Path: "/Sub_1", State: "interrupted",
			Variables: map[string]any{"local": json.Number("1")},
			Handlers: []runtime.HandlerView{
				{NodeID: "OnCancel", Kind: "boundary", Trigger: "message", Name: "cancel", Interrupting: true},
				{NodeID: "OnAnyError", Kind: "event-subprocess", Trigger: "error", Interrupting: true},
				{NodeID: "Reminder", Kind: "event-subprocess", Trigger: "timer"},
			},
		})
	}
	if req.BusinessKey == "incident" {
		v.Incidents = []runtime.IncidentRow{{ID: "inc-1", InstanceID: id, ProcessKey: v.ProcessKey, InstanceNumber: v.Number, NodeID: "Gateway_1", ScopeID: "sc-1", Kind: "no-outgoing-flow", Message: "no condition matched", CreatedAt: f.now}}
	}
	f.instances[id] = v
	f.order = append(f.order, id)
	return *v, nil
}

func (f *fakeService) Instance(_ context.Context, id runtime.InstanceID) (runtime.InstanceView, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	v, ok := f.instances[id]
	if !ok {
		return runtime.InstanceView{}, fmt.Errorf("instance %s: %w", id, runtime.ErrNotFound)
	}
	return *v, nil
}

func (f *fakeService) InstanceScopes(_ context.Context, id runtime.InstanceID, after string, limit int) ([]runtime.ScopeView, string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	v, ok := f.instances[id]
	if !ok {
		return nil, "", fmt.Errorf("instance %s: %w", id, runtime.ErrNotFound)
	}
	return pageAfter(v.Scopes, after, limit, func(sc runtime.ScopeView) string { return sc.ID })
}

func (f *fakeService) InstanceTracks(_ context.Context, id runtime.InstanceID, after string, limit int) ([]runtime.TrackView, string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	v, ok := f.instances[id]
	if !ok {
		return nil, "", fmt.Errorf("instance %s: %w", id, runtime.ErrNotFound)
	}
	return pageAfter(v.Tracks, after, limit, func(t runtime.TrackView) string { return t.ID })
}

// pageAfter pages items by the id of the last one seen.
func pageAfter[T any](items []T, after string, limit int, id func(T) string) ([]T, string, error) {
	i := 0
	if after != "" {
		i = slices.IndexFunc(items, func(x T) bool { return id(x) == after }) + 1
		if i == 0 {
			return nil, "", &runtime.Error{Code: runtime.EINVALID, Message: "unknown cursor", Field: "cursor"}
		}
	}
	items = items[i:]
	if len(items) > limit {
		return items[:limit], id(items[limit-1]), nil
	}
	return items, "", nil
}

func (f *fakeService) ListInstances(_ context.Context, flt runtime.InstanceFilter) ([]runtime.InstanceRow, int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.lastFilter = flt
	var match []runtime.InstanceRow
	for _, id := range slices.Backward(f.order) {
		v := f.instances[id]
		if (flt.ProcessKey == "" || v.ProcessKey == flt.ProcessKey) &&
			(flt.ProcessVersion == 0 || v.ProcessVersion == flt.ProcessVersion) &&
			(flt.Status == "" || v.Status == flt.Status) &&
			(flt.BusinessKey == "" || v.BusinessKey == flt.BusinessKey) &&
			(flt.ParentID == "" || v.ParentID == flt.ParentID) {
			match = append(match, v.InstanceRow)
		}
	}
	total := len(match)
	lo, hi := min(flt.Offset, total), min(flt.Offset+flt.Limit, total)
	return match[lo:hi], total, nil
}

func (f *fakeService) History(_ context.Context, id runtime.InstanceID, afterSeq int64, limit int) ([]runtime.FactRow, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.lastHistory = [2]int64{afterSeq, int64(limit)}
	if _, ok := f.instances[id]; !ok {
		return nil, fmt.Errorf("history of %s: %w", id, runtime.ErrNotFound)
	}
	all := []runtime.FactRow{
		{Seq: 1, At: f.now, Kind: "instance-started", ScopePath: "/", Detail: json.RawMessage(`{"version":1}`)},
		{Seq: 2, At: f.now, Kind: "element-activated", NodeID: "Start_1", ScopePath: "/"},
		{Seq: 3, At: f.now, Kind: "element-completed", NodeID: "Start_1", ScopePath: "/"},
	}
	var out []runtime.FactRow
	for _, fact := range all {
		if fact.Seq > afterSeq && (limit == 0 || len(out) < limit) {
			out = append(out, fact)
		}
	}
	return out, nil
}

// ModifyInstance answers the instance unchanged; the real behaviour is
// tested against the runtime (api_modify_integration_test.go).
func (f *fakeService) ModifyInstance(_ context.Context, id runtime.InstanceID, _ []runtime.Modification) (runtime.InstanceView, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	v, ok := f.instances[id]
	if !ok {
		return runtime.InstanceView{}, fmt.Errorf("modify %s: %w", id, runtime.ErrNotFound)
	}
	return *v, nil
}

func (f *fakeService) Cancel(_ context.Context, id runtime.InstanceID) (runtime.InstanceView, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	v, ok := f.instances[id]
	if !ok {
		return runtime.InstanceView{}, fmt.Errorf("cancel %s: %w", id, runtime.ErrNotFound)
	}
	if v.Status != runtime.StatusRunning && v.Status != runtime.StatusFailed {
		return runtime.InstanceView{}, runtime.Errorf(runtime.ECONFLICT, "instance %s already ended (%s)", id, v.Status)
	}
	v.Status, v.EndedAt, v.Tracks, v.Scopes = runtime.StatusTerminated, f.now.Add(time.Second), nil, nil
	return *v, nil
}

func (f *fakeService) IncidentsPage(ctx context.Context, id runtime.InstanceID, openOnly bool, cursor string, limit int) ([]runtime.IncidentRow, string, error) {
	all, err := f.Incidents(ctx, id, openOnly)
	if err != nil {
		return nil, "", err
	}
	start := 0
	if cursor != "" {
		start = len(all)
		for i, inc := range all {
			if inc.ID == cursor {
				start = i + 1
			}
		}
	}
	all = all[start:]
	if len(all) > limit {
		return all[:limit], all[limit-1].ID, nil
	}
	return all, "", nil
}

func (f *fakeService) Incidents(_ context.Context, id runtime.InstanceID, openOnly bool) ([]runtime.IncidentRow, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.lastOpen = &openOnly
	var out []runtime.IncidentRow
	for _, iid := range f.order {
		if id == "" || iid == id {
			out = append(out, f.instances[iid].Incidents...)
		}
	}
	return out, nil
}

// Form answers no form: the fake deploys none.
func (f *fakeService) Form(_ context.Context, key string, version int, id string) (runtime.FormView, error) {
	return runtime.FormView{}, runtime.Errorf(runtime.ENOTFOUND, "form %q is not deployed with %s version %d", id, key, version)
}

// CompletedTasks answers none: the fake keeps no completions.
func (f *fakeService) CompletedTasks(_ context.Context, flt runtime.CompletedTaskFilter) ([]runtime.CompletedTaskRow, int, error) {
	return []runtime.CompletedTaskRow{}, 0, nil
}
