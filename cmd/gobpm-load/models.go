package main

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
)

// models holds the BPMN models the tool deploys (re-deploying identical
// files mints no new version, so every run may deploy them).
//
//go:embed models/*.bpmn
var models embed.FS

// The process keys and job types of the embedded models.
const (
	keyJob      = "load-job"      // start → service task (jobWork) → end
	keyStraight = "load-straight" // start → end
	keyListA    = "load-list-a"   // start → end, list mix
	keyListB    = "load-list-b"   // start → end, list mix and load-parent's callee
	keyParent   = "load-parent"   // n called load-list-b children
	keyMISmall  = "load-mi-small" // parallel multi-instance service task over n (jobMISmall)
	keyMIBig    = "load-mi-big"   // the same with its own job type (jobMIBig)

	jobWork    = "load-work"
	jobMISmall = "load-mi-small"
	jobMIBig   = "load-mi-big"
)

// deployModels deploys every embedded model.
func deployModels(ctx context.Context, c *Client) error {
	files, err := fs.Glob(models, "models/*.bpmn")
	if err != nil {
		return err
	}
	for _, f := range files {
		data, err := models.ReadFile(f)
		if err != nil {
			return err
		}
		if err := c.Deploy(ctx, f[len("models/"):], data); err != nil {
			return fmt.Errorf("deploy %s: %w", f, err)
		}
	}
	return nil
}
