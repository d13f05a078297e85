package api_test

import (
	"context"

	"github.com/gobpm/gobpm/internal/runtime"
)

// The fake's batch operations: it stores no batch; the real behaviour is
// tested through the real router and store (batches_integration_test.go).

func (f *fakeService) CountBatch(context.Context, runtime.BatchRequest) (int, error) { return 0, nil }

func (f *fakeService) CreateBatch(context.Context, runtime.BatchRequest) (runtime.BatchView, error) {
	return runtime.BatchView{}, runtime.Errorf(runtime.ECONFLICT, "the fake service runs no batches")
}

func (f *fakeService) Batch(_ context.Context, id string) (runtime.BatchView, error) {
	return runtime.BatchView{}, runtime.Errorf(runtime.ENOTFOUND, "batch %s not found", id)
}

func (f *fakeService) Batches(context.Context, runtime.BatchFilter) ([]runtime.BatchView, int, error) {
	return nil, 0, nil
}

func (f *fakeService) BatchItems(_ context.Context, id string, _ runtime.BatchItemFilter) ([]runtime.BatchItem, error) {
	return nil, runtime.Errorf(runtime.ENOTFOUND, "batch %s not found", id)
}

func (f *fakeService) PauseBatch(ctx context.Context, id string) (runtime.BatchView, error) {
	return f.Batch(ctx, id)
}

func (f *fakeService) ResumeBatch(ctx context.Context, id string) (runtime.BatchView, error) {
	return f.Batch(ctx, id)
}

func (f *fakeService) CancelBatch(ctx context.Context, id string) (runtime.BatchView, error) {
	return f.Batch(ctx, id)
}
