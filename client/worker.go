package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"go.opentelemetry.io/otel/trace"
)

// Handler does the work of one job. It returns the variables to merge into
// the instance; an error fails the job (retried with backoff while it has
// retries), a BPMNError (or *BPMNError) throws that BPMN error at the task.
// ctx is cancelled when the job's lock is lost or the worker stops without
// waiting for it. A handler that returns a struct instead of a map is
// wrapped with TypedHandler; Job.Decode reads the job's variables into one.
type Handler func(ctx context.Context, job Job) (map[string]any, error)

// TypedHandler adapts a handler whose output variables are any value that
// encodes to a JSON object — a struct with json tags, a pointer to one, or
// a map — to a Handler: the object's members become the variables to merge
// (a struct's omitempty fields are left out and so keep their old values).
// A nil pointer or map sets no variables. A value that encodes to anything
// but an object (a number, a string, a list) fails the job.
func TypedHandler[T any](h func(ctx context.Context, job Job) (T, error)) Handler {
	return func(ctx context.Context, job Job) (map[string]any, error) {
		out, err := h(ctx, job)
		if err != nil {
			return nil, err
		}
		return Variables(out)
	}
}

// Variables returns v, any value that encodes to a JSON object, as a
// variables map (numbers as json.Number, so none loses precision). null
// gives nil; anything else that is not an object is an error.
func Variables(v any) (map[string]any, error) {
	if m, ok := v.(map[string]any); ok {
		return m, nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("client: output variables: %w", err)
	}
	b = bytes.TrimSpace(b)
	if string(b) == "null" {
		return nil, nil
	}
	if len(b) == 0 || b[0] != '{' {
		return nil, fmt.Errorf("client: output variables: %T does not encode to a JSON object", v)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("client: output variables: %w", err)
	}
	return m, nil
}

// WorkerEvent is what the metrics hook hears.
type WorkerEvent struct {
	// Kind is activated, completed, failed, bpmn-error, extended or
	// act-failed (completing, failing or throwing was refused or did not
	// reach the server).
	Kind     string
	Job      Job
	Duration time.Duration
	Err      error
}

// WorkerOptions configure a Worker; zero fields take the defaults.
type WorkerOptions struct {
	// Name identifies the worker in job locks (default "gobpm-worker").
	Name string
	// Concurrency is how many jobs run at once (default 4).
	Concurrency int
	// LockDuration is each activation's lock; the worker extends it while
	// the handler runs, every LockDuration/2 (default 30s).
	LockDuration time.Duration
	// PollTimeout is how long one activation long-polls (default 30s).
	PollTimeout time.Duration
	// RetryBackoff says how long a failed job waits before its next
	// attempt; failures counts this worker's failures of the job so far
	// (1 on the first). Default: 1s doubling to at most 5m.
	RetryBackoff func(failures int) time.Duration
	// Metrics, if set, is called for every job event, from the job's
	// goroutine.
	Metrics func(WorkerEvent)
	// Tracer, if set, traces each job the worker runs: a span around the
	// handler, a child of the job's traceparent (an activated job carries
	// it in CustomHeaders while the server traces), in the handler's
	// context; complete, fail and error send it as their traceparent. Unset,
	// the handler's context still carries the job's span context, so a
	// handler's own spans continue the job's trace (tracing.go).
	Tracer trace.Tracer
	// CompletionBatchWindow is how long a finished job's completion waits
	// for the completions of other jobs finishing meanwhile, to go with
	// them in one request (POST /api/v1/jobs/complete, one group commit on
	// the server); a lone completion goes alone. Default
	// DefaultCompletionBatchWindow (1 ms); negative completes each job in
	// its own request. A server without the batch route (404) is
	// remembered and completions then go one by one. A worker with a
	// Tracer completes one by one, each with its job's traceparent.
	CompletionBatchWindow time.Duration
}

// RouterHandler decides for the router job of an ad-hoc region
// (gobpm:router="job"): given the snapshot, it answers which activities to
// start. Errors are a Handler's: a failure is retried, a BPMNError is
// thrown at the ad-hoc sub-process.
type RouterHandler func(ctx context.Context, job Job, s RouterSnapshot) (RouterAnswer, error)

// outcome is what a handler produced: variables to complete a job with,
// or a router's answer.
type outcome struct {
	vars   map[string]any
	answer *RouterAnswer
}

// Worker activates jobs of one type and runs a handler on each.
type Worker struct {
	c       *Client
	jobType string
	handle  func(ctx context.Context, job Job) (outcome, error)
	opts    WorkerOptions

	stopPoll   context.CancelFunc // ends the poll loop
	abortJobs  context.CancelFunc // cancels the handlers' context
	pollDone   chan struct{}
	inflight   sync.WaitGroup
	mu         sync.Mutex
	failures   map[string]int // job key → failures seen, owned by mu
	startOnce  sync.Once
	stopOnce   sync.Once
	jobContext context.Context
	// batch gathers completions (nil: each goes alone).
	batch *completionBatcher
}

// NewWorker returns a worker of jobType; Start runs it.
func NewWorker(c *Client, jobType string, h Handler, opts WorkerOptions) *Worker {
	return newWorker(c, jobType, func(ctx context.Context, job Job) (outcome, error) {
		vars, err := h(ctx, job)
		return outcome{vars: vars}, err
	}, opts)
}

// NewRouterWorker returns a worker of the router jobs of type routerType
// (gobpm:routerType): each job's snapshot goes to h, and its answer
// completes the job. A job that is no router job fails.
func NewRouterWorker(c *Client, routerType string, h RouterHandler, opts WorkerOptions) *Worker {
	return newWorker(c, routerType, func(ctx context.Context, job Job) (outcome, error) {
		s, err := job.RouterSnapshot()
		if err != nil {
			return outcome{}, err
		}
		a, err := h(ctx, job, s)
		return outcome{answer: &a}, err
	}, opts)
}

func newWorker(c *Client, jobType string, h func(ctx context.Context, job Job) (outcome, error), opts WorkerOptions) *Worker {
	if opts.Name == "" {
		opts.Name = "gobpm-worker"
	}
	if opts.Concurrency <= 0 {
		opts.Concurrency = 4
	}
	if opts.LockDuration <= 0 {
		opts.LockDuration = 30 * time.Second
	}
	if opts.PollTimeout <= 0 {
		opts.PollTimeout = 30 * time.Second
	}
	if opts.RetryBackoff == nil {
		opts.RetryBackoff = func(n int) time.Duration {
			d := time.Second << min(n-1, 20)
			return min(d, 5*time.Minute)
		}
	}
	if opts.CompletionBatchWindow == 0 {
		opts.CompletionBatchWindow = DefaultCompletionBatchWindow
	}
	w := &Worker{c: c, jobType: jobType, handle: h, opts: opts, failures: map[string]int{}, pollDone: make(chan struct{})}
	if opts.CompletionBatchWindow > 0 && opts.Tracer == nil {
		w.batch = newCompletionBatcher(c, opts.CompletionBatchWindow)
	}
	return w
}

// Start starts polling in the background. It returns at once; calling it
// again does nothing.
func (w *Worker) Start() {
	w.startOnce.Do(func() {
		var pollCtx context.Context
		pollCtx, w.stopPoll = context.WithCancel(context.Background())
		w.jobContext, w.abortJobs = context.WithCancel(context.Background())
		go w.poll(pollCtx)
	})
}

// Stop stops activating jobs and waits for the running handlers to finish
// and report. If ctx ends first, the handlers' context is cancelled, their
// outcome is not reported and their locks lapse, so the jobs go to another
// worker; Stop then returns ctx's error.
func (w *Worker) Stop(ctx context.Context) error {
	w.Start() // a never-started worker stops cleanly
	var err error
	w.stopOnce.Do(func() {
		w.stopPoll()
		<-w.pollDone
		done := make(chan struct{})
		go func() { w.inflight.Wait(); close(done) }()
		select {
		case <-done:
		case <-ctx.Done():
			w.abortJobs()
			<-done
			err = ctx.Err()
		}
		w.abortJobs()
	})
	return err
}

func (w *Worker) poll(ctx context.Context) {
	defer close(w.pollDone)
	slots := make(chan struct{}, w.opts.Concurrency)
	wait := 100 * time.Millisecond
	for ctx.Err() == nil {
		// Wait for at least one free slot.
		select {
		case slots <- struct{}{}:
			<-slots
		case <-ctx.Done():
			return
		}
		free := w.opts.Concurrency - len(slots)
		jobs, err := w.c.ActivateJobs(ctx, ActivateRequest{
			Type: w.jobType, Worker: w.opts.Name, MaxJobs: free,
			LockDuration: w.opts.LockDuration, RequestTimeout: w.opts.PollTimeout,
		})
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			// The server is away or refuses: back off, bounded.
			sleep(ctx, wait)
			wait = min(2*wait, 10*time.Second)
			continue
		}
		wait = 100 * time.Millisecond
		for _, j := range jobs {
			slots <- struct{}{}
			w.inflight.Add(1)
			go func() {
				defer func() { <-slots; w.inflight.Done() }()
				w.run(j)
			}()
		}
	}
}

// run handles one job: extends its lock while the handler runs, then
// reports the outcome.
func (w *Worker) run(job Job) {
	start := time.Now()
	w.emit(WorkerEvent{Kind: "activated", Job: job})
	ctx, cancel := context.WithCancel(w.jobContext)
	defer cancel()

	extended := make(chan struct{})
	go func() {
		defer close(extended)
		t := time.NewTicker(w.opts.LockDuration / 2)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				err := w.c.ExtendJobLock(ctx, job, w.opts.LockDuration)
				if ctx.Err() != nil {
					return
				}
				w.emit(WorkerEvent{Kind: "extended", Job: job, Err: err})
				var p *Problem
				if errors.As(err, &p) && p.Status < http.StatusInternalServerError {
					cancel() // the lock is lost: tell the handler
					return
				}
			}
		}
	}()

	hctx, span := w.traceJob(ctx, job) // tracing.go
	out, herr := w.call(hctx, job)
	endJobSpan(span, herr)
	aborted := w.jobContext.Err() != nil
	cancel()
	<-extended
	if aborted {
		return // Stop gave up on this job; its lock lapses
	}
	// Report with a context of its own: the handler's may be cancelled.
	// It keeps the handler's span context, sent as the act's traceparent.
	rctx, rcancel := context.WithTimeout(actContext(hctx), 30*time.Second)
	defer rcancel()
	ev := WorkerEvent{Job: job, Duration: time.Since(start), Err: herr}
	var be BPMNError
	var bep *BPMNError
	var err error
	switch {
	case herr == nil:
		ev.Kind = "completed"
		if out.answer != nil {
			err = w.c.CompleteRouterJob(rctx, job, *out.answer)
		} else if w.batch != nil {
			err = w.batch.complete(rctx, job, out.vars)
		} else {
			err = w.c.CompleteJob(rctx, job, out.vars)
		}
		w.forget(job.Key)
	case errors.As(herr, &bep):
		ev.Kind = "bpmn-error"
		err = w.c.ThrowJobError(rctx, job, *bep)
		w.forget(job.Key)
	case errors.As(herr, &be):
		ev.Kind = "bpmn-error"
		err = w.c.ThrowJobError(rctx, job, be)
		w.forget(job.Key)
	default:
		ev.Kind = "failed"
		n := w.fail(job.Key)
		retries := max(job.Retries-1, 0)
		if retries == 0 {
			w.forget(job.Key)
		}
		err = w.c.FailJob(rctx, job, FailRequest{Retries: &retries, RetryBackoff: w.opts.RetryBackoff(n), Message: herr.Error()})
	}
	if err != nil {
		w.emit(WorkerEvent{Kind: "act-failed", Job: job, Err: err})
		return
	}
	w.emit(ev)
}

// call runs the handler, turning a panic into an error.
func (w *Worker) call(ctx context.Context, job Job) (out outcome, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("handler panicked: %v", r)
		}
	}()
	return w.handle(ctx, job)
}

func (w *Worker) fail(key string) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.failures[key]++
	return w.failures[key]
}

func (w *Worker) forget(key string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	delete(w.failures, key)
}

func (w *Worker) emit(e WorkerEvent) {
	if w.opts.Metrics != nil {
		w.opts.Metrics(e)
	}
}

func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}
