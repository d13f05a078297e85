// Command gobpm is the command-line client of a gobpm server: deploy
// models, start and inspect instances, work on tasks and jobs, send
// messages and signals, retry incidents. It speaks the REST API through
// the client package.
//
// # Usage
//
//	export GOBPM_ADDR=http://127.0.0.1:8080 GOBPM_TOKEN=…   # or GOBPM_USER=pat GOBPM_GROUPS=warehouse with --auth none
//	gobpm deploy examples/fulfilment.bpmn
//	gobpm start fulfilment --var orderId=o-1 --business-key o-1
//	gobpm instance <id>
//	gobpm -o json instances --status running
//	gobpm version                                              # or gobpm --version
//
// Output is a table by default and JSON with -o json.
package main

import (
	"context"
	"os"
	"os/signal"
)

// Version is set at build time with -ldflags "-X main.Version=…".
var Version = "dev"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
