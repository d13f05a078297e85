package storetest

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"testing"

	"github.com/gobpm/gobpm/internal/store"
)

func testRestart(t *testing.T, open Opener) {
	t.Parallel()
	ctx := context.Background()
	db := open(t)
	if _, _, err := db.Deploy(ctx, Deployment("d1", Resource("order.bpmn", "v1", "order"))); err != nil {
		t.Fatal(err)
	}
	step := NewStep("i1", "order", 1)
	if err := db.CommitSteps(ctx, []store.StepRecord{step}); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	db = db.Reopen(t)
	def, err := db.Definition(ctx, "order", 0)
	if err != nil || def.Version != 1 || string(def.XML) != "v1" {
		t.Fatalf("Definition after restart = %+v, %v", def, err)
	}
	got, err := db.Instance(ctx, "i1")
	if err != nil {
		t.Fatal(err)
	}
	AssertInstance(t, got.InstanceRow, step.Instance)
	if string(got.Header) != string(step.Header) || !reflect.DeepEqual(got.Parts, step.Parts) {
		t.Errorf("state = %q %+v, want %q %+v", got.Header, got.Parts, step.Header, step.Parts)
	}
	running, err := db.RunningInstances(ctx)
	if err != nil || len(running) != 1 {
		t.Fatalf("RunningInstances after restart = %d, %v", len(running), err)
	}
}

// testConcurrentReadersAndWriter commits steps while readers query; WAL and
// the single writer must keep every call free of SQLITE_BUSY.
func testConcurrentReadersAndWriter(t *testing.T, open Opener) {
	t.Parallel()
	ctx := context.Background()
	db := open(t)
	const (
		writers   = 4
		perWriter = 25
		readers   = 8
	)
	var (
		wg       sync.WaitGroup
		done     = make(chan struct{})
		errsMu   sync.Mutex
		errs     []error
		addError = func(err error) {
			errsMu.Lock()
			errs = append(errs, err)
			errsMu.Unlock()
		}
	)
	var writersWG sync.WaitGroup
	for w := range writers {
		writersWG.Add(1)
		go func() {
			defer writersWG.Done()
			for i := range perWriter {
				id := store.InstanceID(fmt.Sprintf("w%d-%03d", w, i))
				s := NewStep(id, "order", 1)
				if err := db.CommitSteps(ctx, []store.StepRecord{s}); err != nil {
					addError(err)
					return
				}
				s2 := NextStep(s, store.StatusRunning)
				if err := db.CommitSteps(ctx, []store.StepRecord{s2}); err != nil {
					addError(err)
					return
				}
			}
		}()
	}
	for range readers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-done:
					return
				default:
				}
				if _, _, err := db.ListInstances(ctx, store.InstanceFilter{Status: store.StatusRunning}); err != nil {
					addError(err)
					return
				}
				if _, err := db.RunningInstances(ctx); err != nil {
					addError(err)
					return
				}
				if _, err := db.History(ctx, "w0-000", 0, 10); err != nil && !errors.Is(err, store.ErrNotFound) {
					addError(err)
					return
				}
			}
		}()
	}
	writersWG.Wait()
	close(done)
	wg.Wait()
	for _, err := range errs {
		t.Error(err)
	}
	_, total, err := db.ListInstances(ctx, store.InstanceFilter{})
	if err != nil || total != writers*perWriter {
		t.Fatalf("total = %d, %v; want %d", total, err, writers*perWriter)
	}
}
