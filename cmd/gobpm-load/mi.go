package main

import (
	"context"
	"fmt"
	"time"
)

// runMI measures what one job completion costs in a parallel multi-instance
// of -mi-small iterations and in one of -mi-size iterations (single client,
// one request at a time, so it is the server's cost and not queueing), and
// the start, GET and cancel of the big one.
func runMI(ctx context.Context, e *env) (*Result, error) {
	r := &Result{Scenario: "mi", Title: fmt.Sprintf("job completion in a %d- vs a %d-iteration parallel multi-instance", e.cfg.MISmall, e.cfg.MISize)}
	sample := e.cfg.Sample

	// Small: enough small instances for the sample, every job completed.
	nSmall := (sample + e.cfg.MISmall - 1) / e.cfg.MISmall
	ours := map[string]bool{}
	var starts []time.Duration
	for range nSmall {
		t0 := time.Now()
		inst, _, err := e.c.Start(ctx, keyMISmall, StartRequest{Variables: map[string]any{"n": e.cfg.MISmall}})
		if err != nil {
			return r, err
		}
		starts = append(starts, time.Since(t0))
		ours[inst.ID] = true
	}
	r.Timings = append(r.Timings, timing(fmt.Sprintf("start (n=%d)", e.cfg.MISmall), Summarize(starts)))
	e.logf("mi: completing %d jobs of %d instances with n=%d", nSmall*e.cfg.MISmall, nSmall, e.cfg.MISmall)
	small, err := completeSample(ctx, e, jobMISmall, ours, nSmall*e.cfg.MISmall)
	if err != nil {
		return r, err
	}
	smallSum := Summarize(small)
	r.Timings = append(r.Timings, timing(fmt.Sprintf("complete one job (n=%d)", e.cfg.MISmall), smallSum))
	completedSmall := 0
	for id := range ours {
		inst, _, err := e.c.Get(ctx, id)
		if err != nil {
			return r, err
		}
		if inst.Status == "completed" {
			completedSmall++
		}
	}
	r.check(fmt.Sprintf("small instances completed after all %d jobs", e.cfg.MISmall), nSmall, completedSmall)

	// Big: start, read, complete a sample, cancel; then start and cancel a second one.
	e.logf("mi: starting an instance with n=%d", e.cfg.MISize)
	t0 := time.Now()
	big, size, err := e.c.Start(ctx, keyMIBig, StartRequest{Variables: map[string]any{"n": e.cfg.MISize}})
	if err != nil {
		return r, err
	}
	st := timing(fmt.Sprintf("start (n=%d)", e.cfg.MISize), Summarize([]time.Duration{time.Since(t0)}))
	st.Bytes = int64(size)
	r.Timings = append(r.Timings, st)
	var gets []time.Duration
	for range 3 {
		t0 := time.Now()
		_, n, err := e.c.Get(ctx, big.ID)
		if err != nil {
			return r, err
		}
		gets = append(gets, time.Since(t0))
		size = n
	}
	gt := timing(fmt.Sprintf("GET /instances/{id} (n=%d)", e.cfg.MISize), Summarize(gets))
	gt.Bytes = int64(size)
	r.Timings = append(r.Timings, gt)

	n := min(sample, e.cfg.MISize-1) // leave one job so the instance stays open
	e.logf("mi: completing %d of its jobs", n)
	bigDur, err := completeSample(ctx, e, jobMIBig, map[string]bool{big.ID: true}, n)
	if err != nil {
		return r, err
	}
	bigSum := Summarize(bigDur)
	r.Timings = append(r.Timings, timing(fmt.Sprintf("complete one job (n=%d)", e.cfg.MISize), bigSum))
	if smallSum.P50 > 0 {
		r.Ratios = append(r.Ratios, Ratio{Name: fmt.Sprintf("median completion n=%d / n=%d", e.cfg.MISize, e.cfg.MISmall),
			Value: float64(bigSum.P50) / float64(smallSum.P50), Target: "≤ 3"})
		r.Ratios = append(r.Ratios, Ratio{Name: fmt.Sprintf("p99 completion n=%d / n=%d", e.cfg.MISize, e.cfg.MISmall),
			Value: float64(bigSum.P99) / float64(smallSum.P99)})
	}
	t0 = time.Now()
	c1, err := e.c.Cancel(ctx, big.ID)
	if err != nil {
		return r, err
	}
	r.Timings = append(r.Timings, timing(fmt.Sprintf("cancel (n=%d, %d done)", e.cfg.MISize, n), Summarize([]time.Duration{time.Since(t0)})))
	r.check("big instance after cancel", "terminated", c1.Status)

	t0 = time.Now()
	big2, _, err := e.c.Start(ctx, keyMIBig, StartRequest{Variables: map[string]any{"n": e.cfg.MISize}})
	if err != nil {
		return r, err
	}
	r.Timings = append(r.Timings, timing(fmt.Sprintf("start (n=%d), second", e.cfg.MISize), Summarize([]time.Duration{time.Since(t0)})))
	t0 = time.Now()
	c2, err := e.c.Cancel(ctx, big2.ID)
	if err != nil {
		return r, err
	}
	r.Timings = append(r.Timings, timing(fmt.Sprintf("cancel (n=%d, untouched)", e.cfg.MISize), Summarize([]time.Duration{time.Since(t0)})))
	r.check("second big instance after cancel", "terminated", c2.Status)
	r.note("completions are timed one at a time from one client (the server's cost per completion, no queueing); jobs of other instances are not completed")
	return r, nil
}

// completeSample activates jobs of typ and completes n of those belonging to
// the given instances, one at a time, timing each completion.
func completeSample(ctx context.Context, e *env, typ string, instances map[string]bool, n int) ([]time.Duration, error) {
	var out []time.Duration
	for attempt := 0; len(out) < n && attempt < 100; attempt++ {
		jobs, err := e.c.Activate(ctx, typ, "gobpm-load-mi", min(n-len(out), 1000), 1000)
		if err != nil {
			return out, err
		}
		for _, j := range jobs {
			if !instances[j.InstanceID] || len(out) >= n {
				continue // its lock runs out; another run's instance
			}
			t0 := time.Now()
			if err := e.c.Complete(ctx, j); err != nil {
				e.errs.Add(err)
				continue
			}
			out = append(out, time.Since(t0))
		}
	}
	if len(out) < n {
		return out, fmt.Errorf("completed only %d of %d jobs of type %s", len(out), n, typ)
	}
	return out, nil
}
