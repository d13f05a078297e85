package api_test

import (
	"context"

	"github.com/gobpm/gobpm/internal/runtime"
)

// PublishMessage buffers nothing in the fake: it correlates as
// CorrelateMessage does and reports the message buffered.
func (f *fakeService) PublishMessage(ctx context.Context, p runtime.Publication) (runtime.PublishResult, error) {
	n, err := f.CorrelateMessage(ctx, p.Name, p.CorrelationKey, p.Variables)
	if runtime.ErrorCode(err) == runtime.ENOTFOUND {
		n, err = 0, nil
	}
	return runtime.PublishResult{Correlated: n, Buffered: true, Key: "m-1"}, err
}
