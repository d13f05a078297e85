package cockpit_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/gobpm/gobpm/internal/cockpit"
	"github.com/gobpm/gobpm/internal/runtime"
	"github.com/gobpm/gobpm/internal/store/sqlite"
)

// BenchmarkPages renders the instance list and an instance page with 10,000
// stored instances (9,800 waiting at a user task, 100 callers each with a
// failed child holding an open incident). The target is under 100 ms each;
// the numbers are reported, not asserted.
//
//	go test -run '^$' -bench Pages -benchtime 50x ./internal/cockpit/
func BenchmarkPages(b *testing.B) {
	bb := setupWith(b, sqlite.Options{Synchronous: "NORMAL"}) // NORMAL only to fill the store faster
	bb.deploy("review.bpmn", "caller.bpmn", "picky.bpmn")
	startMany(b, bb.rt, "review", 9800)
	startMany(b, bb.rt, "caller", 100)
	rows, total, err := bb.rt.ListInstances(context.Background(), runtime.InstanceFilter{ProcessKey: "caller", Limit: 1})
	if err != nil || total != 100 {
		b.Fatalf("callers: %d %v", total, err)
	}
	if _, all, _ := bb.rt.ListInstances(context.Background(), runtime.InstanceFilter{Limit: 1}); all != 10000 {
		b.Fatalf("stored instances = %d, want 10000", all)
	}
	caller := rows[0].ID
	review, _, _ := bb.rt.ListInstances(context.Background(), runtime.InstanceFilter{ProcessKey: "review", Limit: 1})
	h := cockpit.New(bb.rt, nil, cockpit.Options{})

	for _, bc := range []struct{ name, path string }{
		{"InstanceList", "/instances"},
		{"InstanceListFiltered", "/instances?process=review&status=running&page=3"},
		{"InstancePageCaller", "/instances/" + string(caller)},
		{"InstancePageTask", "/instances/" + string(review[0].ID)},
		{"InstanceLivePoll", "/instances/" + string(caller)},
		{"Dashboard", "/"},
		{"ProcessPage", "/processes/review"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				req := httptest.NewRequest(http.MethodGet, bc.path, nil)
				if bc.name == "InstanceLivePoll" {
					req.Header.Set(cockpit.HeaderHXRequest, "true")
				}
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, req)
				if rec.Code != http.StatusOK {
					b.Fatalf("%s: %d %s", bc.path, rec.Code, rec.Body.String())
				}
			}
		})
	}
}

// startMany starts n instances of key from 8 goroutines, so group commit
// batches them.
func startMany(b *testing.B, rt *runtime.Runtime, key string, n int) {
	b.Helper()
	jobs := make(chan int, n)
	for i := 0; i < n; i++ {
		jobs <- i
	}
	close(jobs)
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				if _, err := rt.StartInstance(context.Background(), runtime.StartRequest{ProcessKey: key, BusinessKey: fmt.Sprintf("%s-%d", key, i)}); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		b.Fatal(err)
	}
}
