package main

import (
	"context"
	"fmt"
	"net/url"
	"sync"
	"sync/atomic"
	"time"
)

// childrenPerParent is the number of called children of each load-parent.
const childrenPerParent = 10

// seedItem returns the process and request of the i-th seeded instance and
// how many instances it stores. Of 100: 50 load-list-a and 24 load-list-b
// (completed), 25 load-job (waiting at the job), 1 load-parent with its
// called load-list-b children. Business keys repeat about 8 times.
func seedItem(i, groups int) (string, StartRequest, int) {
	bk := fmt.Sprintf("bk-%07d", i%groups)
	switch slot := i % 100; {
	case slot == 99:
		return keyParent, StartRequest{BusinessKey: bk, Variables: map[string]any{"n": childrenPerParent}}, 1 + childrenPerParent
	case slot < 50:
		return keyListA, StartRequest{BusinessKey: bk}, 1
	case slot < 74:
		return keyListB, StartRequest{BusinessKey: bk}, 1
	default:
		return keyJob, StartRequest{BusinessKey: bk}, 1
	}
}

// runList stores -stored instances (counting those already there) as fast as
// concurrent starts go, then times the first page of every list filter, a
// deep page by offset and, when the server offers it, by cursor.
func runList(ctx context.Context, e *env) (*Result, error) {
	r := &Result{Scenario: "list", Title: fmt.Sprintf("instance list over %d stored instances", e.cfg.Stored)}
	all := url.Values{}
	stored, err := e.c.Count(ctx, all, countLimit)
	if err != nil {
		return r, err
	}
	if need := int64(e.cfg.Stored) - stored; need > 0 {
		if err := seed(ctx, e, r, need); err != nil {
			return r, err
		}
	} else {
		r.note("the server already stores %d instances; nothing seeded", stored)
	}
	if stored, err = e.c.Count(ctx, all, countLimit); err != nil {
		return r, err
	}
	r.checkAtLeast("stored instances (server's list)", int64(e.cfg.Stored), stored)

	parents, err := e.c.List(ctx, url.Values{"processKey": {keyParent}, "limit": {"1"}})
	if err != nil {
		return r, err
	}
	some, err := e.c.List(ctx, url.Values{"processKey": {keyListA}, "limit": {"1"}, "offset": {"0"}})
	if err != nil {
		return r, err
	}
	bk, number := "bk-0000000", int64(1)
	if len(some.Items) > 0 {
		bk, number = some.Items[0].BusinessKey, max(some.Items[0].Number, 1)
	}
	type query struct {
		name string
		q    url.Values
	}
	queries := []query{
		{"processKey+status", url.Values{"processKey": {keyListA}, "status": {"completed"}}},
		{"processKey+status", url.Values{"processKey": {keyJob}, "status": {"running"}}},
		{"status", url.Values{"status": {"running"}}},
		{"status", url.Values{"status": {"completed"}}},
		{"businessKey", url.Values{"businessKey": {bk}}},
		{"processKey+number", url.Values{"processKey": {keyListA}, "number": {fmt.Sprint(number)}}},
		{"number", url.Values{"number": {fmt.Sprint(number)}}},
		{"processKey", url.Values{"processKey": {keyListB}}},
		{"no filter", url.Values{}},
		{"deep page by offset", url.Values{"offset": {fmt.Sprint(stored / 2)}}},
	}
	if len(parents.Items) > 0 {
		queries = append(queries, query{"parentId", url.Values{"parentId": {parents.Items[0].ID}}})
	} else {
		r.note("no %s instance stored: parentId not timed", keyParent)
	}
	e.logf("list: timing %d queries × %d calls", len(queries), e.cfg.Reps)
	var cursorOffered bool
	for _, q := range queries {
		lt, page, err := timeList(ctx, e, q.name, q.q)
		if err != nil {
			return r, err
		}
		if q.name == "parentId" {
			r.check("children listed by parentId", childrenPerParent, len(page.Items))
		}
		if len(q.q) == 0 {
			cursorOffered = page.NextCursor != nil
		}
		r.Lists = append(r.Lists, lt)
	}
	if cursorOffered {
		lt, err := deepCursor(ctx, e, stored/2)
		if err != nil {
			return r, err
		}
		r.Lists = append(r.Lists, lt)
	} else {
		r.note("cursor paging: the server's page has no `nextCursor`, so the deep page by cursor is skipped")
	}
	r.note("first pages of 50 (the API's default limit), timed one call at a time from one client; `key=value` filters as sent")
	if e.srv != nil {
		if err := e.srv.Stop(); err != nil {
			return r, err
		}
		db, wal, err := DBSize(e.db)
		if err != nil {
			return r, err
		}
		r.Bytes = append(r.Bytes, BytesRow{What: "after shutdown: whole file / stored instances (the list mix)", Instances: stored,
			DBBytes: db, WALBytes: wal, PerInstance: float64(db+wal) / float64(max(stored, 1)),
			Note: "¾ completed, ¼ waiting; includes history"})
		if err := e.srv.Start(ctx); err != nil {
			return r, err
		}
		e.connect()
	}
	return r, nil
}

// seed stores about need more instances (the mix of seedItem) from
// -concurrency clients, bounded by -seed-timeout.
func seed(ctx context.Context, e *env, r *Result, need int64) error {
	sctx, cancel := context.WithTimeout(ctx, e.cfg.SeedTimeout)
	defer cancel()
	groups := int(max(need/8, 1))
	var next, stored, waiting atomic.Int64
	var lat Recorder
	errs0 := e.errs.n.Load()
	t0 := time.Now()
	done := make(chan struct{})
	go func() { // progress
		tick := time.NewTicker(10 * time.Second)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				s := stored.Load()
				rate := float64(s) / time.Since(t0).Seconds()
				e.logf("list: seeded %d of %d (%.0f/s, %.0f s to go)", s, need, rate, float64(need-s)/max(rate, 1))
			}
		}
	}()
	e.logf("list: seeding %d instances", need)
	var wg sync.WaitGroup
	for range e.cfg.Concurrency {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for sctx.Err() == nil && stored.Load() < need {
				i := int(next.Add(1) - 1)
				key, req, n := seedItem(i, groups)
				ts := time.Now()
				if _, _, err := e.c.Start(sctx, key, req); err != nil {
					if sctx.Err() == nil {
						e.errs.Add(err)
					}
					continue
				}
				lat.Add(time.Since(ts))
				stored.Add(int64(n))
				if key == keyJob {
					waiting.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	close(done)
	secs := time.Since(t0).Seconds()
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if sctx.Err() != nil {
		r.note("seeding stopped after %s with %d of %d stored", e.cfg.SeedTimeout, stored.Load(), need)
	}
	starts := lat.Len()
	r.Phases = append(r.Phases, Phase{Name: "seeding (closed loop, latency = start round trip)", Clients: e.cfg.Concurrency, Seconds: secs,
		Started: int64(starts), Completed: stored.Load(), InWindow: stored.Load(), PIPerSec: float64(stored.Load()) / secs,
		Latency: timing("start", lat.Summary()), Errors: e.errs.n.Load() - errs0})
	r.note("seeding: started = start requests; completed and PI/s = instances stored (called children included), %d of them waiting at their job", waiting.Load())
	return nil
}

// timeList calls the list query -reps times and reports the median and max.
func timeList(ctx context.Context, e *env, name string, q url.Values) (ListTiming, Page, error) {
	var d []time.Duration
	var first Page
	for i := range e.cfg.Reps {
		t0 := time.Now()
		p, err := e.c.List(ctx, q)
		if err != nil {
			return ListTiming{}, p, err
		}
		d = append(d, time.Since(t0))
		if i == 0 {
			first = p
		}
	}
	s := Summarize(d)
	return ListTiming{Filter: name, Query: "?" + q.Encode(), Items: len(first.Items), Total: first.Total, N: s.N, MedianMs: ms(s.P50), MaxMs: ms(s.Max)}, first, nil
}

// deepCursor walks pages of 500 by cursor to about depth (at most 4,000
// pages or 2 minutes, untimed), then times the page of 50 found there.
func deepCursor(ctx context.Context, e *env, depth int64) (ListTiming, error) {
	q := url.Values{"limit": {"500"}}
	var seen int64
	var cursor string
	walkEnd := time.Now().Add(2 * time.Minute)
	for pages := 0; seen+500 <= depth && pages < 4000 && time.Now().Before(walkEnd); pages++ {
		p, err := e.c.List(ctx, q)
		if err != nil {
			return ListTiming{}, err
		}
		if p.NextCursor == nil || *p.NextCursor == "" {
			break
		}
		seen += int64(len(p.Items))
		cursor = *p.NextCursor
		q.Set("cursor", cursor)
	}
	lt, _, err := timeList(ctx, e, "deep page by cursor", url.Values{"cursor": {cursor}})
	lt.Filter = fmt.Sprintf("deep page by cursor (after %d)", seen)
	if len(lt.Query) > 40 {
		lt.Query = lt.Query[:40] + "…"
	}
	return lt, err
}
