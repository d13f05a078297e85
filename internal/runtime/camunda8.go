package runtime

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Camunda 8's acts, keyed by numeric keys: what REST v2 (/v2) and the
// Zeebe gateway (gRPC) both call, so the two surfaces answer alike.
//
// The holder rule. Camunda 8 sends no lock token and no worker name when
// it completes, fails, errors or updates a job: the job's numeric key is
// all it names. These acts are bound to the user who activated the job
// (the caller's user id; "" without authentication, so there anyone may
// act): a made-up key, the key of another kind of entity, and the key of
// a job another user activated are all ENOTFOUND alike, so a key seen
// elsewhere reveals nothing. A job nobody holds is ECONFLICT (Camunda 8's
// FAILED_PRECONDITION / 409). They run through the worker-held machinery
// of workerjobs.go (WorkerHolder with AnyWorker), so the step commits
// under the activation's lock guard as every other job act does.

// DefaultC8Worker is the worker name an activation without one records
// (the name Zeebe's clients default to).
const DefaultC8Worker = "default"

// ErrAwaitTimeout is returned by StartC8Instance when the instance did not
// end within the await's timeout (Camunda 8's DEADLINE_EXCEEDED / 504).
var ErrAwaitTimeout = errors.New("runtime: the instance did not end within the request timeout")

// C8ActivateRequest asks for jobs of one type (Camunda 8's ActivateJobs).
type C8ActivateRequest struct {
	Type string
	// Worker names the worker; "" records DefaultC8Worker.
	Worker string
	// User is the caller's user id ("" without authentication): only the
	// same user may act on the jobs.
	User string
	// MaxJobs caps the jobs returned (1..MaxJobsPerActivation).
	MaxJobs int
	// Timeout is how long the jobs stay locked to the worker.
	Timeout time.Duration
	// RequestTimeout > 0 long-polls up to this long; 0 answers at once.
	RequestTimeout time.Duration
	// FetchVariables, when not nil, names the variables each job carries
	// (empty: all of them, as Camunda 8 reads an empty list).
	FetchVariables []string
}

// C8Job is an activated job with Camunda 8's names.
type C8Job struct {
	// Key is the job's numeric key.
	Key  int64
	Type string
	// InstanceKey is the numeric key of the job's process instance, which
	// also serves as its element instance key (gobpm keeps no numeric key
	// per element instance).
	InstanceKey int64
	InstanceID  InstanceID
	// DefinitionKey is the numeric key of the process version;
	// ProcessID (the BPMN process id) and Version name it.
	DefinitionKey int64
	ProcessID     string
	Version       int
	ElementID     string
	Worker        string
	Retries       int
	Deadline      time.Time
	Variables     map[string]any
	CustomHeaders map[string]string
}

// ActivateC8Jobs locks up to req.MaxJobs activatable jobs of req.Type for
// req.Worker and req.User, long-polling with RequestTimeout > 0 (as
// FetchJobs). EINVALID for a request out of bounds, with Camunda 8's field
// names.
func (r *Runtime) ActivateC8Jobs(ctx context.Context, req C8ActivateRequest) ([]C8Job, error) {
	switch {
	case req.Type == "":
		return nil, &Error{Code: EINVALID, Message: "type is required", Field: "type"}
	case req.MaxJobs < 1 || req.MaxJobs > MaxJobsPerActivation:
		return nil, &Error{Code: EINVALID, Message: fmt.Sprintf("maxJobsToActivate must be between 1 and %d", MaxJobsPerActivation), Field: "maxJobsToActivate"}
	case req.Timeout <= 0 || req.Timeout > MaxLockDuration:
		return nil, &Error{Code: EINVALID, Message: "timeout must be positive and at most one day", Field: "timeout"}
	case req.RequestTimeout < 0 || req.RequestTimeout > MaxRequestTimeout:
		return nil, &Error{Code: EINVALID, Message: "requestTimeout must be between 0 and 5 minutes", Field: "requestTimeout"}
	}
	worker := req.Worker
	if worker == "" {
		worker = DefaultC8Worker
	}
	fetch := req.FetchVariables
	if len(fetch) == 0 {
		fetch = nil
	}
	jobs, err := r.FetchJobs(ctx, FetchRequest{Worker: worker, User: req.User, MaxJobs: req.MaxJobs, RequestTimeout: req.RequestTimeout,
		Topics: []FetchTopic{{Type: req.Type, LockDuration: req.Timeout, FetchVariables: fetch}}})
	if err != nil {
		return nil, err
	}
	out := make([]C8Job, 0, len(jobs))
	if len(jobs) == 0 {
		return out, nil
	}
	waitIDs := make([]string, len(jobs))
	instIDs := make([]string, len(jobs))
	procIDs := make([]string, len(jobs))
	for i, j := range jobs {
		if waitIDs[i], err = r.jobWaitID(ctx, j.Key); err != nil {
			return nil, fmt.Errorf("runtime: activated job %s: %w", j.Key, err)
		}
		instIDs[i] = string(j.InstanceID)
		procIDs[i] = ProcessVersionID(j.ProcessKey, j.ProcessVersion)
	}
	jobKeys, err := r.NumericKeys(ctx, KeyJob, waitIDs)
	if err != nil {
		return nil, err
	}
	instKeys, err := r.NumericKeys(ctx, KeyInstance, instIDs)
	if err != nil {
		return nil, err
	}
	procKeys, err := r.NumericKeys(ctx, KeyProcessVersion, procIDs)
	if err != nil {
		return nil, err
	}
	for i, j := range jobs {
		key, ok := jobKeys[waitIDs[i]]
		if !ok {
			continue // completed or withdrawn since it was activated: gone
		}
		out = append(out, C8Job{Key: key, Type: j.Type, InstanceKey: instKeys[instIDs[i]], InstanceID: j.InstanceID,
			DefinitionKey: procKeys[procIDs[i]], ProcessID: j.ProcessKey, Version: j.ProcessVersion, ElementID: j.NodeID,
			Worker: j.Worker, Retries: j.Retries, Deadline: j.Deadline, Variables: j.Variables, CustomHeaders: j.CustomHeaders})
	}
	return out, nil
}

// c8Act runs act on the job with numeric key key for user, under the
// holder rule: ENOTFOUND for an unknown key or a job another user holds,
// ECONFLICT for a job nobody holds.
func (r *Runtime) c8Act(ctx context.Context, key int64, user string, act func(publicKey string, h WorkerHolder) error) error {
	public, err := r.JobByNumericKey(ctx, key)
	if err != nil {
		if ErrorCode(err) == ENOTFOUND {
			return c8JobNotFound(key, err)
		}
		return err
	}
	err = act(public, WorkerHolder{User: user, AnyWorker: true})
	switch ErrorCode(err) {
	case ENOTFOUND, EFORBIDDEN:
		return c8JobNotFound(key, err)
	case ECONFLICT:
		return &Error{Code: ECONFLICT, Message: fmt.Sprintf("job with key %d is not activated: activate it first (or its activation timed out and another took it)", key), Err: err}
	}
	return err
}

// c8JobNotFound is the one answer for a key that names no job the caller holds.
func c8JobNotFound(key int64, err error) error {
	return &Error{Code: ENOTFOUND, Message: fmt.Sprintf("job with key %d not found", key), Err: err}
}

// CompleteC8Job completes the job with numeric key key, which user
// activated: vars merge into the instance and it continues. The holder
// rule's refusals.
func (r *Runtime) CompleteC8Job(ctx context.Context, key int64, user string, vars map[string]any) error {
	return r.c8Act(ctx, key, user, func(public string, h WorkerHolder) error {
		return r.CompleteWorkerJob(ctx, public, h, vars, nil)
	})
}

// C8Failure is a failed attempt (Camunda 8's FailJob).
type C8Failure struct {
	// Retries is the retries left; at 0 an incident opens.
	Retries int
	// RetryBackoff delays the next activation (0: at once).
	RetryBackoff time.Duration
	ErrorMessage string
	// Variables become local variables of the job's task, as Camunda 8
	// sets them (FailRequest.Variables).
	Variables map[string]any
}

// FailC8Job records a failed attempt of the job with numeric key key,
// which user activated, leaving f.Retries retries. Camunda 8's zero
// backoff means "at once"; gobpm's 0 means its default schedule, so 0 is
// passed on as the smallest delay. f.Variables become local variables of
// the job's task in the failure's step. The holder rule's refusals.
func (r *Runtime) FailC8Job(ctx context.Context, key int64, user string, f C8Failure) error {
	switch {
	case f.Retries < 0:
		return &Error{Code: EINVALID, Message: "retries must not be negative", Field: "retries"}
	case f.RetryBackoff < 0:
		return &Error{Code: EINVALID, Message: "retryBackOff must not be negative", Field: "retryBackOff"}
	}
	backoff := f.RetryBackoff
	if backoff == 0 {
		backoff = time.Nanosecond
	}
	retries := f.Retries
	return r.c8Act(ctx, key, user, func(public string, h WorkerHolder) error {
		return r.FailWorkerJob(ctx, public, h, FailRequest{Retries: &retries, RetryBackoff: backoff, ErrorMessage: f.ErrorMessage, Variables: f.Variables})
	})
}

// ThrowC8JobError throws a BPMN error with code at the task of the job
// with numeric key key, which user activated (see ThrowJobError). The
// holder rule's refusals; EINVALID without a code.
func (r *Runtime) ThrowC8JobError(ctx context.Context, key int64, user, code, message string, vars map[string]any) error {
	if code == "" {
		return &Error{Code: EINVALID, Message: "errorCode is required", Field: "errorCode"}
	}
	return r.c8Act(ctx, key, user, func(public string, h WorkerHolder) error {
		return r.ThrowWorkerJobError(ctx, public, h, code, message, vars)
	})
}

// UpdateC8JobTimeout sets the lock of the job with numeric key key, which
// user activated, to end timeout from now (Camunda 8's UpdateJobTimeout).
// The holder rule's refusals; ECONFLICT also for a lock that expired.
func (r *Runtime) UpdateC8JobTimeout(ctx context.Context, key int64, user string, timeout time.Duration) error {
	if timeout <= 0 || timeout > MaxLockDuration {
		return &Error{Code: EINVALID, Message: "timeout must be positive and at most one day", Field: "timeout"}
	}
	return r.c8Act(ctx, key, user, func(public string, h WorkerHolder) error {
		return r.ExtendWorkerJobLock(ctx, public, h, timeout)
	})
}

// C8Process is a deployed process version with Camunda 8's names.
type C8Process struct {
	// Key is the numeric key of the process version (its
	// processDefinitionKey).
	Key int64
	// ProcessID is the BPMN process id (gobpm's process key).
	ProcessID    string
	Version      int
	ResourceName string
}

// ResolveC8Process finds the process version a Camunda 8 start names:
// by numeric key when key is not 0, else by BPMN process id and version
// (version < 1: the latest). ENOTFOUND when there is none; EINVALID when
// neither is given.
func (r *Runtime) ResolveC8Process(ctx context.Context, processID string, version int, key int64) (C8Process, error) {
	var def DefinitionRecord
	var err error
	switch {
	case key != 0:
		def, err = r.ProcessVersionByNumericKey(ctx, key)
		if ErrorCode(err) == ENOTFOUND {
			return C8Process{}, &Error{Code: ENOTFOUND, Message: fmt.Sprintf("no process definition found with key %d", key), Err: err}
		}
	case processID == "":
		return C8Process{}, &Error{Code: EINVALID, Message: "processDefinitionId or processDefinitionKey is required", Field: "processDefinitionId"}
	default:
		if version < 1 {
			version = 0
		}
		def, err = r.Definition(ctx, processID, version)
		if ErrorCode(err) == ENOTFOUND {
			msg := fmt.Sprintf("no process definition found with process definition id '%s'", processID)
			if version > 0 {
				msg = fmt.Sprintf("no process definition found with process definition id '%s' and version %d", processID, version)
			}
			return C8Process{}, &Error{Code: ENOTFOUND, Message: msg, Err: err}
		}
	}
	if err != nil {
		return C8Process{}, err
	}
	if key == 0 {
		if key, err = r.NumericKey(ctx, KeyProcessVersion, ProcessVersionID(def.Key, def.Version)); err != nil {
			return C8Process{}, err
		}
	}
	return C8Process{Key: key, ProcessID: def.Key, Version: def.Version, ResourceName: def.ResourceName}, nil
}

// C8Await asks StartC8Instance to wait for the instance to end.
type C8Await struct {
	// Timeout bounds the wait (> 0).
	Timeout time.Duration
	// FetchVariables, when not empty, names the variables answered;
	// empty answers all of them.
	FetchVariables []string
}

// C8Instance is a started process instance with Camunda 8's names.
type C8Instance struct {
	// Key is the instance's numeric key.
	Key     int64
	ID      InstanceID
	Process C8Process
	// Variables are the root scope's variables at the end (awaited starts
	// only; nil otherwise).
	Variables map[string]any
}

// StartC8Instance starts an instance of p with vars. With await it waits,
// without polling (the runtime's change feed), until the instance
// completes, then answers its variables (await.FetchVariables); an
// instance that is terminated meanwhile is ECONFLICT, one that does not
// end within await.Timeout is ErrAwaitTimeout (it keeps running).
func (r *Runtime) StartC8Instance(ctx context.Context, p C8Process, vars map[string]any, await *C8Await) (C8Instance, error) {
	var sub *ChangeSubscription
	if await != nil {
		if await.Timeout <= 0 {
			return C8Instance{}, &Error{Code: EINVALID, Message: "requestTimeout must be positive", Field: "requestTimeout"}
		}
		// Subscribed before the start, so the end cannot slip by.
		sub = r.SubscribeChanges()
		defer sub.Close()
	}
	v, err := r.StartInstance(ctx, StartRequest{ProcessKey: p.ProcessID, Version: p.Version, Variables: vars})
	if err != nil {
		return C8Instance{}, err
	}
	key, err := r.NumericKey(ctx, KeyInstance, string(v.ID))
	if err != nil {
		return C8Instance{}, err
	}
	out := C8Instance{Key: key, ID: v.ID, Process: p}
	if await == nil {
		return out, nil
	}
	if out.Variables, err = r.awaitEnd(ctx, sub, v, await); err != nil {
		return C8Instance{}, err
	}
	return out, nil
}

// awaitEnd waits for the instance v to end and returns its variables.
func (r *Runtime) awaitEnd(ctx context.Context, sub *ChangeSubscription, v InstanceView, await *C8Await) (map[string]any, error) {
	timer := time.NewTimer(await.Timeout)
	defer timer.Stop()
	var tick <-chan time.Time
	if every := r.pollEvery(); every > 0 {
		// The instance may run on another node, whose steps this node's
		// feed does not see: look again now and then.
		t := time.NewTicker(every)
		defer t.Stop()
		tick = t.C
	}
	for {
		switch v.Status {
		case StatusCompleted:
			return pickVariables(v.Variables, await.FetchVariables), nil
		case StatusTerminated:
			return nil, &Error{Code: ECONFLICT, Message: fmt.Sprintf("process instance %s was terminated before it completed", v.ID)}
		}
		look := false
		select {
		case c := <-sub.C():
			look = c.InstanceID == v.ID && c.Status != StatusRunning && c.Status != StatusFailed
		case <-tick:
			look = true
		case <-timer.C:
			return nil, fmt.Errorf("instance %s: %w", v.ID, ErrAwaitTimeout)
		case <-sub.Done():
			return nil, &Error{Code: ECONFLICT, Message: "the server is shutting down"}
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		if look || sub.Lost() {
			next, err := r.Instance(ctx, v.ID)
			if err != nil {
				return nil, err
			}
			v = next
		}
	}
}

// pickVariables keeps the variables names lists (all of them when empty).
func pickVariables(vars map[string]any, names []string) map[string]any {
	if len(names) == 0 {
		if vars == nil {
			return map[string]any{}
		}
		return vars
	}
	out := make(map[string]any, len(names))
	for _, n := range names {
		if v, ok := vars[n]; ok {
			out[n] = v
		}
	}
	return out
}

// C8Deployment is a deployment with Camunda 8's names.
type C8Deployment struct {
	// Key is the deployment's numeric key.
	Key       int64
	ID        string
	Processes []C8Process
	// Decisions are the deployed decisions (no numeric keys: gobpm keeps
	// none for decisions).
	Decisions []DefinitionRecord
}

// DeployC8 deploys files (see Deploy) and answers the numeric keys of the
// deployment and of every process version in it.
func (r *Runtime) DeployC8(ctx context.Context, files []File) (C8Deployment, error) {
	res, err := r.Deploy(ctx, files)
	if err != nil {
		return C8Deployment{}, err
	}
	key, err := r.NumericKey(ctx, KeyDeployment, res.ID)
	if err != nil {
		return C8Deployment{}, err
	}
	out := C8Deployment{Key: key, ID: res.ID, Processes: []C8Process{}, Decisions: []DefinitionRecord{}}
	for _, ref := range res.Processes {
		p, err := r.ResolveC8Process(ctx, ref.Key, ref.Version, 0)
		if err != nil {
			return C8Deployment{}, fmt.Errorf("runtime: deployed process %s v%d: %w", ref.Key, ref.Version, err)
		}
		out.Processes = append(out.Processes, p)
	}
	for _, ref := range res.Decisions {
		d, err := r.DecisionDefinition(ctx, ref.Key, ref.Version)
		if err != nil {
			return C8Deployment{}, fmt.Errorf("runtime: deployed decision %s v%d: %w", ref.Key, ref.Version, err)
		}
		out.Decisions = append(out.Decisions, d)
	}
	return out, nil
}

// InstanceByC8Key returns the instance whose numeric key is key.
// ENOTFOUND for a key of no instance.
func (r *Runtime) InstanceByC8Key(ctx context.Context, key int64) (InstanceView, error) {
	id, err := r.ByNumericKey(ctx, KeyInstance, key)
	if err != nil {
		return InstanceView{}, err
	}
	return r.Instance(ctx, InstanceID(id))
}

// ResolveC8Incident resolves the open incident with numeric key key: a
// job incident gets one retry and becomes activatable, a stopped element
// runs again (RetryIncident). ENOTFOUND for a key of no incident;
// ECONFLICT for one already resolved.
func (r *Runtime) ResolveC8Incident(ctx context.Context, key int64) (IncidentRow, error) {
	id, err := r.ByNumericKey(ctx, KeyIncident, key)
	if err != nil {
		return IncidentRow{}, err
	}
	return r.RetryIncident(ctx, id, 1)
}

// SetC8Variables writes vars into the instance whose numeric key is
// elementInstanceKey: Camunda 8 names an element instance there, and
// gobpm keeps numeric keys per process instance only, so the process
// instance key is the element instance key it accepts (the root scope;
// local writes there, without local by the write rule). ENOTFOUND for a
// key of no instance.
func (r *Runtime) SetC8Variables(ctx context.Context, elementInstanceKey int64, vars map[string]any, local bool) (InstanceView, error) {
	id, err := r.ByNumericKey(ctx, KeyInstance, elementInstanceKey)
	if err != nil {
		return InstanceView{}, err
	}
	return r.SetVariables(ctx, InstanceID(id), "", vars, local)
}

// PublishC8Message publishes a message without a time to live: PublishC8
// with Publication{Name, CorrelationKey, Variables}. It returns how many
// subscriptions or starts took the message.
func (r *Runtime) PublishC8Message(ctx context.Context, name, correlationKey string, vars map[string]any) (int, error) {
	n, err := r.CorrelateMessage(ctx, name, correlationKey, vars)
	if ErrorCode(err) == ENOTFOUND {
		return 0, nil
	}
	return n, err
}

// PublishC8 publishes a message with Camunda 8's semantics (see
// PublishMessage): it correlates with the oldest subscription waiting for
// its name and correlation key, or starts instances at message start
// events, and with p.TimeToLive > 0 it is buffered for the subscriptions
// that open within it (p.MessageID makes that unique: a duplicate is
// ErrDuplicateMessage, ECONFLICT). Nothing waiting and no time to live is
// a success that drops the message, as Camunda 8 answers it.
func (r *Runtime) PublishC8(ctx context.Context, p Publication) (PublishResult, error) {
	res, err := r.PublishMessage(ctx, p)
	if p.TimeToLive == 0 && ErrorCode(err) == ENOTFOUND {
		return PublishResult{}, nil
	}
	return res, err
}

// UpdateC8JobRetries sets the retries left of the job with numeric key
// key (Camunda 8's UpdateJobRetries; SetJobRetries): not bound to the
// activating user, as in Camunda 8, where a job out of retries is held by
// nobody. 0 opens an incident; more resolves the job's open incident, so
// the job is activatable again. ENOTFOUND for a key of no job.
func (r *Runtime) UpdateC8JobRetries(ctx context.Context, key int64, retries int) error {
	public, err := r.JobByNumericKey(ctx, key)
	if err == nil {
		err = r.SetJobRetries(ctx, public, retries)
	}
	if ErrorCode(err) == ENOTFOUND {
		return c8JobNotFound(key, err)
	}
	return err
}
