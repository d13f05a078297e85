package main

import (
	"context"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/gobpm/gobpm/client"
	"github.com/gobpm/gobpm/internal/api"
	"github.com/gobpm/gobpm/internal/runtime"
	"github.com/gobpm/gobpm/internal/store/sqlite"
)

// TestTriage runs examples/triage.bpmn end to end over HTTP with this
// program's workers: the router's rules decide what runs.
func TestTriage(t *testing.T) {
	ctx := context.Background()
	db, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "gobpm.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	rt := runtime.New(db, runtime.Options{})
	t.Cleanup(func() { _ = rt.Close() })
	srv := httptest.NewServer(api.New(rt, nil, api.Options{}))
	t.Cleanup(srv.Close)
	c, err := client.New(srv.URL, client.WithUser("sam", "support", "sre"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.DeployFiles(ctx, "../triage.bpmn"); err != nil {
		t.Fatal(err)
	}
	workers := startWorkers(c, client.WorkerOptions{Name: "triage-test", PollTimeout: 200 * time.Millisecond})
	t.Cleanup(func() {
		for _, w := range workers {
			_ = w.Stop(ctx)
		}
	})

	tests := []struct {
		name string
		vars map[string]any
		// tasks are the user tasks people complete, in order; ran the
		// activities the router started, by, in order of activation.
		tasks  []string
		ran    []string
		status string
		check  func(t *testing.T, inst client.Instance)
	}{
		{"out of memory: logs, restart", map[string]any{"severity": "minor", "symptom": "oom"}, nil,
			[]string{"collectLogs", "restartService"}, "completed", func(t *testing.T, inst client.Instance) {
				if inst.Variables["restarted"] != true || inst.Variables["triagedBy"] != "rules" {
					t.Errorf("variables = %v", inst.Variables)
				}
			}},
		{"critical and customer facing: page at once, notify twice", map[string]any{"severity": "critical", "customerFacing": true, "symptom": "oom"},
			[]string{"notifyCustomer", "notifyCustomer"},
			[]string{"collectLogs", "pageOnCall", "notifyCustomer", "restartService", "notifyCustomer"}, "completed", func(t *testing.T, inst client.Instance) {
				if inst.Variables["paged"] != "high" {
					t.Errorf("paged = %v, want the router's argument high", inst.Variables["paged"])
				}
			}},
		{"corrupt data: escalated to a war room", map[string]any{"severity": "major", "symptom": "corrupt"}, []string{"warRoom"},
			[]string{"collectLogs"}, "completed", func(t *testing.T, inst client.Instance) {
				if _, ok := inst.Variables["restarted"]; ok {
					t.Errorf("restarted after an escalation: %v", inst.Variables)
				}
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			inst, err := c.Start(ctx, "incident-triage", client.StartRequest{Variables: tc.vars})
			if err != nil {
				t.Fatal(err)
			}
			for _, node := range tc.tasks {
				task := awaitTask(t, c, inst.ID, node)
				if node == "notifyCustomer" && task.Name != "Notify the customer" {
					t.Errorf("task = %+v", task)
				}
				if _, err := c.ClaimTask(ctx, task.ID); err != nil {
					t.Fatal(err)
				}
				if err := c.CompleteTask(ctx, task.ID, nil); err != nil {
					t.Fatal(err)
				}
			}
			inst = awaitEnd(t, c, inst.ID)
			if inst.Status != tc.status {
				t.Fatalf("status %s, want %s", inst.Status, tc.status)
			}
			facts, err := c.History(ctx, inst.ID, 0, 1000)
			if err != nil {
				t.Fatal(err)
			}
			var ran []string
			for _, f := range facts {
				if f.Kind == "adhoc-activity-activated" && f.NodeID != nil {
					ran = append(ran, *f.NodeID)
				}
			}
			if !slices.Equal(ran, tc.ran) {
				t.Errorf("activated %v, want %v", ran, tc.ran)
			}
			tc.check(t, inst)
		})
	}
}

// awaitTask waits for the open user task of node in instance id.
func awaitTask(t *testing.T, c *client.Client, id, node string) client.Task {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		page, err := c.Tasks(context.Background(), client.TaskFilter{InstanceID: id})
		if err != nil {
			t.Fatal(err)
		}
		for _, task := range page.Items {
			if task.NodeID == node {
				return task
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("no task %s in instance %s", node, id)
	return client.Task{}
}

// awaitEnd waits until instance id is no longer running.
func awaitEnd(t *testing.T, c *client.Client, id string) client.Instance {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		inst, err := c.Instance(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		if inst.Status != "running" {
			return inst
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("instance %s still runs", id)
	return client.Instance{}
}
