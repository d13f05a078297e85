package runtime

import "time"

// ActivateRequest asks for jobs of one type.
type ActivateRequest struct {
	Type   string
	Worker string
	// User is the caller's user id ("" when the server runs without
	// authentication). Only the same user may act on the jobs.
	User string
	// MaxJobs caps the jobs returned (1..1000).
	MaxJobs int
	// LockDuration is how long the jobs stay locked to the worker.
	LockDuration time.Duration
	// RequestTimeout > 0 long-polls: the call waits up to this long for a
	// job to become activatable.
	RequestTimeout time.Duration
	// FetchVariables, when not nil, names the variables each job carries:
	// only those of them visible from its task (an empty list: none). Nil
	// carries every visible variable.
	FetchVariables []string
}

// JobView is an activated job as a worker sees it.
type JobView struct {
	// Key is the job's public key, "<wait id>.<mac>" (JobKey): the only
	// form in which the job routes accept it.
	Key string
	// LockToken is the secret that proves this activation holds the lock:
	// complete, fail, error and extend need it (JobHolder). The store keeps
	// only its hash, so it is shown once, here.
	LockToken  string
	Type       string
	InstanceID InstanceID
	NodeID     string
	Retries    int
	// Variables are the variables visible from the task's scope.
	Variables map[string]any
	// CustomHeaders are the job's static headers from the model
	// (zeebe:taskHeaders, an external task's camunda:properties); nil when
	// it has none.
	CustomHeaders map[string]string
	// Deadline is when the lock expires.
	Deadline time.Time
}

// JobHolder is what a caller presents to act on a job it activated: the
// lock token the activation answered and the caller's identity.
type JobHolder struct {
	// Token is JobView.LockToken of the activation.
	Token string
	// User is the caller's user id ("" without authentication); it must be
	// the user who activated the job.
	User string
}

// FailRequest reports a failed job.
type FailRequest struct {
	// Retries is the remaining retries; nil means one less than now.
	Retries *int
	// Calls are the connector calls the attempt made, recorded in the
	// history with the failure.
	Calls []ConnectorCall
	// RetryBackoff delays the next activation; 0 means the default schedule
	// (1 s doubling per attempt up to 5 min, with jitter).
	RetryBackoff time.Duration
	ErrorMessage string
	// ErrorDetails (a stack trace) is kept with the job until its next
	// failure, cut at MaxJobErrorDetails bytes; only the worker-held
	// protocol (FailWorkerJob) records it.
	ErrorDetails string
	// Variables become local variables of the job's task in the failure's
	// step (engine.JobFailed.Variables): the job's later attempts see them,
	// and they are dropped when the task is left.
	Variables map[string]any
}

// TaskView is a user task as the inbox shows it.
type TaskView struct {
	ID              string
	InstanceID      InstanceID
	NodeID          string
	Name            string
	Assignee        string
	CandidateUsers  []string
	CandidateGroups []string
	CreatedAt       time.Time
	DueAt           time.Time
	// ProcessKey and ProcessVersion name the task's process version;
	// BusinessKey is its instance's ("" when none).
	ProcessKey     string
	ProcessVersion int
	BusinessKey    string
	// FormID is the id of the Camunda Form the task's element links ("":
	// none); Form reads it (with ProcessKey and ProcessVersion).
	FormID string
}
