package api

import (
	"encoding/json"
	"net/url"
	"time"

	"github.com/gobpm/gobpm/internal/runtime"
)

// The JSON shapes of the API, as openapi.yaml documents them. They are
// declared here rather than reusing runtime types so the wire format evolves
// only deliberately. Slices are never nil on the wire (empty arrays), maps
// never null (empty objects), times are RFC 3339 in UTC.

// Health is the body of GET /healthz.
type Health struct {
	Status string `json:"status"`
}

// List is a {items:[…]} answer.
type List[T any] struct {
	Items []T `json:"items"`
}

// DefinitionRef names one registered version of a process or decision.
type DefinitionRef struct {
	Key     string `json:"key"`
	Version int    `json:"version"`
}

// Deployment is the answer to a successful deployment.
type Deployment struct {
	ID        string          `json:"id"`
	Processes []DefinitionRef `json:"processes"`
	Decisions []DefinitionRef `json:"decisions"`
	// Warnings are problems that did not refuse the deployment (a DMN
	// expression that does not compile: its element evaluates to null with
	// an error).
	Warnings []ModelError `json:"warnings"`
}

// Process is the latest version of one process key.
type Process struct {
	Key        string `json:"key"`
	Version    int    `json:"version"`
	Name       string `json:"name"`
	DeployedAt string `json:"deployedAt"`
}

// ProcessVersion is one version of a process key.
type ProcessVersion struct {
	Process
	DeploymentID string `json:"deploymentId"`
	// Suspended: the version starts no instance until it is resumed.
	Suspended bool `json:"suspended"`
}

// Decision is the latest version of one decision key.
type Decision struct {
	Key        string `json:"key"`
	Version    int    `json:"version"`
	Name       string `json:"name"`
	DeployedAt string `json:"deployedAt"`
}

// DecisionVersion is one version of a decision key.
type DecisionVersion struct {
	Decision
	DeploymentID string `json:"deploymentId"`
}

// DecisionEvaluation is the answer of POST /api/v1/decisions/{key}/evaluate.
type DecisionEvaluation struct {
	Key     string `json:"key"`
	Version int    `json:"version"`
	// Result is the decision's value: any JSON, null when nothing matched.
	Result any `json:"result"`
	// MatchedRules are the ids of the rules that matched ("decision#index"
	// for a rule without one).
	MatchedRules []string `json:"matchedRules"`
}

// InstanceLink points at a calling parent instance.
type InstanceLink struct {
	InstanceID string `json:"instanceId"`
	NodeID     string `json:"nodeId"`
}

// Child is a called child instance.
type Child struct {
	InstanceID string `json:"instanceId"`
	// Number and ProcessKey name the child for people ("invoice #7").
	Number     int64  `json:"number"`
	ProcessKey string `json:"processKey"`
	NodeID     string `json:"nodeId"`
	Status     string `json:"status"`
}

// InstanceSummary is one row of GET /api/v1/instances.
type InstanceSummary struct {
	ID string `json:"id"`
	// Number is the instance's short number among the instances of its
	// process key, 1, 2, 3… in start order: "order #1042" names it.
	Number     int64  `json:"number"`
	ProcessKey string `json:"processKey"`
	Version    int    `json:"version"`
	// Status is running, completed, terminated or failed; failed without
	// EndedAt is an instance stopped on an open incident (Incident), with
	// EndedAt one ended by an error it could not handle (openapi.yaml's
	// InstanceStatus).
	Status      string        `json:"status"`
	BusinessKey string        `json:"businessKey"`
	Parent      *InstanceLink `json:"parent"`
	CreatedAt   string        `json:"createdAt"`
	UpdatedAt   string        `json:"updatedAt"`
	// EndedAt is omitted while the instance runs.
	EndedAt string `json:"endedAt,omitempty"`
	// Incident: the instance has an open incident of its own; its status
	// is then "failed" without EndedAt until the incident is retried.
	Incident bool `json:"incident"`
	// IncidentsInTree: an instance it called, directly or further down,
	// has an open incident.
	IncidentsInTree bool `json:"incidentsInTree"`
	// Suspended: the instance is suspended (no steps until it is resumed).
	Suspended bool `json:"suspended"`
}

// InstancePage is the answer of GET /api/v1/instances. Total counts the
// matches up to 10 000; 10 001 means more. NextCursor, set when the page
// is full, asks for the page after it (the next page may be empty).
type InstancePage struct {
	Items      []InstanceSummary `json:"items"`
	Total      int               `json:"total"`
	Limit      int               `json:"limit"`
	Offset     int               `json:"offset"`
	NextCursor string            `json:"nextCursor,omitempty"`
}

// Instance is the full picture of one instance.
type Instance struct {
	InstanceSummary
	Children  []Child        `json:"children"`
	Variables map[string]any `json:"variables"`
	// Scopes and Tracks are the first pages (GET …/scopes and …/tracks
	// page on); ScopeCount and TrackCount say how many there are in all.
	Scopes     []Scope `json:"scopes"`
	Tracks     []Track `json:"tracks"`
	ScopeCount int     `json:"scopeCount"`
	TrackCount int     `json:"trackCount"`
	// WaitCount is how many waits are open (GET …/waits pages them).
	WaitCount int        `json:"waitCount"`
	Incidents []Incident `json:"incidents"`
}

// Page is one page of a list paged by cursor: pass NextCursor as cursor
// for the next page; it is absent on the last one.
type Page[T any] struct {
	Items      []T    `json:"items"`
	NextCursor string `json:"nextCursor,omitempty"`
}

// Scope is one open scope of an instance with its local variables and the
// event handlers armed on it.
type Scope struct {
	ID   string `json:"id"`
	Path string `json:"path"`
	// NodeID is the container node; null for the root scope.
	NodeID *string `json:"nodeId"`
	// ParentID is null for the root scope.
	ParentID *string `json:"parentId"`
	// State is "active", or "interrupted" once an interrupting event
	// sub-process runs in it.
	State     string         `json:"state"`
	Variables map[string]any `json:"variables"`
	Handlers  []Handler      `json:"handlers"`
	// Kind is "body" for a loop or multi-instance body, "iteration" for one
	// of its iterations, null for any other scope.
	Kind *string `json:"kind"`
	// Index is an iteration's index (from 1); null for any other scope.
	Index *int `json:"index"`
}

// Handler is an event handler armed on a scope: an event sub-process
// declared in it or a boundary event on its host sub-process.
type Handler struct {
	NodeID string `json:"nodeId"`
	// Kind is "event-subprocess" or "boundary".
	Kind string `json:"kind"`
	// Trigger is message, timer, signal, error, escalation or conditional.
	Trigger string `json:"trigger"`
	// Name is the message or signal name or the error/escalation code; null
	// when the handler catches any (or its trigger has no name).
	Name         *string `json:"name"`
	Interrupting bool    `json:"interrupting"`
}

// Track is one token.
type Track struct {
	ID      string `json:"id"`
	ScopeID string `json:"scopeId"`
	NodeID  string `json:"nodeId"`
	State   string `json:"state"`
}

// Incident is a failure an operator must look at.
type Incident struct {
	ID         string `json:"id"`
	InstanceID string `json:"instanceId"`
	// ProcessKey and InstanceNumber name the incident's instance for
	// people ("invoice #7").
	ProcessKey     string  `json:"processKey"`
	InstanceNumber int64   `json:"instanceNumber"`
	NodeID         *string `json:"nodeId"`
	ScopeID        *string `json:"scopeId"`
	Kind           string  `json:"kind"`
	Message        string  `json:"message"`
	CreatedAt      string  `json:"createdAt"`
	// ResolvedAt is omitted while the incident is open.
	ResolvedAt string `json:"resolvedAt,omitempty"`
}

// Fact is one history entry of an instance.
type Fact struct {
	Seq       int64   `json:"seq"`
	At        string  `json:"at"`
	Kind      string  `json:"kind"`
	NodeID    *string `json:"nodeId"`
	ScopePath string  `json:"scopePath"`
	// Detail is kind-specific JSON, null when the fact has none.
	Detail json.RawMessage `json:"detail"`
}

// Job is an activated job as a worker receives it.
type Job struct {
	// Key is the job's public key, "<wait id>.<mac>".
	Key string `json:"key"`
	// LockToken proves this activation holds the job: complete, fail, error
	// and extend need it. The server keeps only its hash.
	LockToken  string `json:"lockToken"`
	Type       string `json:"type"`
	InstanceID string `json:"instanceId"`
	NodeID     string `json:"nodeId"`
	Retries    int    `json:"retries"`
	// Variables are the variables visible from the task's scope.
	Variables map[string]any `json:"variables"`
	// CustomHeaders are the job's static headers from the model
	// (zeebe:taskHeaders, camunda:properties); {} when there are none.
	CustomHeaders map[string]string `json:"customHeaders"`
	// Deadline is when the worker's lock expires.
	Deadline string `json:"deadline"`
}

// ActivatedJobs is the answer of POST /api/v1/jobs/activate.
type ActivatedJobs struct {
	Jobs []Job `json:"jobs"`
}

// Task is a user task as the inbox shows it.
type Task struct {
	ID         string `json:"id"`
	InstanceID string `json:"instanceId"`
	NodeID     string `json:"nodeId"`
	Name       string `json:"name"`
	// Assignee is null while nobody has claimed the task.
	Assignee        *string  `json:"assignee"`
	CandidateUsers  []string `json:"candidateUsers"`
	CandidateGroups []string `json:"candidateGroups"`
	CreatedAt       string   `json:"createdAt"`
	// DueAt is omitted when the task has no due date.
	DueAt string `json:"dueAt,omitempty"`
	// ProcessKey and ProcessVersion name the task's process version.
	ProcessKey     string `json:"processKey"`
	ProcessVersion int    `json:"processVersion"`
	// BusinessKey is the instance's business key, null when it has none.
	BusinessKey *string `json:"businessKey"`
	// FormID is the id of the Camunda Form the task links, null when none;
	// FormURL is then the route that returns its schema.
	FormID  *string `json:"formId"`
	FormURL string  `json:"formUrl,omitempty"`
}

// CompletedTask is a user task someone completed.
type CompletedTask struct {
	ID         string `json:"id"`
	InstanceID string `json:"instanceId"`
	NodeID     string `json:"nodeId"`
	Name       string `json:"name"`
	ProcessKey string `json:"processKey"`
	// BusinessKey is the instance's, null when it has none.
	BusinessKey *string `json:"businessKey"`
	CompletedBy string  `json:"completedBy"`
	CreatedAt   string  `json:"createdAt"`
	CompletedAt string  `json:"completedAt"`
}

// CompletedTaskPage is the answer of GET /api/v1/completed-tasks.
type CompletedTaskPage struct {
	Items  []CompletedTask `json:"items"`
	Total  int             `json:"total"`
	Limit  int             `json:"limit"`
	Offset int             `json:"offset"`
}

// TaskForm is the answer of GET /api/v1/tasks/{id}/form: the Camunda Form
// that completes the task.
type TaskForm struct {
	ID       string          `json:"id"`
	Resource string          `json:"resource"`
	Schema   json.RawMessage `json:"schema"`
}

// TaskPage is the answer of GET /api/v1/tasks.
type TaskPage struct {
	Items  []Task `json:"items"`
	Total  int    `json:"total"`
	Limit  int    `json:"limit"`
	Offset int    `json:"offset"`
}

// AdHocRegions is the answer of GET /api/v1/instances/{id}/adhoc.
type AdHocRegions struct {
	Regions []AdHocRegion `json:"regions"`
}

// AdHocRegion is an open ad-hoc region of an instance.
type AdHocRegion struct {
	// ScopeID is the region's scope, the address for activation.
	ScopeID string `json:"scopeId"`
	Path    string `json:"path"`
	NodeID  string `json:"nodeId"`
	// Selection is "automatic" or "manual"; Ordering "parallel" or "sequential".
	Selection  string      `json:"selection"`
	Ordering   string      `json:"ordering"`
	Candidates []Candidate `json:"candidates"`
	// Running lists the running inner activities, an id per running instance.
	Running []string `json:"running"`
	// Completed counts completions per inner activity.
	Completed map[string]int `json:"completed"`
	// Stopped says why the router is no longer asked; null while it is.
	Stopped *string `json:"stopped"`
	// Router is the region's router (standard, expression, sequence, job);
	// Deciding is true while its router job waits for a worker's answer.
	Router   string `json:"router,omitempty"`
	Deciding bool   `json:"deciding,omitempty"`
}

// Candidate is an activity a manual region offers.
type Candidate struct {
	ActivityID string `json:"activityId"`
	Name       string `json:"name"`
}

// Wait is one thing an instance waits for.
type Wait struct {
	ID string `json:"id"`
	// Kind is job, task, timer, message, signal, condition or call.
	Kind    string `json:"kind"`
	NodeID  string `json:"nodeId"`
	ScopeID string `json:"scopeId"`
	// Name is the job type, message or signal name, or task name.
	Name string `json:"name"`
	// CorrelationKey is a message subscription's key; null when none.
	CorrelationKey *string `json:"correlationKey"`
	// DueAt is a timer's due time, a job's retry-not-before time or a
	// task's due date; omitted when unset.
	DueAt string `json:"dueAt,omitempty"`
	// Retries is a job's remaining retries; omitted for other kinds.
	Retries *int `json:"retries,omitempty"`
	// Assignee is a task's assignee; omitted when unassigned.
	Assignee        string   `json:"assignee,omitempty"`
	CandidateUsers  []string `json:"candidateUsers"`
	CandidateGroups []string `json:"candidateGroups"`
	CreatedAt       string   `json:"createdAt"`
	// LockOwner and LockExpiresAt describe a job's activation; omitted
	// when it is not locked.
	LockOwner     string `json:"lockOwner,omitempty"`
	LockExpiresAt string `json:"lockExpiresAt,omitempty"`
}

// Correlated is the answer of POST /api/v1/messages.
type Correlated struct {
	Correlated int `json:"correlated"`
}

// Triggered is the answer of POST /api/v1/signals.
type Triggered struct {
	Triggered int `json:"triggered"`
}

// timestamp formats t as RFC 3339 with nanoseconds in UTC; "" for the zero time.
func timestamp(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339Nano)
}

// nullable maps "" to null.
func nullable(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func vars(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	return m
}

func toDeployment(d runtime.DeploymentResult) Deployment {
	out := Deployment{ID: d.ID, Processes: make([]DefinitionRef, 0, len(d.Processes)), Decisions: make([]DefinitionRef, 0, len(d.Decisions))}
	for _, p := range d.Processes {
		out.Processes = append(out.Processes, DefinitionRef{Key: p.Key, Version: p.Version})
	}
	for _, p := range d.Decisions {
		out.Decisions = append(out.Decisions, DefinitionRef{Key: p.Key, Version: p.Version})
	}
	out.Warnings = make([]ModelError, 0, len(d.Warnings))
	for _, w := range d.Warnings {
		out.Warnings = append(out.Warnings, ModelError{Element: w.Element, Rule: w.Rule, Detail: w.Detail, Resource: w.Resource})
	}
	return out
}

func toDecision(d runtime.DefinitionRecord) Decision {
	return Decision{Key: d.Key, Version: d.Version, Name: d.Name, DeployedAt: timestamp(d.DeployedAt)}
}

func toProcess(d runtime.DefinitionRecord) Process {
	return Process{Key: d.Key, Version: d.Version, Name: d.Name, DeployedAt: timestamp(d.DeployedAt)}
}

func toSummary(row runtime.InstanceRow) InstanceSummary {
	s := InstanceSummary{
		ID:          string(row.ID),
		Number:      row.Number,
		ProcessKey:  row.ProcessKey,
		Version:     row.ProcessVersion,
		Status:      row.Status,
		BusinessKey: row.BusinessKey,
		CreatedAt:   timestamp(row.CreatedAt),
		UpdatedAt:   timestamp(row.UpdatedAt),
		EndedAt:     timestamp(row.EndedAt),
		Suspended:   row.Suspended,
	}
	if row.ParentID != "" {
		s.Parent = &InstanceLink{InstanceID: string(row.ParentID), NodeID: row.ParentNodeID}
	}
	return s
}

func toInstance(v runtime.InstanceView) Instance {
	out := Instance{
		InstanceSummary: toSummary(v.InstanceRow),
		Children:        make([]Child, 0, len(v.Children)),
		Variables:       vars(v.Variables),
		Scopes:          make([]Scope, 0, len(v.Scopes)),
		Tracks:          make([]Track, 0, len(v.Tracks)),
		ScopeCount:      v.ScopeCount,
		TrackCount:      v.TrackCount,
		WaitCount:       v.WaitCount,
		Incidents:       make([]Incident, 0, len(v.Incidents)),
	}
	for _, c := range v.Children {
		out.Children = append(out.Children, Child{InstanceID: string(c.InstanceID), Number: c.Number, ProcessKey: c.ProcessKey, NodeID: c.NodeID, Status: c.Status})
	}
	for _, sc := range v.Scopes {
		out.Scopes = append(out.Scopes, toScope(sc))
	}
	for _, t := range v.Tracks {
		out.Tracks = append(out.Tracks, toTrack(t))
	}
	for _, inc := range v.Incidents {
		out.Incidents = append(out.Incidents, toIncident(inc))
	}
	return out
}

func toTrack(t runtime.TrackView) Track {
	return Track{ID: t.ID, ScopeID: t.ScopeID, NodeID: t.NodeID, State: t.State}
}

func toScope(sc runtime.ScopeView) Scope {
	out := Scope{
		ID: sc.ID, Path: sc.Path, NodeID: nullable(sc.NodeID), ParentID: nullable(sc.ParentID),
		State: sc.State, Variables: vars(sc.Variables), Handlers: make([]Handler, 0, len(sc.Handlers)),
		Kind: nullable(sc.Kind),
	}
	if sc.Kind == "iteration" {
		index := sc.Index
		out.Index = &index
	}
	for _, h := range sc.Handlers {
		out.Handlers = append(out.Handlers, Handler{
			NodeID: h.NodeID, Kind: h.Kind, Trigger: h.Trigger, Name: nullable(h.Name), Interrupting: h.Interrupting,
		})
	}
	return out
}

func toIncident(inc runtime.IncidentRow) Incident {
	return Incident{
		ID: inc.ID, InstanceID: string(inc.InstanceID), ProcessKey: inc.ProcessKey, InstanceNumber: inc.InstanceNumber,
		NodeID: nullable(inc.NodeID), ScopeID: nullable(inc.ScopeID),
		Kind: inc.Kind, Message: inc.Message, CreatedAt: timestamp(inc.CreatedAt), ResolvedAt: timestamp(inc.ResolvedAt),
	}
}

func toFact(f runtime.FactRow) Fact {
	detail := f.Detail
	if len(detail) == 0 {
		detail = json.RawMessage("null")
	}
	return Fact{Seq: f.Seq, At: timestamp(f.At), Kind: f.Kind, NodeID: nullable(f.NodeID), ScopePath: f.ScopePath, Detail: detail}
}

func toJob(j runtime.JobView) Job {
	return Job{
		Key: j.Key, LockToken: j.LockToken, Type: j.Type, InstanceID: string(j.InstanceID), NodeID: j.NodeID, Retries: j.Retries,
		Variables: vars(j.Variables), CustomHeaders: jobHeaders(j.CustomHeaders), Deadline: timestamp(j.Deadline),
	}
}

// jobHeaders maps nil headers to an empty object.
func jobHeaders(h map[string]string) map[string]string {
	if h == nil {
		return map[string]string{}
	}
	return h
}

func toTask(t runtime.TaskView) Task {
	out := Task{
		ID: t.ID, InstanceID: string(t.InstanceID), NodeID: t.NodeID, Name: t.Name, Assignee: nullable(t.Assignee),
		CandidateUsers: strs(t.CandidateUsers), CandidateGroups: strs(t.CandidateGroups),
		CreatedAt: timestamp(t.CreatedAt), DueAt: timestamp(t.DueAt),
		ProcessKey: t.ProcessKey, ProcessVersion: t.ProcessVersion,
		BusinessKey: nullable(t.BusinessKey), FormID: nullable(t.FormID),
	}
	if t.FormID != "" {
		out.FormURL = "/api/v1/tasks/" + url.PathEscape(t.ID) + "/form"
	}
	return out
}

// strs maps a nil slice to an empty one.
func strs(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func toRegion(reg runtime.RegionView) AdHocRegion {
	out := AdHocRegion{
		ScopeID: reg.ScopeID, Path: reg.Path, NodeID: reg.NodeID, Selection: reg.Selection, Ordering: reg.Ordering,
		Candidates: make([]Candidate, 0, len(reg.Candidates)), Running: strs(reg.Running),
		Completed: reg.Completed, Stopped: nullable(reg.Stopped), Router: reg.Router, Deciding: reg.Deciding,
	}
	if out.Completed == nil {
		out.Completed = map[string]int{}
	}
	for _, c := range reg.Candidates {
		out.Candidates = append(out.Candidates, Candidate{ActivityID: c.ActivityID, Name: c.Name})
	}
	return out
}

func toWait(w runtime.WaitRow) Wait {
	out := Wait{
		ID: w.ID, Kind: w.Kind, NodeID: w.NodeID, ScopeID: w.ScopeID, Name: w.Name, CorrelationKey: nullable(w.CorrelationKey),
		DueAt: timestamp(w.DueAt), Assignee: w.Assignee, CandidateUsers: strs(w.CandidateUsers), CandidateGroups: strs(w.CandidateGroups),
		CreatedAt: timestamp(w.CreatedAt), LockOwner: w.LockOwner, LockExpiresAt: timestamp(w.LockExpiresAt),
	}
	if w.Kind == runtime.WaitJob {
		retries := w.Retries
		out.Retries = &retries
	}
	return out
}
