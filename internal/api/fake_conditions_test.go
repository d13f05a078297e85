package api_test

import (
	"context"

	"github.com/gobpm/gobpm/internal/runtime"
)

// EvaluateConditions: the fake deploys no conditional start events.
func (f *fakeService) EvaluateConditions(context.Context, runtime.ConditionsRequest) ([]runtime.InstanceView, error) {
	return nil, &runtime.Error{Code: runtime.ENOTFOUND, Message: "no conditional start events are deployed"}
}
