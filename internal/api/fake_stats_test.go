package api_test

import (
	"context"

	"github.com/gobpm/gobpm/internal/runtime"
)

// Statistics: the fake keeps no rollups (the integration tests use the real runtime).
func (f *fakeService) Statistics(context.Context, runtime.StatsFilter) (runtime.ProcessStats, error) {
	return runtime.ProcessStats{}, runtime.Errorf(runtime.EINVALID, "the fake keeps no statistics")
}

// StatisticsTimeline: as Statistics.
func (f *fakeService) StatisticsTimeline(context.Context, runtime.StatsFilter, string) (runtime.Timeline, error) {
	return runtime.Timeline{}, runtime.Errorf(runtime.EINVALID, "the fake keeps no statistics")
}
