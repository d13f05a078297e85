package client

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// MaxJobCompletions is the most completions one CompleteJobs request
// carries (the server's limit).
const MaxJobCompletions = 1000

// JobCompletion is one completion of CompleteJobs: the job and the
// variables to merge into its instance.
type JobCompletion struct {
	Job       Job
	Variables map[string]any
}

// completeJobsResult is one item of the server's answer.
type completeJobsResult struct {
	Key     string   `json:"key"`
	Status  int      `json:"status"`
	Problem *Problem `json:"problem"`
}

// CompleteJobs completes up to MaxJobCompletions jobs in one request
// (POST /api/v1/jobs/complete), which the server commits together. It
// answers one error per completion, in order — nil for a job completed,
// else the item's *Problem, as CompleteJob would have answered it — or an
// error for the whole request (nothing was completed then). A server
// without the route answers a *Problem with Status 404 (ErrBatchUnsupported
// tells it).
func (c *Client) CompleteJobs(ctx context.Context, items []JobCompletion) ([]error, error) {
	if len(items) > MaxJobCompletions {
		return nil, fmt.Errorf("client: %d completions in one request, at most %d", len(items), MaxJobCompletions)
	}
	list := make([]map[string]any, len(items))
	for i, it := range items {
		m := map[string]any{"key": it.Job.Key, "lockToken": it.Job.LockToken}
		if it.Variables != nil {
			m["variables"] = it.Variables
		}
		list[i] = m
	}
	var out struct {
		Results []completeJobsResult `json:"results"`
	}
	if err := c.do(ctx, request{method: http.MethodPost, path: "/jobs/complete", body: map[string]any{"completions": list}}, &out); err != nil {
		return nil, err
	}
	if len(out.Results) != len(items) {
		return nil, fmt.Errorf("client: POST /jobs/complete answered %d results for %d completions", len(out.Results), len(items))
	}
	errs := make([]error, len(items))
	for i, r := range out.Results {
		switch {
		case r.Status == http.StatusNoContent:
		case r.Problem != nil:
			errs[i] = r.Problem
		default:
			errs[i] = &Problem{Status: r.Status, Title: http.StatusText(r.Status), Detail: "job " + r.Key + " was not completed"}
		}
	}
	return errs, nil
}

// ErrBatchUnsupported reports whether err, from CompleteJobs, says the
// server has no batch completion route (an older server: 404 or 405 for
// the whole request).
func ErrBatchUnsupported(err error) bool {
	var p *Problem
	return errors.As(err, &p) && (p.Status == http.StatusNotFound || p.Status == http.StatusMethodNotAllowed)
}

// DefaultCompletionBatchWindow is how long a worker holds a finished job's
// completion for others to go in the same request (WorkerOptions).
const DefaultCompletionBatchWindow = time.Millisecond

// completionBatcher gathers the completions of a worker's jobs that finish
// within window of the first into one CompleteJobs request; a lone
// completion goes as CompleteJob. Once the server says it has no batch
// route, every completion goes alone.
type completionBatcher struct {
	c      *Client
	window time.Duration
	single atomic.Bool // the server lacks the batch route

	mu      sync.Mutex
	pending []pendingCompletion
	timer   *time.Timer
}

// pendingCompletion is a completion waiting for its batch.
type pendingCompletion struct {
	JobCompletion
	done chan error
}

func newCompletionBatcher(c *Client, window time.Duration) *completionBatcher {
	return &completionBatcher{c: c, window: window}
}

// complete completes job with vars, in a batch with the completions that
// arrive within the window, and answers its own outcome.
func (b *completionBatcher) complete(ctx context.Context, job Job, vars map[string]any) error {
	if b.single.Load() {
		return b.c.CompleteJob(ctx, job, vars)
	}
	done := make(chan error, 1)
	b.mu.Lock()
	b.pending = append(b.pending, pendingCompletion{JobCompletion{Job: job, Variables: vars}, done})
	var full []pendingCompletion
	if len(b.pending) >= MaxJobCompletions {
		full = b.takeLocked()
	} else if b.timer == nil {
		b.timer = time.AfterFunc(b.window, b.flush)
	}
	b.mu.Unlock()
	if full != nil {
		go b.send(full)
	}
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// takeLocked takes the pending completions; b.mu is held.
func (b *completionBatcher) takeLocked() []pendingCompletion {
	batch := b.pending
	b.pending = nil
	if b.timer != nil {
		b.timer.Stop()
		b.timer = nil
	}
	return batch
}

// flush sends what is pending (the window's timer).
func (b *completionBatcher) flush() {
	b.mu.Lock()
	batch := b.takeLocked()
	b.mu.Unlock()
	if len(batch) > 0 {
		b.send(batch)
	}
}

// send completes batch and answers each of its completions.
func (b *completionBatcher) send(batch []pendingCompletion) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if len(batch) == 1 || b.single.Load() {
		b.sendEach(ctx, batch)
		return
	}
	items := make([]JobCompletion, len(batch))
	for i, p := range batch {
		items[i] = p.JobCompletion
	}
	errs, err := b.c.CompleteJobs(ctx, items)
	if err != nil && ErrBatchUnsupported(err) {
		b.single.Store(true)
		b.sendEach(ctx, batch)
		return
	}
	for i, p := range batch {
		if err != nil {
			p.done <- err
		} else {
			p.done <- errs[i]
		}
	}
}

// sendEach completes each of batch alone.
func (b *completionBatcher) sendEach(ctx context.Context, batch []pendingCompletion) {
	for _, p := range batch {
		p.done <- b.c.CompleteJob(ctx, p.Job, p.Variables)
	}
}
