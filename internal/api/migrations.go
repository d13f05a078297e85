package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/gobpm/gobpm/internal/auth"
	"github.com/gobpm/gobpm/internal/runtime"
)

// Migrating instances to another process version:
// POST /api/v1/migrations validates a plan and starts a background batch,
// GET /api/v1/migrations/{id} shows its progress. *runtime.Runtime
// implements Migrations.

// Migrations is the part of Service behind the migration routes.
type Migrations interface {
	// CheckMigration validates a plan against both models and each
	// selected instance and changes nothing; ENOTFOUND for an unknown
	// process version, EINVALID for a plan naming no or equal versions.
	CheckMigration(ctx context.Context, plan runtime.MigrationPlan) (runtime.MigrationCheck, error)
	// StartMigration validates like CheckMigration and starts the batch;
	// EINVALID when the mapping does not fit the models or nothing is
	// selected, ECONFLICT when some instance does not fit (the check says
	// why), and nothing runs then.
	StartMigration(ctx context.Context, plan runtime.MigrationPlan) (runtime.MigrationView, runtime.MigrationCheck, error)
	// Migration returns a batch with its progress; ENOTFOUND if absent.
	Migration(ctx context.Context, id string) (runtime.MigrationView, error)
}

// maxMigrationInstances bounds the instance ids one request names.
const maxMigrationInstances = 10_000

// MigrationProblem is one reason a migration plan does not fit.
type MigrationProblem struct {
	// Element is the source element the problem is about ("" for the
	// plan or the instance as a whole).
	Element string `json:"element,omitempty"`
	// Message explains it, naming the elements.
	Message string `json:"message"`
}

// InstanceMigrationCheck is the validation of one selected instance.
type InstanceMigrationCheck struct {
	InstanceID string             `json:"instanceId"`
	Valid      bool               `json:"valid"`
	Problems   []MigrationProblem `json:"problems"`
}

// MigrationCheck is the answer of a dry run, and the extension members of
// a refused migration's problem.
type MigrationCheck struct {
	// Valid is true when the plan and every instance passed.
	Valid bool `json:"valid"`
	// Problems are the plan's own (its mapping against the models).
	Problems []MigrationProblem `json:"problems"`
	// Instances are the selected instances with their problems.
	Instances []InstanceMigrationCheck `json:"instances"`
	// UnlistedInstances counts the selected instances left out of
	// Instances (unlisted): Valid still covers them.
	UnlistedInstances int `json:"unlistedInstances,omitempty"`
}

// MigrationItem is one instance of a migration batch with its outcome.
type MigrationItem struct {
	InstanceID string `json:"instanceId"`
	// Status is pending, migrated or failed.
	Status string `json:"status"`
	// Reason says why a failed instance failed.
	Reason string `json:"reason,omitempty"`
}

// Migration is a migration batch as GET /api/v1/migrations/{id} shows it.
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

// migrationRefused is a refused migration with its check, for the problem;
// unlisted counts the instances instead of naming them.
type migrationRefused struct {
	err      error
	check    runtime.MigrationCheck
	unlisted bool
}

func (e *migrationRefused) Error() string { return e.err.Error() }
func (e *migrationRefused) Unwrap() error { return e.err }

// migrationRequest is the body of POST /api/v1/migrations (see
// startMigration).
type migrationRequest struct {
	bodyMembers
	Plan   runtime.MigrationPlan
	DryRun bool
}

// Validate decodes and checks the plan (parseMigrationPlan).
func (q *migrationRequest) Validate() error {
	var err error
	q.Plan, q.DryRun, err = parseMigrationPlan(q.members)
	return err
}

// startMigration handles POST /api/v1/migrations (migrationRequest):
//
//	{"processKey": "order", "sourceVersion": 1, "targetVersion": 2,
//	 "mapping": {"oldId": "newId"}, "instanceIds": ["…"], "dryRun": false}
//
// A dry run answers 200 with the validation; otherwise a plan that fits
// answers 201 with the batch (running in the background) and a refused one
// 400 or 409 with the problems per instance, before anything ran.
func (s *server) startMigration(w http.ResponseWriter, r *http.Request) error {
	var q migrationRequest
	if err := s.decodeBody(w, r, &q); err != nil {
		return err
	}
	plan, dryRun := q.Plan, q.DryRun
	if err := check(r.Context(), auth.PermOperate, auth.KindProcess, plan.ProcessKey); err != nil {
		return err
	}
	hide := unlisted(r, plan)
	if dryRun {
		c, err := s.svc.CheckMigration(r.Context(), plan)
		if err != nil {
			return err
		}
		s.writeJSON(w, r, http.StatusOK, toMigrationCheck(c, hide))
		return nil
	}
	view, c, err := s.svc.StartMigration(r.Context(), plan)
	if err != nil {
		if code := runtime.ErrorCode(err); code == runtime.EINVALID || code == runtime.ECONFLICT {
			return &migrationRefused{err: err, check: c, unlisted: hide}
		}
		return err
	}
	out := toMigration(view)
	if hide {
		out.Items = []MigrationItem{}
	}
	w.Header().Set("Location", "/api/v1/migrations/"+view.ID)
	s.writeJSON(w, r, http.StatusCreated, out)
	return nil
}

// unlisted reports whether a migration's answer counts its instances
// instead of naming them: the caller may operate on the process but not
// read it, and the plan named no instances itself (the runtime selected
// every migratable one), so the ids would tell the caller of instances
// they may not see. Instances the caller named are theirs to hear about,
// and an unknown one reads like one of another process.
func unlisted(r *http.Request, plan runtime.MigrationPlan) bool {
	return plan.InstanceIDs == nil && !readFilter(r, auth.KindProcess)(plan.ProcessKey)
}

// getMigration handles GET /api/v1/migrations/{id}; the caller needs read
// on the migrated process.
func (s *server) getMigration(w http.ResponseWriter, r *http.Request) error {
	view, err := s.svc.Migration(r.Context(), chi.URLParam(r, "id"))
	if err != nil {
		return err
	}
	if err := check(r.Context(), auth.PermRead, auth.KindProcess, view.ProcessKey); err != nil {
		return err
	}
	s.writeJSON(w, r, http.StatusOK, toMigration(view))
	return nil
}

// parseMigrationPlan reads the body of POST /api/v1/migrations.
func parseMigrationPlan(members map[string]json.RawMessage) (runtime.MigrationPlan, bool, error) {
	var plan runtime.MigrationPlan
	var err error
	if plan.ProcessKey, err = requiredStringField(members, "processKey"); err != nil {
		return plan, false, err
	}
	for _, f := range []struct {
		name string
		into *int
	}{{"sourceVersion", &plan.SourceVersion}, {"targetVersion", &plan.TargetVersion}} {
		if *f.into, err = positiveIntField(members, f.name); err != nil {
			return plan, false, err
		}
		if *f.into == 0 {
			return plan, false, errorf(kindInvalidRequest, f.name, f.name+" is required: a positive integer")
		}
	}
	if raw := members["mapping"]; !isNull(raw) {
		if err := json.Unmarshal(raw, &plan.Mapping); err != nil {
			return plan, false, errorf(kindInvalidRequest, "mapping", "mapping must be an object of source element id → target element id (strings)")
		}
	}
	if raw := members["instanceIds"]; !isNull(raw) {
		var ids []string
		if err := json.Unmarshal(raw, &ids); err != nil {
			return plan, false, errorf(kindInvalidRequest, "instanceIds", "instanceIds must be an array of instance ids (strings)")
		}
		if len(ids) == 0 || len(ids) > maxMigrationInstances {
			return plan, false, errorf(kindInvalidRequest, "instanceIds", fmt.Sprintf("instanceIds must name 1 to %d instances (leave it out for every running or failed instance of the source version)", maxMigrationInstances))
		}
		plan.InstanceIDs = make([]runtime.InstanceID, len(ids))
		for i, id := range ids {
			plan.InstanceIDs[i] = runtime.InstanceID(id)
		}
	}
	dryRun, err := boolField(members, "dryRun")
	return plan, dryRun, err
}

func toMigrationProblems(ps []runtime.MigrationProblem) []MigrationProblem {
	out := make([]MigrationProblem, len(ps))
	for i, p := range ps {
		out[i] = MigrationProblem{Element: p.Element, Message: p.Message}
	}
	return out
}

// toMigrationCheck converts a check; unlisted counts the instances
// (UnlistedInstances) instead of listing them.
func toMigrationCheck(c runtime.MigrationCheck, unlisted bool) MigrationCheck {
	out := MigrationCheck{Valid: c.OK(), Problems: toMigrationProblems(c.Plan), Instances: make([]InstanceMigrationCheck, len(c.Instances))}
	if unlisted {
		out.Instances, out.UnlistedInstances = []InstanceMigrationCheck{}, len(c.Instances)
		return out
	}
	for i, in := range c.Instances {
		out.Instances[i] = InstanceMigrationCheck{InstanceID: string(in.InstanceID), Valid: len(in.Problems) == 0, Problems: toMigrationProblems(in.Problems)}
	}
	return out
}

func toMigration(v runtime.MigrationView) Migration {
	m := Migration{ID: v.ID, ProcessKey: v.ProcessKey, SourceVersion: v.SourceVersion, TargetVersion: v.TargetVersion,
		Mapping: v.Mapping, Status: v.Status, CreatedBy: v.CreatedBy, CreatedAt: v.CreatedAt,
		Total: v.Total, Migrated: v.Migrated, Failed: v.Failed, Pending: v.Pending, Items: make([]MigrationItem, len(v.Items))}
	if m.Mapping == nil {
		m.Mapping = map[string]string{}
	}
	if !v.FinishedAt.IsZero() {
		at := v.FinishedAt
		m.FinishedAt = &at
	}
	for i, it := range v.Items {
		m.Items[i] = MigrationItem{InstanceID: string(it.InstanceID), Status: it.Status, Reason: it.Reason}
	}
	return m
}

// refusedMigrationProblem is the problem of a refused migration: its code
// picks the status (400 for the plan, 409 for the instances) and the check
// rides along.
func refusedMigrationProblem(err error) (Problem, bool) {
	var mr *migrationRefused
	if !errors.As(err, &mr) {
		return Problem{}, false
	}
	k, ok := codeKinds[runtime.ErrorCode(mr.err)]
	if !ok {
		return Problem{}, false
	}
	field := ""
	var re *runtime.Error
	if errors.As(mr.err, &re) {
		field = re.Field
	}
	p := newProblem(k, mr.err.Error(), field)
	c := toMigrationCheck(mr.check, mr.unlisted)
	p.MigrationProblems, p.Instances, p.UnlistedInstances = c.Problems, c.Instances, c.UnlistedInstances
	return p, true
}
