package api_test

import (
	"context"

	"github.com/gobpm/gobpm/internal/runtime"
)

// The fake's migrations: a plan is checked against the fake's versions and
// instances (every instance passes), but no batch ever runs; the real
// behaviour is tested through the real router and store
// (api_migrations_integration_test.go).

func (f *fakeService) CheckMigration(_ context.Context, plan runtime.MigrationPlan) (runtime.MigrationCheck, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, v := range []int{plan.SourceVersion, plan.TargetVersion} {
		if v < 1 || v > len(f.versions[plan.ProcessKey]) {
			return runtime.MigrationCheck{}, runtime.Errorf(runtime.ENOTFOUND, "migration: process %s has no version %d", plan.ProcessKey, v)
		}
	}
	var c runtime.MigrationCheck
	for _, id := range f.order {
		in := f.instances[id]
		if in.ProcessKey == plan.ProcessKey && in.ProcessVersion == plan.SourceVersion && !ended(in.Status) {
			c.Instances = append(c.Instances, runtime.InstanceMigrationCheck{InstanceID: id})
		}
	}
	return c, nil
}

func (f *fakeService) StartMigration(ctx context.Context, plan runtime.MigrationPlan) (runtime.MigrationView, runtime.MigrationCheck, error) {
	c, err := f.CheckMigration(ctx, plan)
	if err != nil {
		return runtime.MigrationView{}, c, err
	}
	return runtime.MigrationView{}, c, runtime.Errorf(runtime.ECONFLICT, "the fake service runs no migrations")
}

func (f *fakeService) Migration(_ context.Context, id string) (runtime.MigrationView, error) {
	return runtime.MigrationView{}, runtime.Errorf(runtime.ENOTFOUND, "migration %s not found", id)
}

// ended reports a final instance status.
func ended(status string) bool {
	return status == runtime.StatusCompleted || status == runtime.StatusTerminated
}
