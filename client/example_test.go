package client_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"time"

	"github.com/gobpm/gobpm/client"
	"github.com/gobpm/gobpm/internal/api"
	"github.com/gobpm/gobpm/internal/runtime"
	"github.com/gobpm/gobpm/internal/store/sqlite"
)

// exampleServer serves a gobpm with examples/fulfilment.bpmn deployed on
// loopback, as `gobpm-web` would; stop shuts it down.
func exampleServer() (addr string, stop func()) {
	ctx := context.Background()
	dir, _ := os.MkdirTemp("", "gobpm-example")
	db, err := sqlite.Open(ctx, filepath.Join(dir, "gobpm.db"), sqlite.Options{})
	if err != nil {
		panic(err)
	}
	rt := runtime.New(db, runtime.Options{})
	xml, _ := os.ReadFile("../examples/fulfilment.bpmn")
	if _, err := rt.Deploy(ctx, []runtime.File{{Name: "fulfilment.bpmn", Content: xml}}); err != nil {
		panic(err)
	}
	srv := httptest.NewServer(api.New(rt, nil, api.Options{}))
	return srv.URL, func() { srv.Close(); _ = rt.Close(); _ = db.Close(); _ = os.RemoveAll(dir) }
}

// A service starts an order's fulfilment and works its reserve-stock jobs.
func Example() {
	addr, stop := exampleServer()
	defer stop()
	ctx := context.Background()

	c, _ := client.New(addr, client.WithUser("pat")) // or client.WithToken(token) with --auth builtin/oidc
	w := client.NewWorker(c, "reserve-stock", func(ctx context.Context, job client.Job) (map[string]any, error) {
		return map[string]any{"reserved": job.Variables["orderId"]}, nil
	}, client.WorkerOptions{Concurrency: 8})
	w.Start()
	defer w.Stop(ctx)
	inst, _ := c.Start(ctx, "fulfilment", client.StartRequest{Variables: map[string]any{"orderId": "o-1"}})

	// The worker completes the job in the background; wait for the next step.
	for waits, _ := c.Waits(ctx, inst.ID, 0); len(waits) == 0 || waits[0].NodeID != "pack"; waits, _ = c.Waits(ctx, inst.ID, 0) {
		time.Sleep(10 * time.Millisecond)
	}
	inst, _ = c.Instance(ctx, inst.ID)
	fmt.Println(inst.Status, inst.Variables["reserved"])
	// Output: running o-1
}
