package runtime

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/gobpm/gobpm/internal/bpmn"
	"github.com/gobpm/gobpm/internal/engine"
)

// Migrating instances to another version of their process:
// CheckMigration validates a plan against both models and every selected
// instance without changing anything; StartMigration validates the same
// way, stores the batch (MigrationStore) and migrates its instances one by
// one in the background, each in one step of its own (engine.Migrate)
// committed with its waits, which follow their elements. A batch still
// running when the runtime closes is resumed by the next ResumeInstances
// from its pending instances; an instance whose step committed before its
// outcome was recorded is found already at the target version and counted
// as migrated.

// MigrationPlan says what to migrate: the instances (InstanceIDs; none
// means every running or failed instance of the source version) of process
// ProcessKey from SourceVersion to TargetVersion, with Mapping naming the
// target element of each source element that changed id.
type MigrationPlan struct {
	ProcessKey    string
	SourceVersion int
	TargetVersion int
	Mapping       map[string]string
	InstanceIDs   []InstanceID
}

// MigrationProblem is one reason a plan does not fit: the source element
// it is about ("" for the plan or the instance as a whole) and the text.
type MigrationProblem struct {
	Element string
	Message string
}

// InstanceMigrationCheck is the validation of one selected instance: no
// problems means it can be migrated.
type InstanceMigrationCheck struct {
	InstanceID InstanceID
	Problems   []MigrationProblem
}

// MigrationCheck is the validation of a plan: the problems of the plan
// itself (its mapping against the models) and of each selected instance,
// in the order the instances were selected.
type MigrationCheck struct {
	Plan      []MigrationProblem
	Instances []InstanceMigrationCheck
}

// OK reports whether the plan and every instance passed.
func (c MigrationCheck) OK() bool {
	if len(c.Plan) > 0 {
		return false
	}
	for _, in := range c.Instances {
		if len(in.Problems) > 0 {
			return false
		}
	}
	return true
}

// MigrationView is a migration batch with its progress.
type MigrationView struct {
	MigrationRecord
	Total, Migrated, Failed, Pending int
	// Items are the instances in order with their outcomes.
	Items []MigrationItem
}

// CheckMigration validates a plan against both models and each selected
// instance and changes nothing. ENOTFOUND names an unknown process
// version; EINVALID a plan that names no versions or the same one twice.
func (r *Runtime) CheckMigration(ctx context.Context, plan MigrationPlan) (MigrationCheck, error) {
	src, dst, err := r.migrationModels(ctx, plan)
	if err != nil {
		return MigrationCheck{}, err
	}
	check := MigrationCheck{Plan: problemsOf(engine.CheckMigrationPlan(src, dst, plan.Mapping))}
	ids := plan.InstanceIDs
	if ids == nil {
		if ids, err = r.migratable(ctx, plan.ProcessKey, plan.SourceVersion); err != nil {
			return MigrationCheck{}, err
		}
	}
	seen := map[InstanceID]bool{}
	for _, id := range ids {
		c := InstanceMigrationCheck{InstanceID: id}
		if seen[id] {
			c.Problems = []MigrationProblem{{Message: fmt.Sprintf("instance %s is selected twice", id)}}
		} else if c.Problems, err = r.checkInstance(ctx, plan, src, dst, id); err != nil {
			return MigrationCheck{}, err
		}
		seen[id] = true
		check.Instances = append(check.Instances, c)
	}
	return check, nil
}

// migrationModels returns the source and target process of a plan.
func (r *Runtime) migrationModels(ctx context.Context, plan MigrationPlan) (src, dst *bpmn.Process, err error) {
	switch {
	case plan.ProcessKey == "":
		return nil, nil, &Error{Code: EINVALID, Field: "processKey", Message: "migration: processKey is required"}
	case plan.SourceVersion <= 0 || plan.TargetVersion <= 0:
		return nil, nil, &Error{Code: EINVALID, Field: "targetVersion", Message: "migration: sourceVersion and targetVersion must be positive"}
	case plan.SourceVersion == plan.TargetVersion:
		return nil, nil, &Error{Code: EINVALID, Field: "targetVersion", Message: fmt.Sprintf("migration: source and target are both version %d", plan.SourceVersion)}
	}
	if src, _, err = r.process(ctx, plan.ProcessKey, plan.SourceVersion); err != nil {
		return nil, nil, versionErr(plan.ProcessKey, plan.SourceVersion, err)
	}
	if dst, _, err = r.process(ctx, plan.ProcessKey, plan.TargetVersion); err != nil {
		return nil, nil, versionErr(plan.ProcessKey, plan.TargetVersion, err)
	}
	return src, dst, nil
}

// versionErr names a process version that could not be read.
func versionErr(key string, version int, err error) error {
	if ErrorCode(err) == ENOTFOUND {
		return &Error{Code: ENOTFOUND, Message: fmt.Sprintf("migration: process %s has no version %d", key, version), Err: err}
	}
	return err
}

// migratable returns the running and failed instances of a process
// version, oldest first.
func (r *Runtime) migratable(ctx context.Context, key string, version int) ([]InstanceID, error) {
	rows, err := r.store.RunningInstances(ctx)
	if err != nil {
		return nil, fmt.Errorf("runtime: migration: running instances: %w", err)
	}
	ids := []InstanceID{}
	for _, row := range rows {
		if row.ProcessKey == key && row.ProcessVersion == version {
			ids = append(ids, row.ID)
		}
	}
	return ids, nil
}

// checkInstance validates one instance of a plan.
func (r *Runtime) checkInstance(ctx context.Context, plan MigrationPlan, src, dst *bpmn.Process, id InstanceID) ([]MigrationProblem, error) {
	var problems []MigrationProblem
	err := r.withState(ctx, id, func(row InstanceRow, st *engine.State) error {
		if p := instanceMismatch(plan.ProcessKey, plan.SourceVersion, row, st); p != "" {
			problems = []MigrationProblem{{Message: p}}
			return nil
		}
		ev := engine.Migrate{Target: dst, TargetVersion: plan.TargetVersion, Mapping: plan.Mapping}
		problems = problemsOf(engine.CheckMigration(src, st, ev, r.engine))
		return nil
	})
	if ErrorCode(err) == ENOTFOUND {
		return []MigrationProblem{{Message: notOfProcess(id, plan.ProcessKey)}}, nil
	}
	return problems, err
}

// notOfProcess is the problem of a selected instance that is unknown or
// runs another process: the same words for both, naming neither the other
// process nor whether the instance exists, which the migrating caller may
// not be allowed to know.
func notOfProcess(id InstanceID, key string) string {
	return fmt.Sprintf("instance %s is not an instance of process %s", id, key)
}

// instanceMismatch says why an instance is not one a migration of key
// from version can take ("" when it is).
func instanceMismatch(key string, version int, row InstanceRow, st *engine.State) string {
	switch {
	case row.ProcessKey != key:
		return notOfProcess(row.ID, key)
	case row.ProcessVersion != version:
		return fmt.Sprintf("instance %s runs version %d of %s, not version %d", row.ID, row.ProcessVersion, key, version)
	case st.Ended():
		return fmt.Sprintf("instance %s is %s", row.ID, st.Status)
	}
	return ""
}

func problemsOf(ps []engine.MigrationProblem) []MigrationProblem {
	if len(ps) == 0 {
		return nil
	}
	out := make([]MigrationProblem, len(ps))
	for i, p := range ps {
		out[i] = MigrationProblem{Element: p.Element, Message: p.Message}
	}
	return out
}

// StartMigration validates a plan (CheckMigration) and, when the plan and
// every selected instance pass, stores the batch and migrates its
// instances in the background, the acting user named in each instance's
// history; it returns the batch as Migration shows it. A plan whose
// mapping does not fit the models is EINVALID, one that does not fit some
// instance ECONFLICT; the check comes back with the error and nothing
// runs. A plan that selects no instance is EINVALID.
func (r *Runtime) StartMigration(ctx context.Context, plan MigrationPlan) (MigrationView, MigrationCheck, error) {
	check, err := r.CheckMigration(ctx, plan)
	if err != nil {
		return MigrationView{}, check, err
	}
	switch {
	case len(check.Plan) > 0:
		return MigrationView{}, check, &Error{Code: EINVALID, Field: "mapping", Message: "migration: the mapping does not fit the process versions: " + check.Plan[0].Message}
	case !check.OK():
		n := 0
		for _, in := range check.Instances {
			if len(in.Problems) > 0 {
				n++
			}
		}
		return MigrationView{}, check, &Error{Code: ECONFLICT, Message: fmt.Sprintf("migration: %d of %d instances cannot be migrated as planned", n, len(check.Instances))}
	case len(check.Instances) == 0:
		return MigrationView{}, check, &Error{Code: EINVALID, Field: "instanceIds", Message: fmt.Sprintf("migration: no running or failed instance of %s version %d is selected", plan.ProcessKey, plan.SourceVersion)}
	}
	rec := MigrationRecord{ID: r.newID(), ProcessKey: plan.ProcessKey, SourceVersion: plan.SourceVersion,
		TargetVersion: plan.TargetVersion, Mapping: plan.Mapping, Status: MigrationRunning,
		CreatedBy: ActingUser(ctx), CreatedAt: r.now().UTC()}
	ids := make([]InstanceID, len(check.Instances))
	for i, in := range check.Instances {
		ids[i] = in.InstanceID
	}
	if err := r.store.CreateMigration(ctx, rec, ids); err != nil {
		return MigrationView{}, check, fmt.Errorf("runtime: start migration: %w", err)
	}
	view := MigrationView{MigrationRecord: rec, Total: len(ids), Pending: len(ids)}
	for _, id := range ids {
		view.Items = append(view.Items, MigrationItem{InstanceID: id, Status: MigrationPending})
	}
	r.batches.start(rec.ID, r.runMigration)
	return view, check, nil
}

// Migration returns a batch with its progress; ENOTFOUND for an unknown id.
func (r *Runtime) Migration(ctx context.Context, id string) (MigrationView, error) {
	rec, items, err := r.store.Migration(ctx, id)
	if err != nil {
		if ErrorCode(err) == ENOTFOUND {
			return MigrationView{}, &Error{Code: ENOTFOUND, Message: fmt.Sprintf("migration %s not found", id), Err: err}
		}
		return MigrationView{}, err
	}
	v := MigrationView{MigrationRecord: rec, Total: len(items), Items: items}
	for _, it := range items {
		switch it.Status {
		case MigrationMigrated:
			v.Migrated++
		case MigrationFailed:
			v.Failed++
		default:
			v.Pending++
		}
	}
	return v, nil
}

// resumeMigrations starts the batches a previous run left running.
func (r *Runtime) resumeMigrations(ctx context.Context) error {
	ids, err := r.store.RunningMigrations(ctx)
	if err != nil {
		return fmt.Errorf("runtime: resume migrations: %w", err)
	}
	for _, id := range ids {
		r.batches.start(id, r.runMigration)
	}
	return nil
}

// runMigration migrates the pending instances of batch id, one step each,
// records each outcome, and completes the batch. It stops early when the
// runtime closes; the next start resumes it.
func (r *Runtime) runMigration(id string) {
	ctx := context.Background()
	rec, items, err := r.store.Migration(ctx, id)
	if err != nil {
		r.log.Error("migration unreadable", "migration_id", id, "error", err)
		return
	}
	ctx = WithActingUser(ctx, rec.CreatedBy)
	for _, it := range items {
		if it.Status != MigrationPending {
			continue
		}
		if r.stopping() {
			return
		}
		out := MigrationItem{InstanceID: it.InstanceID, Status: MigrationMigrated}
		if err := r.migrateInstance(ctx, rec, it.InstanceID); err != nil {
			out.Status, out.Reason = MigrationFailed, migrationReason(err)
			r.log.Info("instance not migrated", "migration_id", id, "instance_id", it.InstanceID, "error", err)
		}
		if err := r.store.SetMigrationItem(ctx, id, out); err != nil {
			r.log.Error("migration item not recorded", "migration_id", id, "instance_id", it.InstanceID, "error", err)
			return // resumed at the next start; the instance is found migrated then
		}
		if hook := r.batches.afterItem; hook != nil {
			hook(id, it.InstanceID)
		}
	}
	if err := r.store.FinishMigration(ctx, id, r.now().UTC()); err != nil {
		r.log.Error("migration not finished", "migration_id", id, "error", err)
	}
}

// migrationReason is the text an item failed with.
func migrationReason(err error) string {
	var me *engine.MigrationError
	if errors.As(err, &me) {
		msgs := make([]string, len(me.Problems))
		for i, p := range me.Problems {
			msgs[i] = p.Message
		}
		return strings.Join(msgs, "; ")
	}
	var re *Error
	if errors.As(err, &re) && re.Message != "" {
		return re.Message
	}
	return err.Error()
}

// migrateInstance moves one instance of batch rec to the target version in
// one step under its lock. An instance already at the target version (its
// step committed before a restart) is left alone.
func (r *Runtime) migrateInstance(ctx context.Context, rec MigrationRecord, id InstanceID) error {
	src, dst, err := r.migrationModels(ctx, MigrationPlan{ProcessKey: rec.ProcessKey, SourceVersion: rec.SourceVersion, TargetVersion: rec.TargetVersion})
	if err != nil {
		return err
	}
	ev := engine.Migrate{Target: dst, TargetVersion: rec.TargetVersion, Mapping: rec.Mapping, By: ActingUser(ctx)}
	_, err = r.runStep(ctx, stepSpec{id: id, ev: ev, proc: src, version: rec.TargetVersion, label: "migration",
		skip: func(row InstanceRow, st *engine.State) (bool, error) {
			if row.ProcessKey == rec.ProcessKey && row.ProcessVersion == rec.TargetVersion {
				return true, nil // migrated before a restart
			}
			if p := instanceMismatch(rec.ProcessKey, rec.SourceVersion, row, st); p != "" {
				return false, &Error{Code: ECONFLICT, Message: p}
			}
			return false, nil
		}})
	return err
}

// AwaitMigration waits until batch id stops running here (it completed,
// or the runtime closed) or ctx ends; it returns at once for a batch that
// does not run here. Read its outcome with Migration.
func (r *Runtime) AwaitMigration(ctx context.Context, id string) error {
	done := r.batches.done(id)
	if done == nil {
		return nil
	}
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// batches runs migration batches and batch operations (batch.go) in the
// background, one goroutine per batch; Close waits for them (each stops
// after the instance in hand).
type batches struct {
	mu sync.Mutex
	// running holds, by batch id, a channel closed when its goroutine ends.
	running map[string]chan struct{}
	closed  bool
	wg      sync.WaitGroup
	// afterItem, when set (tests, before any batch starts), runs after each
	// instance's outcome is recorded.
	afterItem func(migration string, instance InstanceID)
	// beforeRecord, when set (tests, before any batch starts), runs after
	// a batch operation's act and before its outcome is recorded.
	beforeRecord func(batch string, instance InstanceID)

	// again marks, by batch id, a running goroutine that runs its batch
	// once more when it returns (restart).
	again map[string]bool
}

func newBatches() *batches {
	return &batches{running: map[string]chan struct{}{}, again: map[string]bool{}}
}

// start runs run(id) in a goroutine unless batch id runs already or the
// runtime closed.
func (b *batches) start(id string, run func(string)) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed || b.running[id] != nil {
		return
	}
	done := make(chan struct{})
	b.running[id] = done
	b.wg.Add(1)
	go func() {
		defer b.wg.Done()
		defer close(done)
		for {
			run(id)
			b.mu.Lock()
			if b.again[id] && !b.closed {
				delete(b.again, id)
				b.mu.Unlock()
				continue
			}
			delete(b.again, id)
			delete(b.running, id)
			b.mu.Unlock()
			return
		}
	}()
}

// restart runs run(id) as start does, or, when batch id runs already,
// once more after its goroutine returns: a batch resumed while its runner
// is on its way out (it saw the batch paused) is not left without one.
func (b *batches) restart(id string, run func(string)) {
	b.mu.Lock()
	if b.running[id] != nil {
		b.again[id] = true
		b.mu.Unlock()
		return
	}
	b.mu.Unlock()
	b.start(id, run)
}

// done returns the channel closed when batch id stops, nil when it does
// not run.
func (b *batches) done(id string) chan struct{} {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.running[id]
}

// close starts no more batches and waits for the running ones to stop.
func (b *batches) close() {
	b.mu.Lock()
	b.closed = true
	b.mu.Unlock()
	b.wg.Wait()
}
