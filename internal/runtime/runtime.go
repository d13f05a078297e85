package runtime

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"

	"github.com/gobpm/gobpm/internal/bpmn"
	"github.com/gobpm/gobpm/internal/clock"
	"github.com/gobpm/gobpm/internal/dmn"
	"github.com/gobpm/gobpm/internal/engine"
	"github.com/gobpm/gobpm/internal/scope"
	"github.com/gobpm/gobpm/internal/telemetry"
)

// Options configure a Runtime. Zero values pick the defaults.
type Options struct {
	// Logger receives the runtime's logs; nil discards them.
	Logger *slog.Logger
	// Now is the clock; nil means time.Now. Tests inject a fixed clock.
	Now func() time.Time
	// ManualClock, when set, is the clock (Now is then ignored), and
	// SetClock and AdvanceClock move it (clock.go).
	ManualClock *clock.Manual
	// NewID mints instance and deployment ids; nil means UUID version 7.
	NewID func() string
	// Engine bounds each step; a deployment refuses a model that could
	// not run within these bounds (engine.Options.ModelLimits). Its
	// MintIDFunc, when nil, becomes NewID: a called child's id is minted
	// like any instance's. Its Eval.Timeout, when 0, becomes
	// DefaultEvalTimeout (a negative one sets no deadline).
	Engine engine.Options
	// CallTree bounds the work one command may create across its call
	// tree: the children call activities launch with their caller, their
	// element activations and their bytes (calltree.go).
	CallTree CallTreeLimits
	// MaxTimerStartsPerSecond caps how many instances the timer start
	// events of one process key start per second of the clock; due starts
	// beyond it wait for the following seconds (scheduler.go). 0 means
	// DefaultMaxTimerStartsPerSecond, a negative value sets no cap.
	MaxTimerStartsPerSecond int
	// GroupCommitMax caps how many steps share one transaction; 0 means 64.
	GroupCommitMax int
	// GroupCommitLinger is how long a busy committer waits for more steps
	// to share a transaction; 0 means DefaultGroupCommitLinger, a negative
	// value never waits.
	GroupCommitLinger time.Duration
	// Resolver maps call activity references to keys; nil means DefaultResolver.
	Resolver Resolver
	// Reach checks, when a dynamic reference of a model resolves (a callee
	// or job type given as an expression), that the model's deployer may
	// reach it (reach.go); nil checks nothing (a server without
	// authentication).
	Reach ReachGuard
	// OutboxRetry is the first delay before the scheduler retries outbox
	// rows whose work failed (it doubles up to a minute while nothing
	// succeeds); 0 means 2 s.
	OutboxRetry time.Duration
	// StateCacheWeight bounds the decoded states kept between steps (the
	// sum of 1 + scopes + tracks + waits over cached instances); 0 means
	// DefaultStateCacheWeight, a negative value disables the cache.
	StateCacheWeight int
	// IdempotencyWindow is how long an idempotency key is remembered; 0
	// means DefaultIdempotencyWindow.
	IdempotencyWindow time.Duration
	// Retention configures the history cleaner (retention.go).
	Retention RetentionOptions
	// BackupDir is the directory Backup writes into; "" refuses backups
	// through the runtime (backup.go).
	BackupDir string
	// Rand is the source of the secrets the runtime mints: job lock tokens
	// and, on a new database, the key that signs job keys. nil means
	// crypto/rand.Reader; tests may inject a deterministic reader (reads
	// are serialized, so it need not be safe for concurrent use).
	Rand io.Reader
	// Node is what this process says about itself in GET /api/v1/cluster
	// (and, on a store several nodes share, in its registration).
	Node NodeInfo
	// Heartbeat is how often a node of a cluster (a ClusterStore)
	// refreshes its registration and looks for due timers; 0 means
	// DefaultHeartbeat.
	Heartbeat time.Duration
	// NodeTimeout is how long a node of a cluster may go without a
	// heartbeat before the others remove it and take over its timers and
	// outbox rows; 0 means DefaultNodeTimeout.
	NodeTimeout time.Duration
	// MetricsLabelLimit bounds how many distinct process keys, and how
	// many distinct job types, get series of their own in ProcessMetrics;
	// the others are counted under OtherLabel. 0 means
	// DefaultMetricsLabelLimit.
	MetricsLabelLimit int
	// Tracer traces steps and jobs (tracing.go); nil traces nothing.
	Tracer *telemetry.Tracer
	// BatchRate caps how many instances the batch operations act on per
	// second, all batches together (batch.go); 0 means DefaultBatchRate.
	BatchRate int
}

// Runtime is the service layer. Its methods are safe for concurrent use.
type Runtime struct {
	store    Store
	resolver Resolver
	// tracer traces steps and jobs; nil when tracing is off.
	tracer *telemetry.Tracer
	// reach checks dynamic references; reachers caches their deployers.
	reach    ReachGuard
	reachers deployers
	log      *slog.Logger
	now      func() time.Time
	newID    func() string
	engine   engine.Options
	// callTree bounds what one command launches across its call tree.
	callTree CallTreeLimits
	// idempotencyWindow is how long idempotency keys are remembered.
	idempotencyWindow time.Duration

	defs *cache[*bpmn.Process]
	decs *cache[*dmn.Definitions]
	// webhooks caches the webhooks served (webhooks.go).
	webhooks webhookCache
	locks    *instanceLocks
	// states keeps hot instances decoded, used only under their lock.
	states   *stateCache
	commit   *committer
	jobReady *notifier
	// changes fans committed steps out to live views (changes.go).
	changes changeFeed
	// jobHomes remembers the instances of the jobs activated here.
	jobHomes *jobHomes

	// startLocks serialize, per process key, firing a timer start with
	// replacing the key's schedule at deployment (keys as InstanceID).
	startLocks *instanceLocks
	// startRate counts the timer starts of each key in the current second.
	startRate *startRate

	// The timer scheduler (scheduler.go), started by Resume.
	schedOnce sync.Once
	schedWake chan struct{}
	// firing lets one pass over the due timers run at a time, so a move of
	// the manual clock counts exactly the timers its own pass fired.
	firing    sync.Mutex
	schedStop chan struct{}
	schedDone chan struct{}
	closeOnce sync.Once

	metrics metrics

	// rand mints lock tokens and the job-key secret (jobkeys.go); keys
	// signs and verifies public job keys once its secret is loaded.
	rand *lockedReader
	keys jobKeys

	// outbox holds the rows being performed; outboxRetry asks the scheduler
	// to retry rows whose work failed, after outboxEvery.
	outbox      *outboxClaims
	outboxRetry atomic.Bool
	outboxEvery time.Duration

	// retention configures the history cleaner, cleaner runs it
	// (retention.go); backupDir is where Backup writes (backup.go).
	retention RetentionOptions
	cleaner   *cleaner
	backupDir string
	// manual is the clock when it is manual (clock.go); nil for a real
	// clock.
	manual *clock.Manual

	// batches runs migration batches (migrate.go) and batch operations
	// (batch.go).
	batches *batches
	// pace spaces the acts of the batch operations (batch.go).
	pace *pacer

	// draining is closed by BeginShutdown: long polls answer at once.
	draining  chan struct{}
	drainOnce sync.Once

	// buffer tells when no step needs to read the message buffer
	// (msgbuffer.go).
	buffer bufferState

	// cluster is the node's membership when the store is shared by
	// several nodes (cluster.go), nil otherwise; self describes this node.
	cluster *cluster
	self    NodeRow
}

// BeginShutdown makes waiting long polls answer (with what they have) so an
// HTTP server can shut down without waiting minutes for them. Idempotent.
func (r *Runtime) BeginShutdown() {
	r.drainOnce.Do(func() { close(r.draining) })
}

// DefaultEvalTimeout is the wall-clock deadline of one expression
// evaluation (engine.Options.Eval.Timeout) when none is configured: a
// safety net behind the step budget, which stops every runaway first.
const DefaultEvalTimeout = 2 * time.Second

// New returns a Runtime over store. Call Resume once at start-up and Close at
// shutdown.
func New(store Store, opts Options) *Runtime {
	r := &Runtime{
		store:             store,
		tracer:            opts.Tracer,
		log:               opts.Logger,
		now:               opts.Now,
		newID:             opts.NewID,
		engine:            opts.Engine,
		callTree:          opts.CallTree.withDefaults(opts.Engine),
		idempotencyWindow: cmp.Or(opts.IdempotencyWindow, DefaultIdempotencyWindow),
		defs:              newCache[*bpmn.Process](),
		decs:              newCache[*dmn.Definitions](),
		locks:             newInstanceLocks(),
		states:            newStateCache(cmp.Or(opts.StateCacheWeight, DefaultStateCacheWeight)),

		jobReady:   newNotifier(),
		jobHomes:   newJobHomes(),
		startLocks: newInstanceLocks(),
		startRate:  newStartRate(opts.MaxTimerStartsPerSecond),
		schedWake:  make(chan struct{}, 1),
		schedStop:  make(chan struct{}),
		schedDone:  make(chan struct{}),
		draining:   make(chan struct{}),

		outbox:      newOutboxClaims(),
		outboxEvery: opts.OutboxRetry,
		rand:        newLockedReader(opts.Rand),

		retention: opts.Retention,
		cleaner:   newCleaner(),
		backupDir: opts.BackupDir,
		batches:   newBatches(),
		pace:      newPacer(cmp.Or(opts.BatchRate, DefaultBatchRate)),
	}
	if r.retention.Batch <= 0 {
		r.retention.Batch = DefaultRetentionBatch
	}
	if r.retention.Every == 0 {
		r.retention.Every = DefaultRetentionEvery
	}
	if r.outboxEvery <= 0 {
		r.outboxEvery = defaultOutboxRetry
	}
	if r.log == nil {
		r.log = slog.New(slog.DiscardHandler)
	}
	if r.manual = opts.ManualClock; r.manual != nil {
		r.now = r.manual.Now
	}
	if r.now == nil {
		r.now = time.Now
	}
	r.cluster, r.self = newCluster(store, opts, r.now().UTC())
	r.metrics.labels.setLimit(opts.MetricsLabelLimit)
	r.commit = newCommitter(store, opts.GroupCommitMax, cmp.Or(opts.GroupCommitLinger, DefaultGroupCommitLinger), &r.metrics, r.outbox)
	r.reach = opts.Reach
	if r.resolver = opts.Resolver; r.resolver == nil {
		r.resolver = DefaultResolver{}
	}
	if r.newID == nil {
		r.newID = func() string { return uuid.Must(uuid.NewV7()).String() }
	}
	if r.engine.MintIDFunc == nil {
		// A call activity's child gets a fresh id from the same source as
		// every instance, never one built from its parent's.
		r.engine.MintIDFunc = r.newID
	}
	if r.engine.Eval.Timeout == 0 {
		// The engine reads no clock: the deadline of its evaluations is
		// the runtime's to set (the evaluator measures it).
		r.engine.Eval.Timeout = DefaultEvalTimeout
	}
	return r
}

// Close waits for in-flight commits and stops the runtime. The store is the
// caller's to close afterwards.
func (r *Runtime) Close() error {
	r.closeOnce.Do(func() {
		r.BeginShutdown()
		close(r.schedStop)
		r.stopCleaner()
		r.batches.close()
		started := true
		r.schedOnce.Do(func() { started = false }) // never started: nothing to wait for
		if started {
			<-r.schedDone
		}
		r.commit.close()
		r.leave()
	})
	return nil
}

// Resume is Prepare followed by ResumeInstances: everything a start-up
// owes the instances a previous run left, in one call.
func (r *Runtime) Resume(ctx context.Context) (int, error) {
	if err := r.Prepare(ctx); err != nil {
		return 0, err
	}
	return r.ResumeInstances(ctx)
}

// Prepare is the part of start-up that must finish before anything else
// touches the store: the job-key secret (made on a new database), the
// after-commit work left in the outbox (oldest first) and the upgrade of
// checkpoints written before migration 0005, then the token index of the
// instances stored before it existed (tokens.go). Requests may be served once
// it returns; ResumeInstances can run alongside them (each instance is
// resumed under its own lock).
func (r *Runtime) Prepare(ctx context.Context) error {
	if err := r.join(ctx); err != nil {
		return err
	}
	if _, err := r.jobKeySecret(ctx); err != nil {
		return fmt.Errorf("runtime: prepare: %w", err)
	}
	if n, err := r.DrainOutbox(ctx); err != nil {
		r.log.Error("outbox drain failed; the scheduler retries it", "error", err)
		r.outboxRetry.Store(true)
	} else if n > 0 {
		r.log.Info("outbox drained", "rows", n)
	}
	if err := r.upgradeLegacy(ctx); err != nil {
		return fmt.Errorf("runtime: resume: %w", err)
	}
	if err := r.indexPendingTokens(ctx); err != nil {
		return fmt.Errorf("runtime: prepare: %w", err)
	}
	return nil
}

// ResumeInstances loads every running instance from its checkpoint,
// carries on any track that was left runnable and reconciles its calls,
// then starts the scheduler (timers that came due while the server was
// down fire then) and the history cleaner (retention.go). An instance whose checkpoint or definition cannot be
// read is logged and left as it is; it never stops the others. Outbox rows
// whose work fails are retried by the scheduler. It stops early, without
// starting the scheduler, when ctx ends.
func (r *Runtime) ResumeInstances(ctx context.Context) (int, error) {
	running, err := r.store.RunningInstances(ctx)
	if err != nil {
		return 0, fmt.Errorf("runtime: resume: %w", err)
	}
	elsewhere, err := r.homedElsewhere(ctx)
	if err != nil {
		return 0, fmt.Errorf("runtime: resume: %w", err)
	}
	resumed, skipped := 0, 0
	for _, row := range running {
		if ctx.Err() != nil {
			return resumed, ctx.Err()
		}
		if elsewhere[row.ID] {
			skipped++ // its home node owes it its after-commit work (cluster.go)
			continue
		}
		if err := r.resumeOne(ctx, row.ID); err != nil {
			r.log.Error("resume failed", "instance_id", row.ID, "error", err)
			continue
		}
		resumed++
	}
	r.log.Info("instances resumed", "count", resumed, "failed", len(running)-resumed-skipped, "homed_elsewhere", skipped)
	r.startScheduler() // fires the timers that came due while the server was down
	r.startCleaner()
	if err := r.resumeMigrations(ctx); err != nil {
		return resumed, err
	}
	if err := r.resumeBatches(ctx); err != nil {
		return resumed, err
	}
	return resumed, nil
}

func (r *Runtime) resumeOne(ctx context.Context, id InstanceID) error {
	if _, err := r.step(ctx, id, engine.Resume{}, func(st *engine.State) bool { return st.HasReadyTracks() }); err != nil {
		return err
	}
	return r.reconcileCalls(ctx, id)
}

// reconcileCalls restores both ends of every call of an instance after a
// restart (docs/scopes.md#call-activities restart contract): a child that ended while the
// caller was not told hands over its outcome; a missing child stops the
// call in an incident; a child whose caller is missing stops for good, and
// one whose caller already ended is terminated.
func (r *Runtime) reconcileCalls(ctx context.Context, id InstanceID) error {
	_, st, err := r.loadState(ctx, id)
	if err != nil || st.Ended() {
		return err
	}
	for _, w := range st.Waits {
		if w.Kind != engine.WaitCall {
			continue
		}
		child, cst, err := r.loadState(ctx, InstanceID(w.ID))
		if ErrorCode(err) == ENOTFOUND {
			if _, err := r.step(ctx, id, engine.ChildMissing{WaitID: w.ID}, nil); err != nil {
				return err
			}
			r.log.Error("awaited child instance is missing", "instance_id", id, "child_id", w.ID)
			continue
		}
		if err != nil {
			return fmt.Errorf("runtime: child %s of %s: %w", w.ID, id, err)
		}
		if !cst.Ended() {
			continue
		}
		proc, _, err := r.process(ctx, child.ProcessKey, child.ProcessVersion)
		if err != nil {
			return err
		}
		if n := engine.Outcome(proc, cst); n != nil {
			if _, err := r.step(ctx, id, *n, nil); err != nil && ErrorCode(err) != ENOTFOUND {
				return err
			}
		}
	}
	if st.Parent == nil {
		return nil
	}
	_, pst, err := r.loadState(ctx, InstanceID(st.Parent.InstanceID))
	switch {
	case ErrorCode(err) == ENOTFOUND:
		r.log.Error("calling instance is missing; stopping the child", "instance_id", id, "parent_id", st.Parent.InstanceID)
		_, err = r.step(ctx, id, engine.Orphaned{}, nil)
		return err
	case err != nil:
		return err
	}
	if pst.Ended() || pst.Wait(st.Parent.WaitID) == nil {
		// The caller ended or no longer awaits this child: the cascade was cut short.
		_, err = r.step(ctx, id, engine.Cancel{Reason: "the calling instance no longer awaits it"}, nil)
		if ErrorCode(err) == ECONFLICT {
			err = nil
		}
		return err
	}
	return nil
}

// StartInstance creates an instance of a process (latest version unless
// req.Version pins one) and answers after its first step has committed.
func (r *Runtime) StartInstance(ctx context.Context, req StartRequest) (InstanceView, error) {
	if req.ProcessKey == "" {
		return InstanceView{}, &Error{Code: EINVALID, Message: "process key is required", Field: "key"}
	}
	if req.Version < 0 {
		return InstanceView{}, &Error{Code: EINVALID, Message: "version must be positive", Field: "version"}
	}
	proc, ref, err := r.process(ctx, req.ProcessKey, req.Version)
	if err != nil {
		if ErrorCode(err) == ENOTFOUND {
			if req.Version > 0 {
				return InstanceView{}, &Error{Code: ENOTFOUND, Message: fmt.Sprintf("process %q has no version %d", req.ProcessKey, req.Version), Err: err}
			}
			return InstanceView{}, &Error{Code: ENOTFOUND, Message: fmt.Sprintf("process %q is not deployed", req.ProcessKey), Err: err}
		}
		return InstanceView{}, err
	}
	var scoped string
	var hash [32]byte
	if claimOf(ctx) != nil {
		if hash, err = requestHash("start", req.ProcessKey, req.Version, req.BusinessKey, req.Variables); err != nil {
			return InstanceView{}, err
		}
		if v, ok, err := r.replayStart(ctx, "start:"+req.ProcessKey, hash); ok || err != nil {
			return v, err
		}
		if scoped, err = r.prepareClaim(ctx, "start:"+req.ProcessKey, hash, nil); err != nil {
			return InstanceView{}, err
		}
	}
	var view InstanceView
	if _, err := r.startAt(ctx, proc, ref, req.BusinessKey, "", req.Variables, nil, &view); err != nil {
		if scoped != "" && ErrorCode(err) == ECONFLICT {
			// A request with the same key committed meanwhile: answer as it.
			if v, ok, rerr := r.replayStart(ctx, "start:"+req.ProcessKey, hash); ok || rerr != nil {
				return v, rerr
			}
		}
		return InstanceView{}, err
	}
	return view, nil
}

// replayStart answers a start retried with a recorded idempotency key: the
// instance the first request started, as it is now.
func (r *Runtime) replayStart(ctx context.Context, scope string, hash [32]byte) (InstanceView, bool, error) {
	scoped := scope + " " + claimOf(ctx).key
	row, ok, err := r.replayable(ctx, scoped, hash)
	if err != nil || !ok {
		return InstanceView{}, false, err
	}
	v, err := r.Instance(ctx, row.InstanceID)
	if err != nil {
		return InstanceView{}, false, err
	}
	v.Replayed = true
	return v, true, nil
}

// startAt creates an instance of proc at its None start (startNode "") or at
// one of its event starts, commits its first step (with whatever extra adds
// to the record, in the same transaction) and runs the after-commit work.
// With view non-nil it also fills in the new instance's view, built from
// the state the step committed (nothing is read back).
func (r *Runtime) startAt(ctx context.Context, proc *bpmn.Process, ref DefinitionRef, businessKey, startNode string, vars map[string]any, extra func(*StepRecord), view *InstanceView) (InstanceID, error) {
	if err := r.checkStartable(ctx, ref); err != nil {
		return "", err
	}
	id := InstanceID(r.newID())
	_, err := r.runStep(ctx, stepSpec{
		id:    id,
		ev:    engine.Start{Variables: vars, StartNode: startNode},
		start: startSpec{proc: proc, ref: ref, businessKey: businessKey, startNode: startNode},
		extra: extra,
		view:  view,
	})
	if err != nil {
		return "", err
	}
	return id, nil
}

// Cancel terminates a running or failed instance with every scope inside it.
// An ended instance gives ECONFLICT.
func (r *Runtime) Cancel(ctx context.Context, id InstanceID) (InstanceView, error) {
	if _, err := r.step(ctx, id, engine.Cancel{Reason: "cancelled through the API", By: ActingUser(ctx)}, nil); err != nil {
		return InstanceView{}, err
	}
	return r.Instance(ctx, id)
}

// acquire returns the state of instance id for its lock holder: the cached
// one (removed from the cache) or the store's, decoded. legacy reports a
// state the store still holds as a format-1 checkpoint; cached, one taken
// from the cache, which on a shared store another node's commit may have
// overtaken (no revision is checked here: the commit checks it, and
// step.go re-checks a refusal on it, movedOn).
func (r *Runtime) acquire(ctx context.Context, id InstanceID) (row InstanceRow, st *engine.State, legacy, cached bool, err error) {
	if row, st, ok := r.states.take(id); ok {
		return row, st, false, true, nil
	}
	row, st, legacy, err = r.readState(ctx, id)
	return row, st, legacy, false, err
}

// acquireCurrent is acquire for reads, which no commit checks: on a store
// several nodes share, a cached state whose revision another node has
// moved on since is read again (one small query per cached read).
func (r *Runtime) acquireCurrent(ctx context.Context, id InstanceID) (InstanceRow, *engine.State, bool, error) {
	row, st, ok := r.states.take(id)
	if !ok {
		return r.readState(ctx, id)
	}
	if r.cluster != nil {
		cur, err := r.store.InstanceRow(ctx, id)
		if err != nil {
			return InstanceRow{}, nil, false, instanceErr(id, err)
		}
		if cur.Revision != row.Revision {
			return r.readState(ctx, id)
		}
	}
	return row, st, false, nil
}

// release hands an unchanged state back to the cache after acquire.
func (r *Runtime) release(row InstanceRow, st *engine.State, legacy bool) {
	if !legacy {
		r.states.put(row, st)
	}
}

// withState runs fn on the current state of instance id under its lock,
// for reads that must not decode a large instance again (fn must not
// change st nor keep references into it).
func (r *Runtime) withState(ctx context.Context, id InstanceID, fn func(row InstanceRow, st *engine.State) error) error {
	unlock := r.locks.lock(id)
	defer unlock()
	row, st, legacy, err := r.acquireCurrent(ctx, id)
	if err != nil {
		return err
	}
	defer r.release(row, st, legacy)
	return fn(row, st)
}

// unreadableDefinition is the error for a registered definition that cannot
// be read. It is internal even when the store says "not found": the caller
// asked about an instance or a schedule that exists, and must not hear 404
// (nor take it for "ended meanwhile").
func unreadableDefinition(key string, version int, err error) error {
	return &Error{Code: EINTERNAL, Message: fmt.Sprintf("runtime: definition %s version %d", key, version), Err: err}
}

// stepError classifies an engine refusal for callers.
func stepError(id InstanceID, status string, ev engine.Event, err error) error {
	switch {
	case errors.Is(err, engine.ErrUnknownWait):
		return &Error{Code: ENOTFOUND, Message: fmt.Sprintf("%s: nothing open in instance %s matches (already completed or withdrawn)", ev.Kind(), id), Err: err}
	case errors.Is(err, engine.ErrForbidden):
		return &Error{Code: EFORBIDDEN, Message: engineText(err, engine.ErrForbidden)}
	case errors.Is(err, engine.ErrUnknownIncident):
		return &Error{Code: ECONFLICT, Message: fmt.Sprintf("the incident is not open in instance %s", id)}
	case errors.Is(err, engine.ErrInvalidTransition):
		return &Error{Code: ECONFLICT, Message: fmt.Sprintf("instance %s is %s: %s", id, status, engineText(err, engine.ErrInvalidTransition))}
	}
	return fmt.Errorf("runtime: step %s of %s: %w", ev.Kind(), id, err)
}

// engineText strips the "engine: " prefix and the sentinel's suffix from an
// engine refusal so the rest can be shown to a user.
func engineText(err, sentinel error) string {
	msg := strings.TrimPrefix(err.Error(), "engine: ")
	return strings.TrimSuffix(msg, ": "+sentinel.Error())
}

// record turns a step's outcome into what the store writes, its
// after-commit work included as outbox rows (ctx carries the signal cascade
// the step runs in).
//
// The state is written as its header plus the parts the step changed; with
// whole (a new instance, or one still stored as a legacy checkpoint) every
// part is written.
func (r *Runtime) record(ctx context.Context, row InstanceRow, prev int64, st *engine.State, fx engine.Effects, now time.Time, whole bool) (StepRecord, error) {
	header, err := st.EncodeHeader()
	if err != nil {
		return StepRecord{}, err
	}
	row.Status = st.Status
	row.UpdatedAt = now
	row.Revision = prev + 1
	if st.Ended() && row.EndedAt.IsZero() {
		row.EndedAt = now
	}
	rec := StepRecord{Instance: row, PrevRevision: prev, Header: header}
	var put []engine.Part
	if whole {
		put, err = st.Parts()
	} else {
		put, rec.RemovedParts, err = st.Delta(uniqueParts(fx.Changed))
	}
	if err != nil {
		return StepRecord{}, err
	}
	rec.Parts = put
	rec.Tokens, rec.RemovedTokens = tokenChanges(st, put, rec.RemovedParts)
	rec.Facts = make([]FactRow, 0, len(fx.Facts))
	for i := range fx.Facts {
		f := &fx.Facts[i]
		detail := []byte("{}")
		if len(f.Detail) > 0 {
			if detail, err = json.Marshal(f.Detail); err != nil {
				return StepRecord{}, fmt.Errorf("runtime: fact %d of %s: %w", f.Seq, row.ID, err)
			}
		}
		rec.Facts = append(rec.Facts, FactRow{Seq: f.Seq, At: f.At, Kind: f.Kind, NodeID: f.NodeID, ScopePath: f.ScopePath, Detail: detail, TrackID: f.TrackID})
		f.Detail = nil // the row holds it now: a step of 100,000 iterations does not keep both
	}
	for _, in := range fx.Incidents {
		rec.Incidents = append(rec.Incidents, IncidentRow{ID: in.ID, InstanceID: row.ID, NodeID: in.NodeID, ScopeID: string(in.ScopeID),
			Kind: in.Kind, Message: in.Message, CreatedAt: in.At, ResolvedAt: in.Resolved})
	}
	for _, w := range fx.Waits {
		rec.Waits = append(rec.Waits, waitRow(row, w))
	}
	rec.RemovedWaits = fx.RemovedWaits
	if rec.Outbox, err = outboxRows(ctx, fx); err != nil {
		return StepRecord{}, err
	}
	return rec, nil
}

// Instance returns a copied view of one instance.
func (r *Runtime) Instance(ctx context.Context, id InstanceID) (InstanceView, error) {
	var v InstanceView
	err := r.withState(ctx, id, func(row InstanceRow, st *engine.State) error {
		proc, _, err := r.process(ctx, row.ProcessKey, row.ProcessVersion)
		if err != nil {
			proc = nil // the view shows no handlers rather than failing
		}
		v = stateView(row, st, proc)
		return nil
	})
	if err != nil {
		return InstanceView{}, err
	}
	if v.Incidents, err = r.store.Incidents(ctx, id, false); err != nil {
		return InstanceView{}, err
	}
	if v.Incidents == nil {
		v.Incidents = []IncidentRow{}
	}
	children, _, err := r.store.ListInstances(ctx, InstanceFilter{ParentID: id, Limit: 500})
	if err != nil {
		return InstanceView{}, err
	}
	for _, c := range children {
		v.Children = append(v.Children, ChildView{InstanceID: c.ID, Number: c.Number, ProcessKey: c.ProcessKey, NodeID: c.ParentNodeID, Status: c.Status})
	}
	return v, nil
}

// startedView is the view of an instance whose first step w just committed:
// everything it shows comes from that step (its state, its incidents, the
// children it launched), so nothing is read back.
func startedView(proc *bpmn.Process, w *work, st *engine.State) InstanceView {
	v := stateView(w.recs[0].Instance, st, proc)
	v.Incidents = []IncidentRow{}
	at := map[string]int{}
	for _, in := range w.recs[0].Incidents { // opened, maybe resolved, in this step: the last word counts
		in.ProcessKey, in.InstanceNumber = v.ProcessKey, v.Number
		if i, ok := at[in.ID]; ok {
			v.Incidents[i] = in
			continue
		}
		at[in.ID] = len(v.Incidents)
		v.Incidents = append(v.Incidents, in)
	}
	for _, rec := range w.recs[1:] {
		if rec.Instance.ParentID == v.ID {
			v.Children = append(v.Children, ChildView{InstanceID: rec.Instance.ID, Number: rec.Instance.Number, ProcessKey: rec.Instance.ProcessKey, NodeID: rec.Instance.ParentNodeID, Status: rec.Instance.Status})
		}
	}
	return v
}

// stateView copies what a view shows of a state (variables deep-copied: the
// state may be stepped again once the caller lets go of it): the first
// ViewLimit scopes and tracks and how many there are. A nil proc shows no
// handlers.
func stateView(row InstanceRow, st *engine.State, proc *bpmn.Process) InstanceView {
	v := InstanceView{InstanceRow: row, Children: []ChildView{}}
	v.Variables = scope.CloneVars(st.Scopes.Get(scope.RootID).Vars)
	if v.Variables == nil {
		v.Variables = map[string]any{}
	}
	v.Scopes, _, _ = scopePage(st, proc, "", ViewLimit)
	v.Tracks, _, _ = trackPage(st, "", ViewLimit)
	v.ScopeCount, v.TrackCount, v.WaitCount = len(st.Scopes.Scopes), len(st.Tracks), len(st.Waits)
	return v
}

// ListInstances lists instance summaries matching f and the total count.
func (r *Runtime) ListInstances(ctx context.Context, f InstanceFilter) ([]InstanceRow, int, error) {
	return r.store.ListInstances(ctx, f)
}

// History returns an instance's facts after afterSeq (ENOTFOUND for an unknown instance).
func (r *Runtime) History(ctx context.Context, id InstanceID, afterSeq int64, limit int) ([]FactRow, error) {
	facts, err := r.store.History(ctx, id, afterSeq, limit)
	return facts, instanceErr(id, err)
}

// Incidents lists the incidents of one instance, or every open one when id is empty.
func (r *Runtime) Incidents(ctx context.Context, id InstanceID, openOnly bool) ([]IncidentRow, error) {
	return r.store.Incidents(ctx, id, openOnly)
}

// IncidentsPage pages incidents like Incidents, oldest first: at most limit
// (1–MaxPageLimit) after the cursor a previous page returned ("" for the
// first page). next is the cursor of the following page, "" on the last.
func (r *Runtime) IncidentsPage(ctx context.Context, id InstanceID, openOnly bool, cursor string, limit int) (rows []IncidentRow, next string, err error) {
	if limit < 1 || limit > MaxPageLimit {
		return nil, "", &Error{Code: EINVALID, Field: "limit", Message: fmt.Sprintf("limit must be between 1 and %d", MaxPageLimit)}
	}
	f := IncidentFilter{InstanceID: id, OpenOnly: openOnly, Limit: limit + 1}
	if cursor != "" {
		at, after, ok := strings.Cut(cursor, ".")
		n, perr := strconv.ParseInt(at, 10, 64)
		if !ok || perr != nil || after == "" {
			return nil, "", &Error{Code: EINVALID, Field: "cursor", Message: "cursor is not one this API returned"}
		}
		f.After, f.AfterAt = after, time.Unix(0, n).UTC()
	}
	rows, err = r.store.IncidentsPage(ctx, f)
	if err != nil {
		return nil, "", err
	}
	if len(rows) > limit {
		rows = rows[:limit]
		last := rows[limit-1]
		next = strconv.FormatInt(last.CreatedAt.UnixNano(), 10) + "." + last.ID
	}
	return rows, next, nil
}

// scopeState is a scope's state as the API shows it.
func scopeState(s *scope.Scope) string {
	if s.Interrupted {
		return "interrupted"
	}
	return "active"
}

// loadState reads an instance from the store and decodes its state, for
// reads that need no lock; an unknown id is ENOTFOUND naming the instance.
func (r *Runtime) loadState(ctx context.Context, id InstanceID) (InstanceRow, *engine.State, error) {
	row, st, _, err := r.readState(ctx, id)
	return row, st, err
}

// readState reads an instance from the store and decodes its state;
// legacy reports a state still stored as a format-1 checkpoint.
func (r *Runtime) readState(ctx context.Context, id InstanceID) (InstanceRow, *engine.State, bool, error) {
	si, err := r.store.Instance(ctx, id)
	if err != nil {
		return InstanceRow{}, nil, false, instanceErr(id, err)
	}
	st, legacy, err := engine.DecodeStored(si.Header, si.Parts)
	if err != nil {
		return InstanceRow{}, nil, false, fmt.Errorf("runtime: load instance %s: %w", id, err)
	}
	return si.InstanceRow, st, legacy, nil
}

// instanceErr names the instance in a store's not-found; other errors pass.
func instanceErr(id InstanceID, err error) error {
	if err != nil && ErrorCode(err) == ENOTFOUND {
		return &Error{Code: ENOTFOUND, Message: fmt.Sprintf("instance %s not found", id), Err: err}
	}
	return err
}

// uniqueParts returns refs without repeats, in first-seen order (merged
// effects of one command may name a part twice).
func uniqueParts(refs []engine.PartRef) []engine.PartRef {
	if len(refs) < 2 {
		return refs
	}
	seen := make(map[engine.PartRef]struct{}, len(refs))
	out := make([]engine.PartRef, 0, len(refs))
	for _, r := range refs {
		if _, dup := seen[r]; !dup {
			seen[r] = struct{}{}
			out = append(out, r)
		}
	}
	return out
}
