package client

import (
	"context"
	"net/http"
	"time"
)

// Migrating instances to another version of their process.

// MigrationPlan says what to migrate: the instances (InstanceIDs; none
// means every running or failed instance of the source version) of process
// ProcessKey from SourceVersion to TargetVersion; Mapping names the target
// element of each source element that changed id.
type MigrationPlan struct {
	ProcessKey    string            `json:"processKey"`
	SourceVersion int               `json:"sourceVersion"`
	TargetVersion int               `json:"targetVersion"`
	Mapping       map[string]string `json:"mapping,omitempty"`
	InstanceIDs   []string          `json:"instanceIds,omitempty"`
}

// MigrationProblem is one reason a plan does not fit.
type MigrationProblem struct {
	// Element is the source element it is about ("" for the plan or the
	// instance as a whole).
	Element string `json:"element,omitempty"`
	Message string `json:"message"`
}

// MigrationInstance is the validation of one selected instance.
type MigrationInstance struct {
	InstanceID string             `json:"instanceId"`
	Valid      bool               `json:"valid"`
	Problems   []MigrationProblem `json:"problems"`
}

// MigrationCheck is the validation of a plan (CheckMigration).
type MigrationCheck struct {
	// Valid is true when the plan and every instance passed.
	Valid     bool                `json:"valid"`
	Problems  []MigrationProblem  `json:"problems"`
	Instances []MigrationInstance `json:"instances"`
}

// MigrationItem is one instance of a batch with its outcome.
type MigrationItem struct {
	InstanceID string `json:"instanceId"`
	// Status is pending, migrated or failed.
	Status string `json:"status"`
	Reason string `json:"reason,omitempty"`
}

// Migration is a migration batch with its progress.
type Migration struct {
	ID            string            `json:"id"`
	ProcessKey    string            `json:"processKey"`
	SourceVersion int               `json:"sourceVersion"`
	TargetVersion int               `json:"targetVersion"`
	Mapping       map[string]string `json:"mapping"`
	// Status is running or completed.
	Status     string          `json:"status"`
	CreatedBy  string          `json:"createdBy,omitempty"`
	CreatedAt  time.Time       `json:"createdAt"`
	FinishedAt *time.Time      `json:"finishedAt,omitempty"`
	Total      int             `json:"total"`
	Migrated   int             `json:"migrated"`
	Failed     int             `json:"failed"`
	Pending    int             `json:"pending"`
	Items      []MigrationItem `json:"items"`
}

// CheckMigration validates a plan against both versions and every
// selected instance without migrating anything (a dry run). An unknown
// version is a 404 *Problem.
func (c *Client) CheckMigration(ctx context.Context, plan MigrationPlan) (MigrationCheck, error) {
	var out MigrationCheck
	err := c.do(ctx, request{method: http.MethodPost, path: "/migrations", body: migrationBody(plan, true)}, &out)
	return out, err
}

// StartMigration validates a plan and starts migrating its instances in
// the background; follow the batch with Migration. A plan that does not
// fit is a *Problem listing every problem (MigrationProblems: 400;
// Instances: 409) and nothing runs. It is never retried: a retry would
// start a second batch.
func (c *Client) StartMigration(ctx context.Context, plan MigrationPlan) (Migration, error) {
	var out Migration
	err := c.do(ctx, request{method: http.MethodPost, path: "/migrations", body: migrationBody(plan, false)}, &out)
	return out, err
}

// Migration returns a batch and its progress; an unknown id is a 404
// *Problem.
func (c *Client) Migration(ctx context.Context, id string) (Migration, error) {
	var out Migration
	err := c.do(ctx, request{method: http.MethodGet, path: "/migrations/" + esc(id)}, &out)
	return out, err
}

// migrationBody is the request body of a plan.
func migrationBody(plan MigrationPlan, dryRun bool) map[string]any {
	body := map[string]any{"processKey": plan.ProcessKey, "sourceVersion": plan.SourceVersion, "targetVersion": plan.TargetVersion}
	if len(plan.Mapping) > 0 {
		body["mapping"] = plan.Mapping
	}
	if len(plan.InstanceIDs) > 0 {
		body["instanceIds"] = plan.InstanceIDs
	}
	if dryRun {
		body["dryRun"] = true
	}
	return body
}
