package cockpit

import (
	"context"

	"github.com/gobpm/gobpm/internal/runtime"
)

// outline reads what the pages show of a process version's model from the
// runtime's parsed model. A version that is gone reads as an empty
// outline (its pages name elements by id); any other failure is returned.
func (h *handler) outline(ctx context.Context, key string, version int) (runtime.Outline, error) {
	o, err := h.svc.Outline(ctx, key, version)
	if err != nil && runtime.ErrorCode(err) != runtime.ENOTFOUND {
		return runtime.Outline{}, err
	}
	return o, nil
}
