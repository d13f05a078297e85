package api_test

import (
	"context"

	"github.com/gobpm/gobpm/internal/runtime"
)

// TriggerWait: the fake has no trigger waits (the real runtime's are
// tested in starts_integration_test.go).
func (f *fakeService) TriggerWait(_ context.Context, id runtime.InstanceID, _ string, _ map[string]any) (runtime.InstanceView, error) {
	return runtime.InstanceView{}, &runtime.Error{Code: runtime.ENOTFOUND, Message: "instance " + string(id) + " has no such wait"}
}
