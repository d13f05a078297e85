package gobpmtest_test

import (
	"path/filepath"
	"testing"

	"github.com/gobpm/gobpm/gobpmtest"
)

// TestCallActivity: a parent waits at its call activity while the child
// works; completing the child's task completes both.
func TestCallActivity(t *testing.T) {
	h := gobpmtest.New(t)
	dir := filepath.Join("..", "internal", "api", "testdata")
	h.Deploy(filepath.Join(dir, "call_child.bpmn"), filepath.Join(dir, "call_parent.bpmn"))
	parent := h.Start("parent", nil)
	gobpmtest.AssertWaitingAt(t, parent, "call")
	child := parent.Child("call")
	gobpmtest.AssertWaitingAt(t, child, "Child work")
	h.CompleteTask(child, "Child work", "ann", map[string]any{"done": true})
	gobpmtest.AssertCompleted(t, child)
	gobpmtest.AssertCompleted(t, parent)
}
