package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestCrashRouterJobs: a router-job worker steers ad-hoc regions while the
// real server is killed (SIGKILL) under it, three times, and restarted on
// the same file. Answers lost in a crash are re-delivered once their lock
// expires; every instance completes with each activity activated and
// completed exactly once — whether the crash came before the answer's
// commit, between commit and reply, or while nothing was in flight.
func TestCrashRouterJobs(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs the server binary")
	}
	bin := buildBinary(t)
	db := filepath.Join(t.TempDir(), "gobpm.db")
	s := startServer(t, bin, db)
	deployTestdata(t, s.base, "router_crash.bpmn")
	const instances = 20
	var ids []string
	for range instances {
		code, inst := post(t, s.base+"/api/v1/processes/routed/instances", "application/json", []byte(`{}`))
		if code != http.StatusCreated {
			t.Fatalf("start: %d %v", code, inst)
		}
		ids = append(ids, inst["id"].(string))
	}

	var (
		base     atomic.Value // the running server's base URL ("" while down)
		answered atomic.Int64 // answers the server acknowledged
		stop     = make(chan struct{})
		wg       sync.WaitGroup
	)
	base.Store(s.base)
	client := &http.Client{Timeout: 5 * time.Second}
	call := func(path string, body any, out any) int {
		b, _ := json.Marshal(body)
		req, err := http.NewRequest(http.MethodPost, base.Load().(string)+path, bytes.NewReader(b))
		if err != nil {
			return 0
		}
		req.Header.Set("Content-Type", "application/json")
		res, err := client.Do(req)
		if err != nil {
			return 0 // the server is down: no answer
		}
		defer res.Body.Close()
		if out != nil {
			_ = json.NewDecoder(res.Body).Decode(out)
		}
		return res.StatusCode
	}
	for w := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				if base.Load().(string) == "" {
					time.Sleep(10 * time.Millisecond)
					continue
				}
				var got struct {
					Jobs []struct {
						Key       string         `json:"key"`
						LockToken string         `json:"lockToken"`
						Variables map[string]any `json:"variables"`
					} `json:"jobs"`
				}
				if call("/api/v1/jobs/activate", map[string]any{"type": "steer", "worker": fmt.Sprint("w", w), "maxJobs": 4,
					"lockDurationMs": 500, "requestTimeoutMs": 200}, &got) != http.StatusOK {
					time.Sleep(10 * time.Millisecond)
					continue
				}
				for _, j := range got.Jobs {
					if call("/api/v1/jobs/"+j.Key+"/complete", map[string]any{"lockToken": j.LockToken, "activate": next(j.Variables)}, nil) == http.StatusNoContent {
						answered.Add(1)
					}
				}
			}
		}()
	}
	// Three crashes, each after a few more acknowledged answers.
	for crash := range 3 {
		for answered.Load() < int64(10*(crash+1)) {
			time.Sleep(5 * time.Millisecond)
		}
		killServer(t, s)
		base.Store("")
		s = startServer(t, bin, db)
		base.Store(s.base)
	}
	// Then until every instance completed.
	deadline := time.Now().Add(2 * time.Minute)
	for _, id := range ids {
		for {
			code, inst := get(t, s.base+"/api/v1/instances/"+id)
			if code == http.StatusOK && inst["status"] == "completed" {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("instance %s did not complete: %v", id, inst["status"])
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	close(stop)
	wg.Wait()

	for _, id := range ids {
		activated, completed := map[string]int{}, map[string]int{}
		for _, f := range historyOf(t, s.base, id) {
			node, _ := f["nodeId"].(string)
			switch f["kind"] {
			case "adhoc-activity-activated":
				activated[node]++
			case "element-completed":
				if slices.Contains([]string{"s1", "s2", "s3"}, node) {
					completed[node]++
				}
			}
		}
		for _, a := range []string{"s1", "s2", "s3"} {
			if activated[a] != 1 || completed[a] != 1 {
				t.Errorf("instance %s: %s activated %d times, completed %d times; want once each", id, a, activated[a], completed[a])
			}
		}
	}
	t.Logf("%d answers acknowledged over 3 crashes", answered.Load())
}

// next is the router's rule: start the first of s1, s2, s3 that neither
// completed nor runs; nothing once all completed.
func next(vars map[string]any) []map[string]any {
	progress, _ := vars["progress"].(map[string]any)
	completed, _ := progress["completed"].(map[string]any)
	running, _ := progress["running"].([]any)
	for _, a := range []string{"s1", "s2", "s3"} {
		if completed[a] != nil || slices.Contains(running, any(a)) {
			continue
		}
		return []map[string]any{{"activityId": a}}
	}
	return []map[string]any{}
}
