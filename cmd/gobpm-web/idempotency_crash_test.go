package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"
)

// TestCrashIdempotentStarts: clients start instances with idempotency keys
// while the real server is killed (SIGKILL) under them; every start that got
// no answer is retried against the restarted server with its key. Each key
// ends up with exactly one instance: none lost, none doubled — whether the
// crash came before the commit, between commit and answer, or after.
func TestCrashIdempotentStarts(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs the server binary")
	}
	bin := buildBinary(t)
	db := filepath.Join(t.TempDir(), "gobpm.db")
	s := startServer(t, bin, db)
	deployTestdata(t, s.base, "reentry.bpmn")
	const keys = 300
	start := func(base string, i int) (string, bool) {
		req, _ := http.NewRequest("POST", base+"/api/v1/processes/reentry/instances", bytes.NewReader([]byte(fmt.Sprintf(`{"variables":{"n":%d}}`, i))))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Idempotency-Key", fmt.Sprintf("key-%d", i))
		client := &http.Client{Timeout: 10 * time.Second}
		res, err := client.Do(req)
		if err != nil {
			return "", false // no answer: the client retries
		}
		defer res.Body.Close()
		var inst map[string]any
		if res.StatusCode != http.StatusCreated || json.NewDecoder(res.Body).Decode(&inst) != nil {
			return "", false
		}
		return inst["id"].(string), true
	}

	answered := make([]string, keys)
	var wg sync.WaitGroup
	next := make(chan int)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if id, ok := start(s.base, i); ok {
					answered[i] = id
				}
			}
		}()
	}
	for i := range keys {
		if i == keys/2 {
			// Kill the server in the middle of the stream, requests in flight.
			if err := s.cmd.Process.Signal(syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
		}
		next <- i
	}
	close(next)
	wg.Wait()
	<-s.done

	s2 := startServer(t, bin, db)
	ids := map[string]int{}
	for i := range keys {
		id, ok := start(s2.base, i) // retry everything; answered keys must replay
		if !ok {
			t.Fatalf("retry of key-%d failed", i)
		}
		if answered[i] != "" && answered[i] != id {
			t.Errorf("key-%d: first answer %s, retry %s", i, answered[i], id)
		}
		ids[id]++
	}
	if len(ids) != keys {
		t.Errorf("%d keys led to %d distinct instances", keys, len(ids))
	}
	code, page := get(t, s2.base+"/api/v1/instances?processKey=reentry&limit=1")
	if code != http.StatusOK || page["total"] != json.Number(fmt.Sprint(keys)) {
		t.Errorf("stored instances: %v, want %d", page["total"], keys)
	}
}
