package api_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// benchJob is an activated job of the benchmarks.
type benchJob struct {
	Key       string `json:"key"`
	LockToken string `json:"lockToken"`
}

// activatedJobs starts n start → job → end instances (16 at a time) and
// activates their jobs.
func activatedJobs(b *testing.B, h http.Handler, n int) []benchJob {
	b.Helper()
	var wg sync.WaitGroup
	next := make(chan struct{}, n)
	for range n {
		next <- struct{}{}
	}
	close(next)
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range next {
				if rec := serve(h, http.MethodPost, "/api/v1/processes/job/instances", "application/json", `{}`); rec.Code != http.StatusCreated {
					b.Errorf("start: %d %s", rec.Code, rec.Body)
					return
				}
			}
		}()
	}
	wg.Wait()
	var jobs []benchJob
	for len(jobs) < n {
		rec := serve(h, http.MethodPost, "/api/v1/jobs/activate", "application/json",
			`{"type":"bench-work","worker":"bench","maxJobs":1000,"lockDurationMs":600000,"requestTimeoutMs":0}`)
		var got struct{ Jobs []benchJob }
		if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil || rec.Code != http.StatusOK || len(got.Jobs) == 0 {
			b.Fatalf("activate: %d %s", rec.Code, rec.Body)
		}
		jobs = append(jobs, got.Jobs...)
	}
	return jobs
}

// cpuTime is the user+sys time the process has used.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkCompleteJobs compares completing activated jobs one request
// each (POST /api/v1/jobs/{key}/complete, 16 clients in parallel, so group
// commit shares fsyncs among them) with batches of 50 (POST
// /api/v1/jobs/complete, 16 clients), through the real router, runtime and
// SQLite (synchronous=FULL). One op is one job completed (its instance
// ends); the starts and activations are outside the timer. It reports
// jobs/s and the process's CPU per job (cpu-µs/job).
func BenchmarkCompleteJobs(b *testing.B) {
	const clients, batch = 16, 50
	run := func(b *testing.B, send func(h http.Handler, jobs []benchJob) bool, per int) {
		h := benchAPI(b)
		jobs := activatedJobs(b, h, b.N)
		work := make(chan []benchJob, len(jobs)/per+1)
		for len(jobs) > 0 {
			k := min(per, len(jobs))
			work <- jobs[:k]
			jobs = jobs[k:]
		}
		close(work)
		b.ResetTimer()
		c0 := cpuTime(b)
		var wg sync.WaitGroup
		for range clients {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for js := range work {
					if !send(h, js) {
						return
					}
				}
			}()
		}
		wg.Wait()
		b.StopTimer()
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "jobs/s")
		b.ReportMetric(float64((cpuTime(b)-c0).Microseconds())/float64(b.N), "cpu-µs/job")
	}
	b.Run("single", func(b *testing.B) {
		run(b, func(h http.Handler, js []benchJob) bool {
			j := js[0]
			rec := serve(h, http.MethodPost, "/api/v1/jobs/"+j.Key+"/complete", "application/json", `{"lockToken":"`+j.LockToken+`","variables":{"done":true}}`)
			if rec.Code != http.StatusNoContent {
				b.Errorf("complete: %d %s", rec.Code, rec.Body)
				return false
			}
			return true
		}, 1)
	})
	b.Run("batch", func(b *testing.B) {
		run(b, func(h http.Handler, js []benchJob) bool {
			items := make([]string, len(js))
			for i, j := range js {
				items[i] = `{"key":"` + j.Key + `","lockToken":"` + j.LockToken + `","variables":{"done":true}}`
			}
			rec := serve(h, http.MethodPost, "/api/v1/jobs/complete", "application/json", `{"completions":[`+strings.Join(items, ",")+`]}`)
			var got struct{ Results []struct{ Status int } }
			if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil || rec.Code != http.StatusOK || len(got.Results) != len(js) {
				b.Errorf("complete: %d %s", rec.Code, rec.Body)
				return false
			}
			for _, r := range got.Results {
				if r.Status != http.StatusNoContent {
					b.Errorf("an item: %d in %s", r.Status, rec.Body)
					return false
				}
			}
			return true
		}, batch)
	})
}
