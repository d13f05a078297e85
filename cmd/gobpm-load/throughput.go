package main

import (
	"context"
	"fmt"
	"net/url"
	"sync"
	"time"
)

const (
	// countLimit bounds counting by paging when a server does not answer totals.
	countLimit = 5_000_000
	// openOutstanding bounds the requests an open loop has in flight.
	openOutstanding = 4096
	// drainTimeout bounds the wait for started instances to finish after a phase.
	drainTimeout = 90 * time.Second
)

// warmup is the start of a closed-loop phase that is not measured.
func warmup(d time.Duration) time.Duration { return min(2*time.Second, d/5) }

// phaseRun is one throughput phase being run.
type phaseRun struct {
	Phase
	tr *tracker
}

// result turns a finished phase into its report row.
func (p *phaseRun) result(errsBefore, errsAfter int64) Phase {
	ph := p.Phase
	ph.Seconds = p.tr.to.Sub(p.tr.from).Seconds()
	ph.Started = p.tr.started.Load()
	ph.Completed = p.tr.completed.Load()
	ph.InWindow = p.tr.inWindow.Load()
	ph.PIPerSec = float64(ph.InWindow) / ph.Seconds
	ph.Latency = timing("start→completed", p.tr.lat.Summary())
	ph.Errors = errsAfter - errsBefore
	return ph
}

// throughputPhases runs the closed-loop phase (unless -rate is set) and the
// open-loop phase at half its rate (or at -rate); phase runs one phase given
// its target rate (0: closed loop).
func throughputPhases(ctx context.Context, e *env, r *Result, phase func(ctx context.Context, rate float64) (Phase, error)) error {
	rate := e.cfg.Rate
	if rate == 0 {
		e.logf("%s: closed loop for %s (%d clients)", r.Scenario, e.cfg.Duration, e.cfg.Concurrency)
		p, err := phase(ctx, 0)
		if err != nil {
			return err
		}
		r.Phases = append(r.Phases, p)
		e.logf("%s: %.0f PI/s, p99 %.1f ms", r.Scenario, p.PIPerSec, p.Latency.P99Ms)
		rate = p.PIPerSec / 2
		if rate < 1 {
			r.note("the closed loop completed too little to run the half-rate phase")
			return nil
		}
	}
	e.logf("%s: open loop at %.0f PI/s for %s", r.Scenario, rate, e.cfg.Duration)
	p, err := phase(ctx, rate)
	if err != nil {
		return err
	}
	if e.cfg.Rate == 0 {
		p.Name = "half of max"
	}
	r.Phases = append(r.Phases, p)
	e.logf("%s: %.0f PI/s, p99 %.1f ms", r.Scenario, p.PIPerSec, p.Latency.P99Ms)
	return nil
}

// newPhase prepares a phase's window and tracker: a closed loop measures after
// a warm-up, an open loop from its first due time.
func newPhase(e *env, rate float64, inflight int) (*phaseRun, Pacer) {
	var pacer Pacer
	var from time.Time
	p := &phaseRun{Phase: Phase{Clients: e.cfg.Concurrency, TargetRate: rate}}
	if rate == 0 {
		p.Name = "max (closed loop)"
		from = time.Now().Add(warmup(e.cfg.Duration))
	} else {
		p.Name = "open loop"
		p.Clients = 0
		pacer = Pacer{Start: time.Now().Add(20 * time.Millisecond), Rate: rate}
		from = pacer.Start
		inflight = 0
	}
	p.tr = newTracker(from, from.Add(e.cfg.Duration), inflight)
	return p, pacer
}

// drive offers the phase's load: start calls op back to back from
// -concurrency clients (closed loop) or at the pacer's rate (open loop),
// passing the time the latency counts from.
func (p *phaseRun) drive(ctx context.Context, e *env, pacer Pacer, start func(ctx context.Context, at time.Time)) {
	if p.TargetRate == 0 {
		closedLoop(ctx, e.cfg.Concurrency, p.tr.to, func(ctx context.Context, end time.Time) {
			if !p.tr.acquire(ctx, end) {
				return
			}
			start(ctx, time.Now())
		})
		return
	}
	_, p.Clients = openLoop(ctx, pacer, e.cfg.Duration, openOutstanding, start)
}

// runStraight measures start → end instances: the start's answer is the
// completed instance.
func runStraight(ctx context.Context, e *env) (*Result, error) {
	r := &Result{Scenario: "straight", Title: "start → end over REST"}
	q := url.Values{"processKey": {keyStraight}, "status": {"completed"}}
	before, err := e.c.Count(ctx, q, countLimit)
	if err != nil {
		return r, err
	}
	var ours int64
	err = throughputPhases(ctx, e, r, func(ctx context.Context, rate float64) (Phase, error) {
		p, pacer := newPhase(e, rate, 0)
		errs0 := e.errs.n.Load()
		p.drive(ctx, e, pacer, func(ctx context.Context, at time.Time) {
			inst, _, err := e.starter().Start(ctx, keyStraight, StartRequest{})
			if err != nil {
				e.errs.Add(err)
				return
			}
			p.tr.Started(inst.ID, at)
			if inst.Status != "completed" {
				e.errs.Add(fmt.Errorf("instance %s of %s is %s after its start, want completed", inst.ID, keyStraight, inst.Status))
				return
			}
			p.tr.Ended(inst.ID, time.Now())
		})
		ours += p.tr.completed.Load()
		return p.result(errs0, e.errs.n.Load()), ctx.Err()
	})
	if err != nil {
		return r, err
	}
	after, err := e.c.Count(ctx, q, countLimit)
	if err != nil {
		return r, err
	}
	r.check("completed instances of "+keyStraight+" (server's list − before)", ours, after-before)
	r.note("an instance counts when its start answers `completed`; latency is the start request's round trip (open loop: from its due time)")
	return r, nil
}

// runJob measures start → service task → end instances: starters start
// them, workers long-poll for their jobs and complete them; an instance
// counts when its job completion returns.
func runJob(ctx context.Context, e *env) (*Result, error) {
	r := &Result{Scenario: "job", Title: "start → job → end over REST"}
	qDone := url.Values{"processKey": {keyJob}, "status": {"completed"}}
	qRunning := url.Values{"processKey": {keyJob}, "status": {"running"}}
	doneBefore, err := e.c.Count(ctx, qDone, countLimit)
	if err != nil {
		return r, err
	}
	runningBefore, err := e.c.Count(ctx, qRunning, countLimit)
	if err != nil {
		return r, err
	}
	var started, completed, foreign int64
	err = throughputPhases(ctx, e, r, func(ctx context.Context, rate float64) (Phase, error) {
		p, pacer := newPhase(e, rate, e.cfg.Inflight)
		p.Workers = e.cfg.Workers
		errs0 := e.errs.n.Load()
		stopWorkers := runWorkers(ctx, e, p.tr)
		p.drive(ctx, e, pacer, func(ctx context.Context, at time.Time) {
			inst, _, err := e.starter().Start(ctx, keyJob, StartRequest{})
			if err != nil {
				e.errs.Add(err)
				p.tr.release()
				return
			}
			p.tr.Started(inst.ID, at)
		})
		// Drain: the workers finish what was started.
		deadline := time.Now().Add(drainTimeout)
		for p.tr.completed.Load() < p.tr.started.Load() && time.Now().Before(deadline) && ctx.Err() == nil {
			time.Sleep(10 * time.Millisecond)
		}
		stopWorkers()
		if left := p.tr.started.Load() - p.tr.completed.Load(); left > 0 {
			r.note("%s: %d instances were still waiting %s after the phase", p.Name, left, drainTimeout)
		}
		started += p.tr.started.Load()
		completed += p.tr.completed.Load()
		foreign += p.tr.unmatched()
		return p.result(errs0, e.errs.n.Load()), ctx.Err()
	})
	if err != nil {
		return r, err
	}
	doneAfter, err := e.c.Count(ctx, qDone, countLimit)
	if err != nil {
		return r, err
	}
	runningAfter, err := e.c.Count(ctx, qRunning, countLimit)
	if err != nil {
		return r, err
	}
	r.check("completed instances of "+keyJob+" (server's list − before)", completed+foreign, doneAfter-doneBefore)
	r.check("running instances of "+keyJob+" (server's list − before)", started-completed-foreign, runningAfter-runningBefore)
	r.check("instances started by this run and not completed", 0, started-completed)
	if foreign > 0 {
		r.note("%d jobs of instances this run did not start (left on the server before) were completed too", foreign)
	}
	r.note("workers: %d, each long-polling `jobs/activate` (maxJobs %d) and completing its batch concurrently; closed loop bounded to %d unfinished instances",
		e.cfg.Workers, e.cfg.Batch, e.cfg.Inflight)
	r.note("latency: from the start request (open loop: its due time) to the answer of the job's completion")
	return r, nil
}

// runWorkers starts the job workers of tr's phase; the returned function
// stops them and waits until they have returned. A completion in flight is
// never cancelled, so every completion the server made is counted.
func runWorkers(ctx context.Context, e *env, tr *tracker) func() {
	wctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	for i := range e.cfg.Workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			name := fmt.Sprintf("gobpm-load-%d", i)
			c := e.cs[i%len(e.cs)] // worker i talks to node i mod N
			for n := 0; wctx.Err() == nil && n < maxOps; n++ {
				jobs, err := c.Activate(wctx, jobWork, name, e.cfg.Batch, 500)
				if err != nil {
					if wctx.Err() == nil {
						e.errs.Add(err)
						time.Sleep(50 * time.Millisecond)
					}
					continue
				}
				var bwg sync.WaitGroup
				for _, j := range jobs {
					bwg.Add(1)
					go func() {
						defer bwg.Done()
						if err := c.Complete(ctx, j); err != nil {
							e.errs.Add(err)
							return
						}
						tr.Ended(j.InstanceID, time.Now())
					}()
				}
				bwg.Wait()
			}
		}()
	}
	return func() {
		cancel()
		wg.Wait()
	}
}
