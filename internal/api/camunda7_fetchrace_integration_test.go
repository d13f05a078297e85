package api_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// TestCamunda7FilteredFetchRace sends concurrent filtered fetches with
// the same workerId for one task: only one of them may lock it (a
// filtered fetch never renews a lock another fetch just took).
func TestCamunda7FilteredFetchRace(t *testing.T) {
	t.Parallel()
	b := c7World(t)
	const rounds, fetchers = 20, 4
	body := `{"workerId":"w","maxTasks":5,"topics":[{"topicName":"charge","lockDuration":60000,"processDefinitionKey":"c7order"}]}`
	for round := range rounds {
		b.c7Start(`{"amount":1}`)
		var (
			wg   sync.WaitGroup
			mu   sync.Mutex
			got  int
			errs []string
		)
		for range fetchers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				req := httptest.NewRequest("POST", "/engine-rest/external-task/fetchAndLock", strings.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
				rec := httptest.NewRecorder()
				b.handler.ServeHTTP(rec, req)
				var tasks []map[string]any
				err := json.Unmarshal(rec.Body.Bytes(), &tasks)
				mu.Lock()
				defer mu.Unlock()
				if rec.Code != http.StatusOK || err != nil {
					errs = append(errs, rec.Body.String())
					return
				}
				got += len(tasks)
			}()
		}
		wg.Wait()
		if len(errs) > 0 {
			t.Fatalf("round %d: fetchAndLock failed: %v", round, errs)
		}
		if got != 1 {
			t.Fatalf("round %d: %d concurrent filtered fetches of one new task got %d tasks, want 1", round, fetchers, got)
		}
	}
}
