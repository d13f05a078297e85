package main

import (
	"context"
	"fmt"
	"net/url"
	"sync"
	"sync/atomic"
)

// startMany starts n instances from e.cfg.Concurrency clients; req builds the
// key and request of instance i; done (may be nil) sees each started one. It
// returns how many started.
func startMany(ctx context.Context, e *env, n int, req func(i int) (string, StartRequest), done func(i int, inst Instance)) int64 {
	var next, ok atomic.Int64
	var wg sync.WaitGroup
	for range min(e.cfg.Concurrency, n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				key, body := req(i)
				inst, _, err := e.c.Start(ctx, key, body)
				if err != nil {
					e.errs.Add(err)
					continue
				}
				ok.Add(1)
				if done != nil {
					done(i, inst)
				}
			}
		}()
	}
	wg.Wait()
	return ok.Load()
}

// runBytes measures database bytes per waiting start→job instance. With a
// spawned server it compares the file after a clean shutdown (which
// checkpoints the WAL) before and after storing -waiting instances; against
// an external server (-addr with -db) it can only compare the live file and
// WAL.
func runBytes(ctx context.Context, e *env) (*Result, error) {
	r := &Result{Scenario: "bytes", Title: fmt.Sprintf("storage per waiting instance (%d × start → job)", e.cfg.Waiting)}
	if e.srv == nil && e.db == "" {
		r.note("skipped: the database file is unknown (use -spawn, or -db with -addr)")
		return r, nil
	}
	if isPostgres(e.db) {
		r.note("skipped: it measures a SQLite file, and the database is PostgreSQL")
		return r, nil
	}
	k := e.cfg.Waiting
	qRunning := url.Values{"processKey": {keyJob}, "status": {"running"}}
	all := url.Values{}

	var db0, wal0 int64
	var err error
	if e.srv != nil {
		if err := e.srv.Stop(); err != nil {
			return r, err
		}
		if db0, wal0, err = DBSize(e.db); err != nil {
			return r, err
		}
		if err := e.srv.Start(ctx); err != nil {
			return r, err
		}
		e.connect()
	} else if db0, wal0, err = DBSize(e.db); err != nil {
		return r, err
	}
	before, err := e.c.Count(ctx, qRunning, countLimit)
	if err != nil {
		return r, err
	}
	e.logf("bytes: storing %d waiting instances", k)
	started := startMany(ctx, e, k, func(i int) (string, StartRequest) {
		return keyJob, StartRequest{BusinessKey: fmt.Sprintf("bytes-%07d", i)}
	}, nil)
	if err := ctx.Err(); err != nil {
		return r, err
	}
	after, err := e.c.Count(ctx, qRunning, countLimit)
	if err != nil {
		return r, err
	}
	r.check("waiting instances stored (server's list − before)", k, after-before)
	r.check("starts answered", k, started)
	stored, err := e.c.Count(ctx, all, countLimit)
	if err != nil {
		return r, err
	}
	liveDB, liveWAL, err := DBSize(e.db)
	if err != nil {
		return r, err
	}
	r.Bytes = append(r.Bytes, BytesRow{What: "live (server running): Δ(db + wal) / waiting", Instances: started,
		DBBytes: liveDB, WALBytes: liveWAL, PerInstance: float64(liveDB+liveWAL-db0-wal0) / float64(max(started, 1)),
		Note: "WAL not checkpointed: an upper bound"})
	if e.srv == nil {
		r.note("external server: only the live file and WAL can be measured (no checkpoint over REST)")
		return r, nil
	}
	if err := e.srv.Stop(); err != nil {
		return r, err
	}
	db1, wal1, err := DBSize(e.db)
	if err != nil {
		return r, err
	}
	r.Bytes = append(r.Bytes, BytesRow{What: "after shutdown: Δ(db + wal) / waiting", Instances: started,
		DBBytes: db1, WALBytes: wal1, PerInstance: float64(db1+wal1-db0-wal0) / float64(max(started, 1)),
		Note: "target ≤ 1024; clean shutdown checkpoints the WAL; includes indexes, job and free pages"})
	r.Bytes = append(r.Bytes, BytesRow{What: "after shutdown: whole file / all stored instances", Instances: stored,
		DBBytes: db1, WALBytes: wal1, PerInstance: float64(db1+wal1) / float64(max(stored, 1)),
		Note: "includes the deployed models and the schema"})
	if err := e.srv.Start(ctx); err != nil {
		return r, err
	}
	e.connect()
	return r, nil
}
