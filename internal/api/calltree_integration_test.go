package api_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	goruntime "runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gobpm/gobpm/internal/runtime"
	"github.com/gobpm/gobpm/internal/testdb"
)

// forkModel is a process whose parallel multi-instance call activity calls
// the process itself, branches times: a call tree that only the call depth
// bounds in depth and nothing but the call-tree budget bounds in breadth.
func forkModel(branches int) string {
	return defs("fork", fmt.Sprintf(`<startEvent id="start"/><sequenceFlow id="f1" sourceRef="start" targetRef="spawn"/>
<callActivity id="spawn" calledElement="fork"><multiInstanceLoopCharacteristics isSequential="false"><loopCardinality>%d</loopCardinality></multiInstanceLoopCharacteristics></callActivity>
<sequenceFlow id="f2" sourceRef="spawn" targetRef="end"/><endEvent id="end"/>`, branches))
}

// heapWatch samples the heap of the test process (the server runs in it)
// until stopped, keeping the peak. Past abort it cancels the request's
// context; past kill it ends the test binary, so a call tree that grows
// without bound cannot take the machine down.
type heapWatch struct {
	base, peak atomic.Uint64
	stop       chan struct{}
	done       chan struct{}
}

func watchHeap(cancel context.CancelFunc, abort, kill uint64) *heapWatch {
	goruntime.GC()
	var ms goruntime.MemStats
	goruntime.ReadMemStats(&ms)
	h := &heapWatch{stop: make(chan struct{}), done: make(chan struct{})}
	h.base.Store(ms.HeapAlloc)
	h.peak.Store(ms.HeapAlloc)
	go func() {
		defer close(h.done)
		tick := time.NewTicker(2 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-h.stop:
				return
			case <-tick.C:
			}
			goruntime.ReadMemStats(&ms)
			if ms.HeapAlloc > h.peak.Load() {
				h.peak.Store(ms.HeapAlloc)
			}
			if ms.HeapAlloc > abort {
				cancel()
			}
			if ms.HeapAlloc > kill {
				panic(fmt.Sprintf("heap grew to %d MiB while one start ran: the call tree is unbounded", ms.HeapAlloc>>20))
			}
		}
	}()
	return h
}

// Stop ends the sampling and returns the peak heap above the base, in MiB.
func (h *heapWatch) Stop() (peakMiB, baseMiB uint64) {
	close(h.stop)
	<-h.done
	return (h.peak.Load() - h.base.Load()) >> 20, h.base.Load() >> 20
}

// startWatched starts process key through the router while watching the
// heap and returns the answer (checked against openapi.yaml) and the peak
// heap above the base, in MiB. A start that has not answered within a
// generous guard ends the test binary (the handler cannot be stopped).
func startWatched(t *testing.T, b *bundle, key string, abort, kill uint64) (*response, uint64) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	path := "/api/v1/processes/" + key + "/instances"
	h := watchHeap(cancel, abort, kill)
	answered := make(chan *response, 1)
	go func() {
		req := httptest.NewRequest(http.MethodPost, path, strings.NewReader(`{}`)).WithContext(ctx)
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		b.handler.ServeHTTP(rec, req)
		answered <- &response{Status: rec.Code, Header: rec.Header(), Body: rec.Body.Bytes()}
	}()
	select {
	case res := <-answered:
		peak, base := h.Stop()
		t.Logf("start of %s answered %d; peak heap %d MiB above a base of %d MiB", key, res.Status, peak, base)
		req := httptest.NewRequest(http.MethodPost, path, strings.NewReader(`{}`))
		req.Header.Set("Content-Type", "application/json")
		validateAgainstContract(t, req, res)
		return res, peak
	case <-time.After(5 * time.Minute): // a guard against a hang, not a timing
		peak, _ := h.Stop()
		panic(fmt.Sprintf("start of %s did not answer (peak heap %d MiB above base)", key, peak))
	}
}

// budgetIncidents returns the call-tree-budget incidents among incidents
// (an instance's or a list's items), checking each names the call activity
// and the bound.
func budgetIncidents(t *testing.T, incidents []any, bound string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, it := range incidents {
		in := it.(map[string]any)
		if in["kind"] != "call-tree-budget-exceeded" {
			continue
		}
		if in["nodeId"] != "spawn" || !strings.Contains(in["message"].(string), bound) {
			t.Errorf("budget incident %v does not name the call activity spawn and %q", in, bound)
		}
		out = append(out, in)
	}
	return out
}

// total returns the total of an instance list.
func total(t *testing.T, b *bundle, query string) int {
	t.Helper()
	n, err := b.get("/api/v1/instances?"+query).wantStatus(t, http.StatusOK).object(t)["total"].(json.Number).Int64()
	if err != nil {
		t.Fatal(err)
	}
	return int(n)
}

// TestIntegrationForkStartIsBounded starts, through the API over a real
// SQLite file, a process whose parallel multi-instance call activity calls
// the process itself ten times. Before the call-tree budget the one start
// built the whole tree (10^63 instances: the call depth bounds only its
// depth) and grew the heap past 768 MiB in about ten seconds without
// answering. Now it answers with the instance, failed, whose call activity
// holds incidents naming the bound; the command launched exactly the
// default 1,000 children, the heap stayed under 256 MiB, the server still
// starts other instances, and cancelling the root ends the whole tree.
func TestIntegrationForkStartIsBounded(t *testing.T) {
	// Not parallel: the heap it measures is the test binary's.
	b := setupRealWith(t, runtime.Options{})
	b.postXML("/api/v1/deployments?name=fork.bpmn", forkModel(10)).wantStatus(t, http.StatusCreated)
	b.postXML("/api/v1/deployments?name=plain.bpmn", defs("plain", `<startEvent id="start"/><sequenceFlow id="f1" sourceRef="start" targetRef="end"/><endEvent id="end"/>`)).wantStatus(t, http.StatusCreated)

	const maxPeakMiB = 256
	res, peak := startWatched(t, b, "fork", maxPeakMiB<<20, 768<<20)
	root := res.wantStatus(t, http.StatusCreated).object(t)
	if peak >= maxPeakMiB {
		t.Errorf("peak heap %d MiB while the fork started, want < %d MiB", peak, maxPeakMiB)
	}
	if root["status"] != "failed" {
		t.Errorf("root status %v, want failed", root["status"])
	}
	refused := budgetIncidents(t, root["incidents"].([]any), fmt.Sprintf("this step would launch more than %d instances", runtime.DefaultCallTreeInstances))
	if len(refused) != 9 { // the first iteration's child took the budget; the other nine were refused
		t.Errorf("root has %d call-tree-budget incidents, want 9: %v", len(refused), root["incidents"])
	}
	if n := total(t, b, "processKey=fork"); n != runtime.DefaultCallTreeInstances+1 {
		t.Errorf("%d fork instances, want the root and %d children", n, runtime.DefaultCallTreeInstances)
	}

	plain := b.postJSON("/api/v1/processes/plain/instances", `{}`).wantStatus(t, http.StatusCreated).object(t)
	if plain["status"] != "completed" {
		t.Errorf("a straight-through start after the fork answered %v", plain)
	}

	rootID := root["id"].(string)
	began := time.Now()
	got := b.send(http.MethodPost, "/api/v1/instances/"+rootID+"/cancel", "", "").wantStatus(t, http.StatusOK).object(t)
	if got["status"] != "terminated" {
		t.Errorf("cancelled root = %v", got["status"])
	}
	t.Logf("the cancel of the tree answered after %s", time.Since(began).Round(time.Millisecond))
	for _, status := range []string{"running", "failed"} {
		if n := total(t, b, "processKey=fork&status="+status); n != 0 {
			t.Errorf("%d fork instances still %s after the root was cancelled", n, status)
		}
	}
}

// TestIntegrationFatForkStartIsBounded is the fork whose every instance
// also opens 200 user tasks: the records of the children fill the bytes
// bound of the call-tree budget (8 MiB here, a quarter of the default, so
// that the test's commit stays small enough for a loaded machine) long
// before 1,000 instances, and the call that would pass it is refused
// naming that bound.
func TestIntegrationFatForkStartIsBounded(t *testing.T) {
	// Not parallel: the heap it measures is the test binary's.
	const maxBytes = 8 << 20
	b := setupRealWith(t, runtime.Options{CallTree: runtime.CallTreeLimits{MaxBytes: maxBytes}})
	b.postXML("/api/v1/deployments?name=fork.bpmn", defs("fork", `<startEvent id="start"/><sequenceFlow id="f0" sourceRef="start" targetRef="split"/>
<parallelGateway id="split"/><sequenceFlow id="f1" sourceRef="split" targetRef="spawn"/><sequenceFlow id="f3" sourceRef="split" targetRef="work"/>
<userTask id="work"><multiInstanceLoopCharacteristics isSequential="false"><loopCardinality>200</loopCardinality></multiInstanceLoopCharacteristics></userTask>
<sequenceFlow id="f4" sourceRef="work" targetRef="worked"/><endEvent id="worked"/>
<callActivity id="spawn" calledElement="fork"><multiInstanceLoopCharacteristics isSequential="false"><loopCardinality>10</loopCardinality></multiInstanceLoopCharacteristics></callActivity>
<sequenceFlow id="f2" sourceRef="spawn" targetRef="end"/><endEvent id="end"/>`)).wantStatus(t, http.StatusCreated)

	// On PostgreSQL the driver also holds the encoded statements of a
	// pipelined batch of the commit (the PostgreSQL store's maxBatchStatements) beside
	// the records: the bound is higher, and still a bound.
	maxPeakMiB := uint64(128)
	if driver, _ := testdb.Driver(); driver == testdb.Postgres {
		maxPeakMiB = 256
	}
	res, peak := startWatched(t, b, "fork", maxPeakMiB<<20, 1024<<20)
	root := res.wantStatus(t, http.StatusCreated).object(t)
	if peak >= maxPeakMiB {
		t.Errorf("peak heap %d MiB while the fork started, want < %d MiB", peak, maxPeakMiB)
	}
	bound := fmt.Sprintf("the most they may hold is %d (CallTreeLimits.MaxBytes)", maxBytes)
	if refused := budgetIncidents(t, root["incidents"].([]any), bound); root["status"] != "failed" || len(refused) == 0 {
		t.Errorf("root = %v, want failed with incidents naming %q", root, bound)
	}
	n := total(t, b, "processKey=fork")
	if n < 2 || n > runtime.DefaultCallTreeInstances {
		t.Errorf("%d fork instances, want fewer than the instance bound allows", n)
	}
	t.Logf("the start committed %d instances", n)
}

// TestIntegrationCallTreeBudget checks the call-tree budget's accounting
// through the API with small bounds: the fork start launches exactly
// MaxInstances children depth-first and refuses the rest on their call
// activities; retrying a refused call launches it in a step (and budget)
// of its own; a deep but narrow recursion stops at the call depth, not the
// budget; a wide parallel multi-instance of straight-through calls
// completes the calls that fit and refuses the others.
func TestIntegrationCallTreeBudget(t *testing.T) {
	t.Parallel()
	t.Run("fork", func(t *testing.T) {
		t.Parallel()
		b := setupRealWith(t, runtime.Options{CallTree: runtime.CallTreeLimits{MaxInstances: 5}})
		b.postXML("/api/v1/deployments?name=fork.bpmn", forkModel(3)).wantStatus(t, http.StatusCreated)
		root := b.postJSON("/api/v1/processes/fork/instances", `{}`).wantStatus(t, http.StatusCreated).object(t)
		bound := "this step would launch more than 5 instances"
		refused := budgetIncidents(t, root["incidents"].([]any), bound)
		if root["status"] != "failed" || len(refused) != 2 {
			t.Fatalf("root = %v, want failed with 2 budget incidents", root)
		}
		if n := total(t, b, "processKey=fork"); n != 6 {
			t.Errorf("%d fork instances after the start, want the root and 5 children", n)
		}
		all := b.get("/api/v1/incidents?limit=100").wantStatus(t, http.StatusOK).items(t)
		// Depth first: five nested children; the last one's three calls and
		// the two others of each of its four ancestors and the root refused.
		if got := len(budgetIncidents(t, all, bound)); got != 3+4*2+2 {
			t.Errorf("%d budget incidents in the tree, want 13", got)
		}

		b.postJSON("/api/v1/incidents/"+refused[0]["id"].(string)+"/retry", `{}`).wantStatus(t, http.StatusOK)
		if n := total(t, b, "processKey=fork"); n != 11 {
			t.Errorf("%d fork instances after one retry, want 11 (its own five)", n)
		}
		after := b.get("/api/v1/instances/"+root["id"].(string)).wantStatus(t, http.StatusOK).object(t)
		stillOpen := 0
		for _, in := range budgetIncidents(t, after["incidents"].([]any), bound) {
			if _, resolved := in["resolvedAt"]; !resolved {
				stillOpen++
			}
		}
		if stillOpen != 1 || after["status"] != "failed" {
			t.Errorf("root after one retry = %v, want failed with 1 open budget incident", after)
		}
	})
	t.Run("deep and narrow", func(t *testing.T) {
		t.Parallel()
		b := setupRealWith(t, runtime.Options{})
		b.postXML("/api/v1/deployments?name=fork.bpmn", forkModel(1)).wantStatus(t, http.StatusCreated)
		b.postJSON("/api/v1/processes/fork/instances", `{}`).wantStatus(t, http.StatusCreated)
		if n := total(t, b, "processKey=fork"); n != 64 {
			t.Errorf("%d instances, want the call depth of 64", n)
		}
		all := b.get("/api/v1/incidents?limit=100").wantStatus(t, http.StatusOK).items(t)
		if len(all) != 1 || all[0].(map[string]any)["kind"] != "scope-depth-exceeded" {
			t.Errorf("incidents %v, want the one call-depth incident at the bottom", all)
		}
	})
	t.Run("wide", func(t *testing.T) {
		t.Parallel()
		b := setupRealWith(t, runtime.Options{CallTree: runtime.CallTreeLimits{MaxInstances: 40}})
		b.postXML("/api/v1/deployments?name=leaf.bpmn", defs("leaf", `<startEvent id="start"/><sequenceFlow id="f1" sourceRef="start" targetRef="end"/><endEvent id="end"/>`)).wantStatus(t, http.StatusCreated)
		b.postXML("/api/v1/deployments?name=wide.bpmn", defs("wide", `<startEvent id="start"/><sequenceFlow id="f1" sourceRef="start" targetRef="spawn"/>
<callActivity id="spawn" calledElement="leaf"><multiInstanceLoopCharacteristics isSequential="false"><loopCardinality>50</loopCardinality></multiInstanceLoopCharacteristics></callActivity>
<sequenceFlow id="f2" sourceRef="spawn" targetRef="end"/><endEvent id="end"/>`)).wantStatus(t, http.StatusCreated)
		root := b.postJSON("/api/v1/processes/wide/instances", `{}`).wantStatus(t, http.StatusCreated).object(t)
		refused := budgetIncidents(t, root["incidents"].([]any), "this step would launch more than 40 instances")
		if root["status"] != "failed" || len(refused) != 10 {
			t.Errorf("root = %v, want failed with 10 budget incidents", root)
		}
		if n := total(t, b, "processKey=leaf&status=completed"); n != 40 {
			t.Errorf("%d completed leaves, want 40", n)
		}
	})
}
