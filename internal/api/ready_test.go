package api_test

import (
	"net/http"
	"sync/atomic"
	"testing"

	"github.com/gobpm/gobpm/internal/api"
)

// TestReadyz: 503 while start-up resumes running instances, 200 after.
func TestReadyz(t *testing.T) {
	t.Parallel()
	var ready atomic.Bool
	b := setup(t, newFake(), api.Options{Ready: ready.Load})
	if got := b.get("/readyz").wantStatus(t, http.StatusServiceUnavailable).object(t); got["status"] != "resuming" {
		t.Errorf("resuming: %v", got)
	}
	ready.Store(true)
	if got := b.get("/readyz").wantStatus(t, http.StatusOK).object(t); got["status"] != "ready" {
		t.Errorf("ready: %v", got)
	}
}
