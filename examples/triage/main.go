// Command triage works the incident-triage process of examples/triage.bpmn:
// its ad-hoc region is steered by a router job (type triage-router) that
// this program answers by rules on the snapshot, and it runs the region's
// service tasks (collect-logs, restart-service, page-on-call) as
// simulations. The README's "Ad-hoc regions steered by a worker" section
// shows where an LLM agent would take the rules' place.
//
//	GOBPM_ADDR=http://127.0.0.1:8080 go run ./examples/triage
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"slices"
	"time"

	"github.com/gobpm/gobpm/client"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	addr := os.Getenv("GOBPM_ADDR")
	if addr == "" {
		addr = "http://127.0.0.1:8080"
	}
	c, err := client.New(addr, client.WithToken(os.Getenv("GOBPM_TOKEN")))
	if err != nil {
		slog.Error("client", "error", err)
		os.Exit(1)
	}
	opts := client.WorkerOptions{
		Name: "triage-example",
		Metrics: func(e client.WorkerEvent) {
			slog.Info("job", "kind", e.Kind, "type", e.Job.Type, "key", e.Job.Key, "error", e.Err)
		},
	}
	workers := startWorkers(c, opts)
	<-ctx.Done()
	sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for _, w := range workers {
		_ = w.Stop(sctx)
	}
}

// startWorkers starts the router worker and the workers of the region's
// service tasks.
func startWorkers(c *client.Client, opts client.WorkerOptions) []*client.Worker {
	ws := []*client.Worker{
		client.NewRouterWorker(c, "triage-router", route, opts),
		client.NewWorker(c, "collect-logs", collectLogs, opts),
		client.NewWorker(c, "restart-service", restartService, opts),
		client.NewWorker(c, "page-on-call", pageOnCall, opts),
	}
	for _, w := range ws {
		w.Start()
	}
	return ws
}

// incident is what the rules read of the region's variables.
type incident struct {
	Severity       string `json:"severity"`
	CustomerFacing bool   `json:"customerFacing"`
	LogSummary     string `json:"logSummary"`
}

// route is the router: asked when the region opens and after every
// activity completes, it names what runs next. An empty answer starts
// nothing; the region ends when nothing runs in it any more.
//
//   - opened: collect the logs; page on-call at once for a critical
//     incident; tell customer-facing incidents' customers we investigate.
//   - logs say "oom": restart the service (once).
//   - logs say "corrupt": no rule fits, escalate (a BPMN error the model
//     catches on the region: a person opens a war room).
//   - the restart completed: tell the customers it is resolved (a second
//     notification; the region is parallel, so it may run beside the first).
func route(_ context.Context, _ client.Job, s client.RouterSnapshot) (client.RouterAnswer, error) {
	var inc incident
	if err := remarshal(s.Variables, &inc); err != nil {
		return client.RouterAnswer{}, err
	}
	started := func(id string) bool {
		return s.Progress.Completed[id] > 0 || slices.Contains(s.Progress.Running, id)
	}
	// The completions this answer is about: one usually, several when
	// activities completed while the previous answer was being decided.
	asked := func(id string) bool { return slices.Contains(s.Progress.Triggers, id) }
	var acts []client.Activation
	if len(s.Progress.Triggers) == 0 { // the region opened
		acts = append(acts, client.Activation{ActivityID: "collectLogs"})
		if inc.Severity == "critical" {
			acts = append(acts, client.Activation{ActivityID: "pageOnCall", Variables: map[string]any{"urgency": "high"}})
		}
		if inc.CustomerFacing {
			acts = append(acts, client.Activation{ActivityID: "notifyCustomer", Variables: map[string]any{"template": "investigating"}})
		}
	}
	if asked("collectLogs") && inc.LogSummary == "corrupt" {
		return client.RouterAnswer{}, client.BPMNError{Code: "ESCALATE", Message: "the logs show data corruption; no rule covers it"}
	}
	if asked("collectLogs") && inc.LogSummary == "oom" && !started("restartService") {
		acts = append(acts, client.Activation{ActivityID: "restartService"})
	}
	if asked("restartService") && inc.CustomerFacing {
		acts = append(acts, client.Activation{ActivityID: "notifyCustomer", Variables: map[string]any{"template": "resolved"}})
	}
	// Name only activities the region has (an LLM's answer needs the same
	// check: a tool it made up would be an incident of the region).
	acts = slices.DeleteFunc(acts, func(a client.Activation) bool {
		return !slices.ContainsFunc(s.Candidates, func(c client.RouterCandidate) bool { return c.ID == a.ActivityID })
	})
	return client.RouterAnswer{Activate: acts, Variables: map[string]any{"triagedBy": "rules"}}, nil
}

// collectLogs simulates reading the service's logs: the incident's
// symptom variable stands for what they show.
func collectLogs(_ context.Context, job client.Job) (map[string]any, error) {
	summary, _ := job.Variables["symptom"].(string)
	if summary == "" {
		summary = "clean"
	}
	return map[string]any{"logSummary": summary}, nil
}

// restartService simulates a restart.
func restartService(context.Context, client.Job) (map[string]any, error) {
	return map[string]any{"restarted": true}, nil
}

// pageOnCall simulates a page; urgency is its input (the router's argument
// or the model's default).
func pageOnCall(_ context.Context, job client.Job) (map[string]any, error) {
	return map[string]any{"paged": job.Variables["urgency"]}, nil
}

// remarshal copies v into out through JSON.
func remarshal(v, out any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("triage: %w", err)
	}
	return json.Unmarshal(b, out)
}
