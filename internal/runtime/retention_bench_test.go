package runtime_test

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	_ "modernc.org/sqlite" // the pages of the file are read with a plain connection

	"github.com/gobpm/gobpm/internal/clock"
	"github.com/gobpm/gobpm/internal/runtime"
	"github.com/gobpm/gobpm/internal/store/sqlite"
)

// churn is a server under a steady load with a short history time to
// live: it completes n instances of a process whose history lives one
// minute, round instances per minute of a manual clock, and runs the
// cleaner after every minute. Deleted pages go to SQLite's free list and
// are reused, so the file stops growing once it holds about two minutes of
// history, however many instances the load completes.
type churn struct {
	clk  *clock.Manual
	db   *sqlite.DB
	rt   *runtime.Runtime
	path string
}

func newChurn(tb testing.TB) *churn {
	tb.Helper()
	c := &churn{clk: clock.NewManual(manualEpoch), path: filepath.Join(tb.TempDir(), "gobpm.db")}
	db, err := sqlite.Open(context.Background(), c.path, sqlite.Options{Synchronous: "NORMAL"})
	if err != nil {
		tb.Fatal(err)
	}
	c.db = db
	c.rt = runtime.New(db, runtime.Options{ManualClock: c.clk, Retention: runtime.RetentionOptions{Every: -1}})
	tb.Cleanup(func() {
		c.rt.Close()
		c.db.Close()
	})
	model := bpmnProcess("churn", `gobpm:historyTimeToLive="1m"`, `<startEvent id="s"/><sequenceFlow id="f1" sourceRef="s" targetRef="t"/>
		<scriptTask id="t" gobpm:resultVariable="total"><script>amount * 2</script></scriptTask>
		<sequenceFlow id="f2" sourceRef="t" targetRef="e"/><endEvent id="e"/>`)
	if _, err := c.rt.Deploy(context.Background(), []runtime.File{{Name: "churn.bpmn", Content: []byte(model)}}); err != nil {
		tb.Fatal(err)
	}
	return c
}

// run completes n instances, round per minute of the clock, on 8
// concurrent clients (their steps share commits), cleaning after each
// minute; it returns how many instances the cleaner deleted.
func (c *churn) run(tb testing.TB, n, round int) int {
	tb.Helper()
	ctx := context.Background()
	deleted := 0
	for done := 0; done < n; {
		batch := min(round, n-done)
		var wg sync.WaitGroup
		errs := make(chan error, 8)
		for w := range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := w; i < batch; i += 8 {
					if _, err := c.rt.StartInstance(ctx, runtime.StartRequest{ProcessKey: "churn", Variables: map[string]any{"amount": i}}); err != nil {
						errs <- err
						return
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		if err := <-errs; err != nil {
			tb.Fatal(err)
		}
		done += batch
		if _, err := c.rt.AdvanceClock(ctx, time.Minute); err != nil {
			tb.Fatal(err)
		}
		d, err := c.rt.CleanHistory(ctx)
		if err != nil {
			tb.Fatal(err)
		}
		deleted += d
	}
	return deleted
}

// pages returns the database's size in pages and how many of them are
// free (reusable).
func (c *churn) pages(tb testing.TB) (total, free int64) {
	tb.Helper()
	conn, err := sql.Open("sqlite", "file:"+c.path+"?mode=ro")
	if err != nil {
		tb.Fatal(err)
	}
	defer conn.Close()
	if err := conn.QueryRow(`PRAGMA page_count`).Scan(&total); err != nil {
		tb.Fatal(err)
	}
	if err := conn.QueryRow(`PRAGMA freelist_count`).Scan(&free); err != nil {
		tb.Fatal(err)
	}
	return total, free
}

// fileBytes is the size of the database file and its WAL.
func (c *churn) fileBytes(tb testing.TB) int64 {
	tb.Helper()
	var n int64
	for _, p := range []string{c.path, c.path + "-wal"} {
		if info, err := os.Stat(p); err == nil {
			n += info.Size()
		}
	}
	return n
}

// TestRetentionBoundsDatabase: after the first minutes of a steady load,
// more load with a short time to live does not grow the database; it only
// reuses the pages the cleaner freed. (A size check, not a timing one.)
func TestRetentionBoundsDatabase(t *testing.T) {
	t.Parallel()
	c := newChurn(t)
	const round = 200
	c.run(t, 3*round, round)
	warm, _ := c.pages(t)
	deleted := c.run(t, 10*round, round)
	total, free := c.pages(t)
	t.Logf("pages after 3 minutes: %d; after 13: %d (%d free); %d deleted", warm, total, free, deleted)
	if deleted < 9*round {
		t.Errorf("the cleaner deleted %d of %d instances", deleted, 10*round)
	}
	// Two minutes of history live at most; allow a little for the index
	// shapes to settle, never the ten-minute growth an uncleaned store has.
	if total > warm+warm/4 {
		t.Errorf("database grew from %d to %d pages (%d free) under a load with a one-minute time to live", warm, total, free)
	}
	left, _, err := c.rt.ListInstances(context.Background(), runtime.InstanceFilter{ProcessKey: "churn", Limit: 10 * round})
	if err != nil || len(left) > 2*round {
		t.Errorf("%d instances left (%v), want at most two minutes' worth", len(left), err)
	}
}

// BenchmarkHistoryRetention completes b.N instances under a one-minute
// time to live (1000 a minute of a manual clock, the cleaner after each)
// and reports the database's size at the end: it stays flat as b.N grows.
//
//	go test ./internal/runtime -run '^$' -bench HistoryRetention -benchtime 100000x
//	go test ./internal/runtime -run '^$' -bench HistoryRetention -benchtime 1000000x
func BenchmarkHistoryRetention(b *testing.B) {
	c := newChurn(b)
	b.ResetTimer()
	deleted := c.run(b, b.N, 1000)
	b.StopTimer()
	total, free := c.pages(b)
	b.ReportMetric(float64(c.fileBytes(b))/(1<<20), "MiB-file+wal")
	b.ReportMetric(float64(total-free)*4096/(1<<20), "MiB-used")
	b.ReportMetric(float64(deleted), "deleted")
	if b.N >= 10000 && deleted < b.N-2000 {
		b.Fatalf("the cleaner deleted %d of %d instances", deleted, b.N)
	}
}
