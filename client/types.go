package client

import (
	"encoding/json"
	"fmt"
	"strings"
)

// The JSON shapes of the API, copied from openapi.yaml. Times are RFC 3339
// strings as the server sends them.

// File is one model file to deploy.
type File struct {
	// Name is the file name, e.g. order-approval.bpmn.
	Name string
	// Content is the BPMN or DMN XML.
	Content []byte
}

// DefinitionRef names one registered version of a process or decision.
type DefinitionRef struct {
	Key     string `json:"key"`
	Version int    `json:"version"`
}

// ModelError is one reason a deployment was refused (or a warning).
type ModelError struct {
	Element  string `json:"element"`
	Rule     string `json:"rule"`
	Detail   string `json:"detail"`
	Resource string `json:"resource"`
}

// Deployment is the answer to a successful deployment.
type Deployment struct {
	ID        string          `json:"id"`
	Processes []DefinitionRef `json:"processes"`
	Decisions []DefinitionRef `json:"decisions"`
	Warnings  []ModelError    `json:"warnings"`
}

// ClusterNode is one gobpm process sharing the server's database.
type ClusterNode struct {
	ID          string `json:"id"`
	Address     string `json:"address"`
	Version     string `json:"version"`
	StartedAt   string `json:"startedAt"`
	HeartbeatAt string `json:"heartbeatAt"`
	// Self marks the node that answered.
	Self bool `json:"self"`
}

// Cluster is the answer of GET /api/v1/cluster.
type Cluster struct {
	// Node is the id of the node that answered.
	Node  string        `json:"node"`
	Items []ClusterNode `json:"items"`
}

// Process is the latest version of one process key.
type Process struct {
	Key        string `json:"key"`
	Version    int    `json:"version"`
	Name       string `json:"name"`
	DeployedAt string `json:"deployedAt"`
}

// InstanceLink points at a calling parent instance.
type InstanceLink struct {
	InstanceID string `json:"instanceId"`
	NodeID     string `json:"nodeId"`
}

// InstanceSummary is one row of an instance list.
type InstanceSummary struct {
	ID string `json:"id"`
	// Number is the instance's short number among the instances of its
	// process key, 1, 2, 3… in start order: "order #1042" names it.
	Number      int64         `json:"number"`
	ProcessKey  string        `json:"processKey"`
	Version     int           `json:"version"`
	Status      string        `json:"status"`
	BusinessKey string        `json:"businessKey"`
	Parent      *InstanceLink `json:"parent"`
	CreatedAt   string        `json:"createdAt"`
	UpdatedAt   string        `json:"updatedAt"`
	EndedAt     string        `json:"endedAt,omitempty"`
	// Incident: the instance has an open incident.
	Incident bool `json:"incident"`
	// IncidentsInTree: an instance it called, directly or further down,
	// has an open incident.
	IncidentsInTree bool `json:"incidentsInTree"`
	// Suspended: the instance is suspended (SuspendInstance).
	Suspended bool `json:"suspended"`
}

// InstancePage is one page of ListInstances.
type InstancePage struct {
	Items      []InstanceSummary `json:"items"`
	Total      int               `json:"total"`
	Limit      int               `json:"limit"`
	Offset     int               `json:"offset"`
	NextCursor string            `json:"nextCursor,omitempty"`
}

// Child is an instance called by another, as its caller lists it.
type Child struct {
	InstanceID string `json:"instanceId"`
	Number     int64  `json:"number"`
	ProcessKey string `json:"processKey"`
	NodeID     string `json:"nodeId"`
	Status     string `json:"status"`
}

// Instance is the full picture of one instance.
type Instance struct {
	InstanceSummary
	Children   []Child        `json:"children"`
	Variables  map[string]any `json:"variables"`
	Scopes     []Scope        `json:"scopes"`
	Tracks     []Track        `json:"tracks"`
	ScopeCount int            `json:"scopeCount"`
	TrackCount int            `json:"trackCount"`
	WaitCount  int            `json:"waitCount"`
	Incidents  []Incident     `json:"incidents"`
	// Replayed is true when the server answered a start with the instance
	// an earlier request with the same idempotency key created.
	Replayed bool `json:"-"`
}

// Scope is one open scope of an instance.
type Scope struct {
	ID        string         `json:"id"`
	Path      string         `json:"path"`
	NodeID    *string        `json:"nodeId"`
	ParentID  *string        `json:"parentId"`
	State     string         `json:"state"`
	Variables map[string]any `json:"variables"`
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
	ResolvedAt     string  `json:"resolvedAt,omitempty"`
}

// Wait is one thing an instance waits for.
type Wait struct {
	ID             string  `json:"id"`
	Kind           string  `json:"kind"`
	NodeID         string  `json:"nodeId"`
	ScopeID        string  `json:"scopeId"`
	Name           string  `json:"name"`
	CorrelationKey *string `json:"correlationKey"`
	DueAt          string  `json:"dueAt,omitempty"`
	Retries        *int    `json:"retries,omitempty"`
	Assignee       string  `json:"assignee,omitempty"`
	CreatedAt      string  `json:"createdAt"`
}

// Fact is one history entry of an instance.
type Fact struct {
	Seq       int64           `json:"seq"`
	At        string          `json:"at"`
	Kind      string          `json:"kind"`
	NodeID    *string         `json:"nodeId"`
	ScopePath string          `json:"scopePath"`
	Detail    json.RawMessage `json:"detail"`
}

// Job is an activated job as a worker receives it.
type Job struct {
	// Key is the job's public key.
	Key string `json:"key"`
	// LockToken proves this activation holds the job; CompleteJob, FailJob,
	// ThrowJobError and ExtendJobLock send it.
	LockToken     string            `json:"lockToken"`
	Type          string            `json:"type"`
	InstanceID    string            `json:"instanceId"`
	NodeID        string            `json:"nodeId"`
	Retries       int               `json:"retries"`
	Variables     map[string]any    `json:"variables"`
	CustomHeaders map[string]string `json:"customHeaders"`
	Deadline      string            `json:"deadline"`
}

// Decode copies the job's variables into v, a pointer to a struct with json
// tags (or a map), for handlers that prefer typed variables.
func (j Job) Decode(v any) error {
	b, err := json.Marshal(j.Variables)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}

// Task is a user task.
type Task struct {
	ID              string   `json:"id"`
	InstanceID      string   `json:"instanceId"`
	NodeID          string   `json:"nodeId"`
	Name            string   `json:"name"`
	Assignee        *string  `json:"assignee"`
	CandidateUsers  []string `json:"candidateUsers"`
	CandidateGroups []string `json:"candidateGroups"`
	CreatedAt       string   `json:"createdAt"`
	DueAt           string   `json:"dueAt,omitempty"`
}

// TaskPage is one page of ListTasks.
type TaskPage struct {
	Items  []Task `json:"items"`
	Total  int    `json:"total"`
	Limit  int    `json:"limit"`
	Offset int    `json:"offset"`
}

// DecisionEvaluation is the result of EvaluateDecision.
type DecisionEvaluation struct {
	Key          string   `json:"key"`
	Version      int      `json:"version"`
	Result       any      `json:"result"`
	MatchedRules []string `json:"matchedRules"`
}

// Problem is an RFC 9457 problem document, the error of every failed call.
type Problem struct {
	// Type is a stable URI, e.g. https://gobpm.dev/problems/not-found.
	Type   string `json:"type"`
	Title  string `json:"title"`
	Status int    `json:"status"`
	Detail string `json:"detail"`
	// Instance is the request path.
	Instance  string `json:"instance,omitempty"`
	RequestID string `json:"requestId,omitempty"`
	// Field names the offending request field, if any.
	Field string `json:"field,omitempty"`
	// Errors lists every problem of a refused deployment.
	Errors []ModelError `json:"errors,omitempty"`
	// MigrationProblems and Instances explain a refused migration: the
	// plan's own problems (400) and every selected instance with its
	// problems (409).
	MigrationProblems []MigrationProblem  `json:"problems,omitempty"`
	Instances         []MigrationInstance `json:"instances,omitempty"`
}

// Error returns the status, the problem's short type and its detail.
func (p *Problem) Error() string {
	s := fmt.Sprintf("%d %s", p.Status, p.Slug())
	if p.Detail != "" {
		s += ": " + p.Detail
	}
	if p.Field != "" {
		s += " (field " + p.Field + ")"
	}
	return s
}

// Slug is the last segment of Type, e.g. "not-found".
func (p *Problem) Slug() string {
	return p.Type[strings.LastIndex(p.Type, "/")+1:]
}

// DecisionVersion is one deployed version of a decision.
type DecisionVersion struct {
	Key          string `json:"key"`
	Version      int    `json:"version"`
	Name         string `json:"name"`
	DeployedAt   string `json:"deployedAt"`
	DeploymentID string `json:"deploymentId"`
}

// ScopePage is one page of Scopes.
type ScopePage struct {
	Items []Scope `json:"items"`
	// NextCursor fetches the next page; "" on the last.
	NextCursor string `json:"nextCursor,omitempty"`
}

// TrackPage is one page of Tracks.
type TrackPage struct {
	Items []Track `json:"items"`
	// NextCursor fetches the next page; "" on the last.
	NextCursor string `json:"nextCursor,omitempty"`
}

// AdHocCandidate is an activity a manual ad-hoc region offers.
type AdHocCandidate struct {
	ActivityID string `json:"activityId"`
	// Name is the activity's name, or its id when it has none.
	Name string `json:"name"`
}

// AdHocRegion is an open ad-hoc sub-process of an instance.
type AdHocRegion struct {
	// ScopeID is the region's scope, which ActivateAdHoc addresses.
	ScopeID    string           `json:"scopeId"`
	Path       string           `json:"path"`
	NodeID     string           `json:"nodeId"`
	Selection  string           `json:"selection"` // automatic or manual
	Ordering   string           `json:"ordering"`  // parallel or sequential
	Candidates []AdHocCandidate `json:"candidates"`
	// Running holds an inner activity id per running instance (sorted).
	Running []string `json:"running"`
	// Completed counts completions per inner activity id.
	Completed map[string]int `json:"completed"`
	// Stopped says why the router is no longer asked; nil while it is.
	Stopped *string `json:"stopped"`
	// Router is the region's router (standard, expression, sequence, job);
	// empty for a region that has closed.
	Router string `json:"router,omitempty"`
	// Deciding is true while the region's router job waits for an answer.
	Deciding bool `json:"deciding,omitempty"`
}

// Activation is one activity to start in an ad-hoc region (a person's
// pick, a router's answer), with variables that become local variables of
// the activity's scope (an agent's tool-call arguments).
type Activation struct {
	ActivityID string         `json:"activityId"`
	Variables  map[string]any `json:"variables,omitempty"`
}

// RouterAnswer is a router job's answer: the activities to start (or, in
// a manual region, to offer; empty starts nothing) and variables written
// from the region's scope.
type RouterAnswer struct {
	Activate  []Activation   `json:"activate"`
	Variables map[string]any `json:"variables,omitempty"`
}

// RouterSnapshot is what the worker of a router job decides on: the
// job's variables, read when it was activated.
type RouterSnapshot struct {
	Region struct {
		ID        string `json:"id"`
		Name      string `json:"name"`
		ScopeID   string `json:"scopeId"`
		Selection string `json:"selection"` // automatic or manual
		Ordering  string `json:"ordering"`  // parallel or sequential
	} `json:"region"`
	Progress struct {
		// Completed counts completions per activity id.
		Completed map[string]int `json:"completed"`
		// Running holds an activity id per running instance.
		Running []string `json:"running"`
		// Trigger is the completion the router is asked about (nil when
		// the region opened); Triggers all of them since the last answer.
		Trigger  *string  `json:"trigger"`
		Triggers []string `json:"triggers"`
	} `json:"progress"`
	// Variables are the region's variables, with those of the scopes
	// around it.
	Variables map[string]any `json:"variables"`
	// Candidates are the activities the router may name (an LLM's tools).
	Candidates []RouterCandidate `json:"candidates"`
}

// RouterCandidate is an activity of an ad-hoc region a router may start.
type RouterCandidate struct {
	ID            string `json:"id"`
	Name          string `json:"name"`
	Documentation string `json:"documentation"`
	// Kind is the BPMN element (serviceTask, userTask, subProcess, …).
	Kind string `json:"kind"`
	// Inputs are the activity's declared inputs (its input mappings'
	// targets): the arguments an activation's variables may give.
	Inputs []struct {
		Name string `json:"name"`
	} `json:"inputs"`
}

// RouterSnapshot reads a router job's variables.
func (j Job) RouterSnapshot() (RouterSnapshot, error) {
	var s RouterSnapshot
	if err := j.Decode(&s); err != nil {
		return s, fmt.Errorf("client: router snapshot of job %s: %w", j.Key, err)
	}
	if s.Region.ID == "" {
		return s, fmt.Errorf("client: job %s of type %s is not a router job (no region in its variables)", j.Key, j.Type)
	}
	return s, nil
}

// SessionState is the answer to a login.
type SessionState struct {
	User      string `json:"user"`
	ExpiresAt string `json:"expiresAt"`
}

// User is a built-in user.
type User struct {
	ID        string `json:"id"`
	Name      string `json:"name,omitempty"`
	Disabled  bool   `json:"disabled,omitempty"`
	CreatedAt string `json:"createdAt"`
}

// UserDetail is a user with their groups.
type UserDetail struct {
	User
	Groups []string `json:"groups"`
}

// Group is a group of users.
type Group struct {
	ID        string `json:"id"`
	Name      string `json:"name,omitempty"`
	CreatedAt string `json:"createdAt"`
}

// GroupMembers is a group with its members.
type GroupMembers struct {
	ID      string   `json:"id"`
	Members []string `json:"members"`
}

// Subject is who a grant is given to.
type Subject struct {
	Kind string `json:"kind"` // user or group
	ID   string `json:"id"`
}

// Grant is a permission on the resources of a kind whose keys match a
// pattern, e.g. {start, process, order-*}.
type Grant struct {
	Permission string `json:"permission"`
	Kind       string `json:"kind"`
	Pattern    string `json:"pattern"`
}

// GrantRecord is a role or grant given to a subject.
type GrantRecord struct {
	ID        int64   `json:"id"`
	Subject   Subject `json:"subject"`
	Role      string  `json:"role,omitempty"`
	Grant     *Grant  `json:"grant,omitempty"`
	CreatedAt string  `json:"createdAt"`
	CreatedBy string  `json:"createdBy,omitempty"`
}

// Me is the authenticated caller.
type Me struct {
	User   string   `json:"user"`
	Groups []string `json:"groups"`
	Roles  []string `json:"roles"`
	Grants []Grant  `json:"grants"`
	// Via is none, session, token:<id> or oidc.
	Via string `json:"via"`
	// Actor is who authenticated, when acting for User.
	Actor string `json:"actor,omitempty"`
	// Restricted is true for a token restricted below its owner.
	Restricted bool `json:"restricted"`
}

// TokenRestriction limits a token below its owner.
type TokenRestriction struct {
	Grants []Grant `json:"grants"`
}

// Token is an API token (without its secret).
type Token struct {
	ID          string            `json:"id"`
	Owner       string            `json:"owner"`
	Name        string            `json:"name"`
	Restriction *TokenRestriction `json:"restriction,omitempty"`
	CreatedAt   string            `json:"createdAt"`
	ExpiresAt   string            `json:"expiresAt,omitempty"`
	LastUsedAt  string            `json:"lastUsedAt,omitempty"`
	RevokedAt   string            `json:"revokedAt,omitempty"`
}

// MintedToken is a new token with its secret, shown once.
type MintedToken struct {
	Token Token `json:"token"`
	// Secret is the bearer credential for WithToken.
	Secret string `json:"secret"`
}

// AuditEntry is one audited act.
type AuditEntry struct {
	Seq        int64  `json:"seq"`
	At         string `json:"at"`
	Actor      string `json:"actor,omitempty"`
	OnBehalfOf string `json:"onBehalfOf,omitempty"`
	Via        string `json:"via,omitempty"`
	Action     string `json:"action"`
	Resource   string `json:"resource,omitempty"`
	Outcome    string `json:"outcome"`
	Status     int    `json:"status,omitempty"`
	RequestID  string `json:"requestId,omitempty"`
	Addr       string `json:"addr,omitempty"`
}

// AuditPage is one page of Audit.
type AuditPage struct {
	Items []AuditEntry `json:"items"`
	// Next is the Before of the next page; "" on the last.
	Next string `json:"next,omitempty"`
}
