package api_test

import (
	"context"

	"github.com/gobpm/gobpm/internal/runtime"
)

// The fake's suspension acts: it suspends nothing; the real behaviour is
// tested through the real router and store (suspend_integration_test.go).

func (f *fakeService) SuspendInstance(ctx context.Context, id runtime.InstanceID) (runtime.InstanceView, error) {
	return f.Instance(ctx, id)
}

func (f *fakeService) ResumeInstance(ctx context.Context, id runtime.InstanceID) (runtime.InstanceView, error) {
	return f.Instance(ctx, id)
}

func (f *fakeService) SuspendVersion(context.Context, runtime.VersionSuspension) (int, error) {
	return 0, nil
}

func (f *fakeService) ResumeVersion(context.Context, runtime.VersionSuspension) (int, error) {
	return 0, nil
}

func (f *fakeService) SuspendedVersions(context.Context, string) ([]int, error) { return nil, nil }
