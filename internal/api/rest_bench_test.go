package api_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/gobpm/gobpm/internal/api"
	"github.com/gobpm/gobpm/internal/runtime"
	"github.com/gobpm/gobpm/internal/store/sqlite"
)

// The models of the REST benchmarks: start → end, and start → job → end.
const (
	benchStraightModel = `<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" targetNamespace="urn:bench">
  <process id="straight" isExecutable="true">
    <startEvent id="start"/><sequenceFlow id="f1" sourceRef="start" targetRef="end"/><endEvent id="end"/>
  </process>
</definitions>`
	benchJobModel = `<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:gobpm="urn:gobpm:1" targetNamespace="urn:bench">
  <process id="job" isExecutable="true">
    <startEvent id="start"/><sequenceFlow id="f1" sourceRef="start" targetRef="work"/>
    <serviceTask id="work" gobpm:type="bench-work"/>
    <sequenceFlow id="f2" sourceRef="work" targetRef="end"/><endEvent id="end"/>
  </process>
</definitions>`
)

// benchAPI is the real router over the real runtime and a SQLite file with
// the default durability (synchronous=FULL).
func benchAPI(b *testing.B) http.Handler {
	b.Helper()
	ctx := context.Background()
	db, err := sqlite.Open(ctx, filepath.Join(b.TempDir(), "gobpm.db"), sqlite.Options{})
	if err != nil {
		b.Fatal(err)
	}
	rt := runtime.New(db, runtime.Options{})
	b.Cleanup(func() { rt.Close(); db.Close() })
	h := api.New(rt, nil, api.Options{})
	for _, model := range []string{benchStraightModel, benchJobModel} {
		if rec := serve(h, http.MethodPost, "/api/v1/deployments", "application/xml", model); rec.Code != http.StatusCreated {
			b.Fatalf("deploy: %d %s", rec.Code, rec.Body)
		}
	}
	return h
}

// serve runs one request through h.
func serve(h http.Handler, method, path, contentType, body string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// BenchmarkREST measures the durable REST path through the real router,
// runtime and SQLite (synchronous=FULL), without the network: one op is one
// process instance from start to end, many in parallel so that group
// commit shares fsyncs as it does under load. Profile it with
// -cpuprofile; `make loadtest` measures the same over real HTTP.
//
//   - straight: POST …/instances of a start → end process;
//   - job: POST …/instances of start → service task → end, then the job
//     activated (up to 8 at a time, as workers do) and completed: a
//     parallel client completes whatever jobs it got, its own or others'.
func BenchmarkREST(b *testing.B) {
	b.Run("straight", func(b *testing.B) {
		h := benchAPI(b)
		b.SetParallelism(16)
		b.ResetTimer()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if rec := serve(h, http.MethodPost, "/api/v1/processes/straight/instances", "application/json", `{"variables":{"n":1}}`); rec.Code != http.StatusCreated {
					b.Errorf("start: %d %s", rec.Code, rec.Body)
					return
				}
			}
		})
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "PI/s")
	})
	b.Run("job", func(b *testing.B) {
		h := benchAPI(b)
		var worker atomic.Int64
		b.SetParallelism(16)
		b.ResetTimer()
		b.RunParallel(func(pb *testing.PB) {
			name := fmt.Sprintf("w%d", worker.Add(1))
			for pb.Next() {
				if rec := serve(h, http.MethodPost, "/api/v1/processes/job/instances", "application/json", `{"variables":{"n":1}}`); rec.Code != http.StatusCreated {
					b.Errorf("start: %d %s", rec.Code, rec.Body)
					return
				}
				rec := serve(h, http.MethodPost, "/api/v1/jobs/activate", "application/json",
					`{"type":"bench-work","worker":"`+name+`","maxJobs":8,"lockDurationMs":60000}`)
				var got struct {
					Jobs []struct {
						Key       string `json:"key"`
						LockToken string `json:"lockToken"`
					} `json:"jobs"`
				}
				if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil || rec.Code != http.StatusOK {
					b.Errorf("activate: %d %s", rec.Code, rec.Body)
					return
				}
				for _, j := range got.Jobs {
					body := `{"lockToken":"` + j.LockToken + `","variables":{"done":true}}`
					if rec := serve(h, http.MethodPost, "/api/v1/jobs/"+j.Key+"/complete", "application/json", body); rec.Code != http.StatusNoContent && rec.Code != http.StatusOK {
						b.Errorf("complete: %d %s", rec.Code, rec.Body)
						return
					}
				}
			}
		})
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "PI/s")
	})
}
