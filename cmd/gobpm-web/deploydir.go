package main

import (
	"context"
	"flag"
	"fmt"
	"time"

	"github.com/gobpm/gobpm/internal/access"
	"github.com/gobpm/gobpm/internal/auth"
	"github.com/gobpm/gobpm/internal/deploydir"
)

// DeployDirConfig configures deploying from a folder (--deploy-dir).
type DeployDirConfig struct {
	// Dir is the folder whose .bpmn, .dmn and .form files are deployed at
	// start-up and whenever they change; "" deploys nothing.
	Dir string
	// Interval is how often the folder is polled.
	Interval time.Duration
}

// register adds the folder flags to fs.
func (c *DeployDirConfig) register(fs *flag.FlagSet, getenv func(string) string) error {
	interval := deploydir.DefaultInterval
	if v := getenv("GOBPM_DEPLOY_DIR_INTERVAL"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return fmt.Errorf("GOBPM_DEPLOY_DIR_INTERVAL=%q: want a positive duration such as 2s", v)
		}
		interval = d
	}
	fs.StringVar(&c.Dir, "deploy-dir", getenv("GOBPM_DEPLOY_DIR"), "deploy every .bpmn, .dmn and .form file under this folder at start-up and whenever they change, as one deployment; a refusal is logged and leaves the running versions alone (GOBPM_DEPLOY_DIR)")
	fs.DurationVar(&c.Interval, "deploy-dir-interval", interval, "how often --deploy-dir is looked at (GOBPM_DEPLOY_DIR_INTERVAL)")
	return nil
}

// check refuses a non-positive interval.
func (c *DeployDirConfig) check() error {
	if c.Interval <= 0 {
		return fmt.Errorf("--deploy-dir-interval %s: want a positive duration", c.Interval)
	}
	return nil
}

// startDeployDir deploys the folder's models and watches it, when one is
// named. A folder that cannot be read, or a store that refuses the first
// deployment for another reason than the models, stops the start; models
// that are refused are logged and the server starts without them.
func (m *Main) startDeployDir(ctx context.Context) error {
	c := m.cfg.DeployDir
	if c.Dir == "" {
		return nil
	}
	w, err := deploydir.New(m.rt, deploydir.Options{Dir: c.Dir, Interval: c.Interval, Logger: m.log, Report: m.reportDeployDir})
	if err != nil {
		return fmt.Errorf("--deploy-dir: %w", err)
	}
	if err := w.Start(context.WithoutCancel(ctx)); err != nil {
		return fmt.Errorf("--deploy-dir: %w", err)
	}
	m.deployDir = w
	return nil
}

// reportDeployDir counts a deployment from the folder, or its refusal, in
// /metrics and records it in the audit trail as the act of
// deploydir.Principal (via "deploy-dir"): the deployment itself names no
// deployer, so its models are not restricted to a user's rights.
func (m *Main) reportDeployDir(e deploydir.Event) {
	refused := e.Outcome == deploydir.Refused
	m.rt.CountFolderDeployment(refused)
	if m.access == nil {
		return
	}
	entry := access.AuditEntry{Actor: auth.UserID(deploydir.Principal), Via: "deploy-dir", Action: "deploy-dir",
		Resource: "deployment " + e.DeploymentID, Outcome: "ok"}
	if refused {
		entry.Resource, entry.Outcome = "folder "+m.cfg.DeployDir.Dir, "failed"
	}
	m.access.Record(entry)
}
