package runtime

import (
	"context"
	"sync"
	"time"
)

// DefaultGroupCommitLinger is how long a busy committer waits for more
// steps to share a transaction (see committer).
const DefaultGroupCommitLinger = time.Millisecond

// committer groups steps of different instances that are ready at the same
// moment into one store transaction (group commit, docs/architecture.md Persistence).
// Each caller still learns the outcome of its own step.
//
// Every commit writes whole pages to the WAL and waits for an fsync, and
// steps that commit together share both: the rows of instances created
// one after another land on the same pages. So when the committer is busy
// (its last commit ended less than linger ago) it waits up to linger for
// more steps before it commits; an idle committer commits at once. Under
// load this trades at most linger of latency for several times fewer
// fsyncs and WAL bytes, which is what keeps the disk from stalling.
type committer struct {
	store   Store
	max     int
	linger  time.Duration
	now     func() time.Time // the clock that tells busy from idle
	metrics *metrics
	claims  *outboxClaims
	in      chan commitRequest

	mu     sync.Mutex
	closed bool
	wg     sync.WaitGroup
	done   chan struct{}
}

type commitRequest struct {
	// recs commit together: a step and the children it launched.
	recs  []StepRecord
	reply chan error
	// group, if not nil, is requests that go in one batch (a commit
	// group's, commitGroup); recs and reply are then unused.
	group []commitRequest
}

// errClosed reports a commit after Close.
var errClosed = &Error{Code: EINTERNAL, Message: "runtime is shut down"}

func newCommitter(store Store, max int, linger time.Duration, m *metrics, claims *outboxClaims) *committer {
	if max <= 0 {
		max = 64
	}
	c := &committer{store: store, max: max, linger: linger, now: time.Now, metrics: m, claims: claims, in: make(chan commitRequest, max), done: make(chan struct{})}
	go c.loop()
	return c
}

// commit writes one step and waits until it is durable (or refused).
func (c *committer) commit(rec StepRecord) error { return c.commitAll([]StepRecord{rec}) }

// commitAll writes records that must land together (in one transaction,
// possibly shared with other requests) and waits until they are durable.
func (c *committer) commitAll(recs []StepRecord) error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return errClosed
	}
	c.wg.Add(1)
	c.mu.Unlock()
	defer c.wg.Done()
	reply := make(chan error, 1)
	c.in <- commitRequest{recs: recs, reply: reply}
	return <-reply
}

func (c *committer) loop() {
	defer close(c.done)
	var lastEnd time.Time
	for first := range c.in {
		batch := c.gather([]commitRequest{first}, nil)
		if len(batch) < c.max && c.linger > 0 && c.now().Sub(lastEnd) < c.linger {
			t := time.NewTimer(c.linger)
			batch = c.gather(batch, t.C)
			t.Stop()
		}
		c.write(batch)
		lastEnd = c.now()
	}
}

// gather adds waiting requests to batch up to max: those already queued
// when until is nil, else those that arrive before until fires.
func (c *committer) gather(batch []commitRequest, until <-chan time.Time) []commitRequest {
	for len(batch) < c.max {
		if until == nil {
			select {
			case r, ok := <-c.in:
				if !ok {
					return batch
				}
				batch = append(batch, r)
				continue
			default:
				return batch
			}
		}
		select {
		case r, ok := <-c.in:
			if !ok {
				return batch
			}
			batch = append(batch, r)
		case <-until:
			return batch
		}
	}
	return batch
}

// write commits a batch; if the batch fails, each step is retried alone so
// one bad step cannot fail its neighbours.
func (c *committer) write(batch []commitRequest) {
	ctx := context.Background() // a commit, once started, is not abandoned halfway
	batch = flattenGroups(batch)
	var recs []StepRecord
	for _, r := range batch {
		recs = append(recs, r.recs...)
	}
	err := c.commitSteps(ctx, recs)
	if err == nil || len(batch) == 1 {
		if err == nil {
			c.metrics.commitBatches.Add(1)
			c.metrics.count(recs)
			// The store numbered the instances it created in recs, a copy:
			// hand the numbers back to the requests' own records.
			k := 0
			for _, r := range batch {
				for j := range r.recs {
					r.recs[j].Instance.Number = recs[k].Instance.Number
					k++
				}
			}
		}
		for _, r := range batch {
			r.reply <- err
		}
		return
	}
	for _, r := range batch {
		err := c.commitSteps(ctx, r.recs)
		if err == nil {
			c.metrics.commitBatches.Add(1)
			c.metrics.count(r.recs)
		}
		r.reply <- err
	}
}

// flattenGroups replaces the request groups in batch by their requests.
func flattenGroups(batch []commitRequest) []commitRequest {
	grouped := false
	for _, r := range batch {
		grouped = grouped || r.group != nil
	}
	if !grouped {
		return batch
	}
	var out []commitRequest
	for _, r := range batch {
		if r.group != nil {
			out = append(out, r.group...)
		} else {
			out = append(out, r)
		}
	}
	return out
}

// commitSteps commits recs. Their outbox rows are claimed for the commands
// that wrote them before any drain can read them (outboxClaims.gate).
func (c *committer) commitSteps(ctx context.Context, recs []StepRecord) error {
	start := time.Now()
	defer func() { c.metrics.commits.observe(time.Since(start)) }()
	if !hasOutbox(recs) {
		return c.store.CommitSteps(ctx, recs)
	}
	c.claims.gate.RLock()
	defer c.claims.gate.RUnlock()
	err := c.store.CommitSteps(ctx, recs)
	if err == nil {
		c.claims.claimCommitted(recs)
	}
	return err
}

// close waits for in-flight commits and stops the loop. Idempotent.
func (c *committer) close() {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return
	}
	c.closed = true
	c.mu.Unlock()
	c.wg.Wait()
	close(c.in)
	<-c.done
}
