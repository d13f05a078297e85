package api_test

import (
	"context"
	"time"

	"github.com/gobpm/gobpm/internal/runtime"
)

// The fake's operator tools: a real clock (moving it is refused, as on a
// server without --clock=manual), deleting an ended instance from the
// fake's map, and no backup directory.

func (f *fakeService) Clock() runtime.ClockView {
	return runtime.ClockView{Now: f.now}
}

func (f *fakeService) SetClock(context.Context, time.Time) (runtime.ClockView, error) {
	return f.Clock(), runtime.Errorf(runtime.ECONFLICT, "the clock is not manual")
}

func (f *fakeService) AdvanceClock(context.Context, time.Duration) (runtime.ClockView, error) {
	return f.Clock(), runtime.Errorf(runtime.ECONFLICT, "the clock is not manual")
}

func (f *fakeService) DeleteInstance(_ context.Context, id runtime.InstanceID) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	in, ok := f.instances[id]
	switch {
	case !ok:
		return runtime.Errorf(runtime.ENOTFOUND, "instance %s not found", id)
	case in.Status == runtime.StatusRunning || in.Status == runtime.StatusFailed:
		return runtime.Errorf(runtime.ECONFLICT, "instance %s is %s", id, in.Status)
	}
	delete(f.instances, id)
	return nil
}

func (f *fakeService) Backup(context.Context, string) (runtime.BackupResult, error) {
	return runtime.BackupResult{}, runtime.Errorf(runtime.ECONFLICT, "backups through the API are off")
}
