package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/gobpm/gobpm/client"
)

// TestCrashBatch: a cancel batch over 10,000 instances is killed
// (SIGKILL) mid-way and the server restarted on the same file: the batch
// resumes and completes, and every instance was cancelled exactly once —
// one instance-terminated fact each in the history export — whether or
// not the kill fell between an act and its record.
func TestCrashBatch(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs the server binary over 10,000 instances")
	}
	bin := buildBinary(t)
	db := filepath.Join(t.TempDir(), "gobpm.db")
	flags := []string{"--batch-rate", "5000"}
	s := startServer(t, bin, db, flags...)
	deployTestdata(t, s.base, "migrate_crash_v1.bpmn")
	const n = 10_000
	began := time.Now()
	startInstances(t, s.base, n)
	t.Logf("%d instances started in %v", n, time.Since(began))
	code, batch := post(t, s.base+"/api/v1/batches", "application/json",
		[]byte(`{"operation":"cancel","filter":{"processKey":"moved","status":"running"}}`))
	if code != http.StatusCreated || batch["total"] != json.Number(fmt.Sprint(n)) {
		t.Fatalf("create batch: %d %v", code, batch)
	}
	id := batch["id"].(string)
	// Kill it mid-way: once a quarter is done (or after a minute).
	var before int64
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline) && before < n/4; {
		_, b := get(t, s.base+"/api/v1/batches/"+id)
		before, _ = b["done"].(json.Number).Int64()
		time.Sleep(time.Millisecond)
	}
	killServer(t, s)
	t.Logf("killed with %d of %d instances cancelled, %v after the start", before, n, time.Since(began))
	s = startServer(t, bin, db, flags...)

	var b map[string]any
	for deadline := time.Now().Add(2 * time.Minute); ; {
		var code int
		code, b = get(t, s.base+"/api/v1/batches/"+id)
		if code == http.StatusOK && b["state"] == "completed" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the batch did not complete after the restart: %d %v", code, b)
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Logf("completed %v after the start", time.Since(began))
	if b["done"] != json.Number(fmt.Sprint(n)) || b["failed"] != json.Number("0") {
		t.Fatalf("batch after the restart: done %v, failed %v of %d", b["done"], b["failed"], n)
	}
	terminated := terminations(t, s.base)
	if len(terminated) != n {
		t.Errorf("%d instances terminated, want %d", len(terminated), n)
	}
	for inst, count := range terminated {
		if count != 1 {
			t.Errorf("instance %s terminated %d times", inst, count)
		}
	}
}

// startInstances starts n instances of "moved", eight requests at a time.
func startInstances(t *testing.T, base string, n int) {
	t.Helper()
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for w := range 8 {
		wg.Go(func() {
			for i := w; i < n; i += 8 {
				resp, err := http.Post(base+"/api/v1/processes/moved/instances", "application/json", bytes.NewReader([]byte(`{}`)))
				if err == nil {
					resp.Body.Close()
					if resp.StatusCode != http.StatusCreated {
						err = fmt.Errorf("start: %d", resp.StatusCode)
					}
				}
				if err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

// terminations counts the instance-terminated facts of each instance in
// the whole history export.
func terminations(t *testing.T, base string) map[string]int {
	t.Helper()
	c, err := client.New(base)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int{}
	f := client.ExportFilter{Limit: 10_000}
	for {
		var buf bytes.Buffer
		end, err := c.ExportHistory(context.Background(), f, &buf)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(&buf)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			var fact struct {
				Kind       string `json:"kind"`
				InstanceID string `json:"instanceId"`
			}
			if err := json.Unmarshal(sc.Bytes(), &fact); err != nil {
				t.Fatalf("export line %q: %v", sc.Text(), err)
			}
			if fact.Kind == "instance-terminated" {
				out[fact.InstanceID]++
			}
		}
		if !end.More {
			return out
		}
		f.Cursor = end.Cursor
	}
}
