package main

import (
	"encoding/json"
	"path/filepath"
	"testing"
	"time"
)

// TestCLIBatch counts, creates, follows and lists a cancel batch over
// the fulfilment instances, and pages its items.
func TestCLIBatch(t *testing.T) {
	addr := testServer(t)
	ex := filepath.Join("..", "..", "examples")
	gobpmQuiet(t, addr, "deploy", filepath.Join(ex, "fulfilment.bpmn"))
	for _, id := range []string{"o-1", "o-2", "o-3"} {
		gobpmQuiet(t, addr, "start", "fulfilment", "--var", "orderId="+id)
	}
	gobpm(t, addr, "batch-dry-run", "batch", "create", "cancel", "--filter", "processKey=fulfilment", "--filter", `var=orderId="o-2"`, "--dry-run")
	var b struct{ ID, State string }
	out := gobpmQuiet(t, addr, "-o", "json", "batch", "create", "cancel", "--filter", "processKey=fulfilment", "--filter", "status=running")
	if err := json.Unmarshal([]byte(out), &b); err != nil || b.ID == "" {
		t.Fatalf("batch create: %v %q", err, out)
	}
	for deadline := time.Now().Add(10 * time.Second); b.State != "completed"; {
		if time.Now().After(deadline) {
			t.Fatalf("batch %s still %s", b.ID, b.State)
		}
		time.Sleep(10 * time.Millisecond)
		if err := json.Unmarshal([]byte(gobpmQuiet(t, addr, "-o", "json", "batch", "get", b.ID)), &b); err != nil {
			t.Fatal(err)
		}
	}
	gobpm(t, addr, "batch-get", "batch", "get", b.ID)
	gobpm(t, addr, "batch-list", "batch", "list")
	gobpm(t, addr, "batch-items", "batch", "items", b.ID, "--limit", "2")
	gobpm(t, addr, "batch-instances", "instances", "--status", "running")
	gobpm(t, addr, "error-batch-pause", "batch", "pause", b.ID)
	gobpm(t, addr, "error-batch-filter", "batch", "create", "cancel", "--filter", "procesKey=fulfilment")
	gobpm(t, addr, "error-batch-usage", "batch", "explode")
}
