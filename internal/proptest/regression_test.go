package proptest

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/gobpm/gobpm/internal/runtime"
)

// TestRegressions replays the minimal models the property test found: the
// instance is driven by completing its user tasks until it ends, then the
// end-state property is checked.
func TestRegressions(t *testing.T) {
	cases := []struct {
		file, key string
	}{
		{file: "root_error_handler_after_end.bpmn", key: "rootHandlerAfterEnd"},
	}
	for _, tc := range cases {
		t.Run(tc.file, func(t *testing.T) {
			xml, err := os.ReadFile(filepath.Join("testdata", tc.file))
			if err != nil {
				t.Fatal(err)
			}
			h := newHarness(t)
			ctx := context.Background()
			if _, err := h.rt.Deploy(ctx, []runtime.File{{Name: tc.file, Content: xml}}); err != nil {
				t.Fatal(err)
			}
			r := &run{h: h}
			if err := r.start(ctx, tc.key); err != nil {
				t.Fatal(err)
			}
			for i := 0; i < 20; i++ {
				tasks, _, err := h.rt.Tasks(ctx, runtime.TaskFilter{InstanceID: r.id})
				if err != nil {
					t.Fatal(err)
				}
				if len(tasks) == 0 {
					break
				}
				if err := h.rt.CompleteTask(ctx, tasks[0].ID, runtime.Actor{User: "u"}, nil); err != nil {
					t.Fatal(err)
				}
			}
			checkEnded(ctx, h, r, func(format string, args ...any) {
				t.Helper()
				t.Fatalf(format+"\ninstance:\n%s", append(args, r.dump(ctx))...)
			})
		})
	}
}
