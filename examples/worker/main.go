// Command worker is an example job worker: it works the reserve-stock jobs
// of examples/fulfilment.bpmn until interrupted, throwing OUT_OF_STOCK for
// orders of more than 10 items.
//
//	GOBPM_ADDR=http://127.0.0.1:8080 go run ./examples/worker
package main

import (
	"context"
	"log/slog"
	"os"
	"os/signal"
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
	w := client.NewWorker(c, "reserve-stock", reserve, client.WorkerOptions{
		Name:    "example-worker",
		Metrics: func(e client.WorkerEvent) { slog.Info("job", "kind", e.Kind, "key", e.Job.Key, "error", e.Err) },
	})
	w.Start()
	<-ctx.Done()
	sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_ = w.Stop(sctx)
}

// reserve reserves stock for an order.
func reserve(ctx context.Context, job client.Job) (map[string]any, error) {
	var order struct {
		OrderID  string  `json:"orderId"`
		Quantity float64 `json:"quantity"`
	}
	if err := job.Decode(&order); err != nil {
		return nil, err
	}
	if order.Quantity > 10 {
		return nil, client.BPMNError{Code: "OUT_OF_STOCK", Message: "only 10 left"}
	}
	return map[string]any{"reserved": order.OrderID}, nil
}
