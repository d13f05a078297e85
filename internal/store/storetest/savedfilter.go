package storetest

import (
	"context"
	"fmt"
	"testing"

	"github.com/gobpm/gobpm/internal/store"
)

// testSavedFilters: a user's saved filters are listed by name, a save
// under a taken name replaces it, users do not see each other's, a
// delete removes one (ENOTFOUND when absent), and the per-user cap and
// the size checks refuse.
func testSavedFilters(t *testing.T, open Opener) {
	t.Parallel()
	ctx := context.Background()
	h := open(t)
	save := func(user, name, query string) error {
		return h.SaveFilter(ctx, store.SavedFilter{User: user, Name: name, Query: query, CreatedAt: t0})
	}
	for _, f := range [][3]string{{"ada", "rush", "var=rush%3Deq%3Atrue"}, {"ada", "big orders", "var=amount%3Agt%3A100"},
		{"bob", "rush", "status=failed"}, {"ada", "rush", "process=order"}} {
		if err := save(f[0], f[1], f[2]); err != nil {
			t.Fatal(err)
		}
	}
	list := func(user string) string {
		t.Helper()
		fs, err := h.SavedFilters(ctx, user)
		if err != nil {
			t.Fatal(err)
		}
		s := ""
		for _, f := range fs {
			if f.User != user || !f.CreatedAt.Equal(t0) {
				t.Errorf("saved filter %+v", f)
			}
			s += f.Name + "=" + f.Query + ";"
		}
		return s
	}
	if got, want := list("ada"), "big orders=var=amount%3Agt%3A100;rush=process=order;"; got != want {
		t.Errorf("ada's filters = %q, want %q", got, want)
	}
	if got, want := list("bob"), "rush=status=failed;"; got != want {
		t.Errorf("bob's filters = %q, want %q", got, want)
	}
	if err := h.DeleteSavedFilter(ctx, "ada", "rush"); err != nil {
		t.Fatal(err)
	}
	if err := h.DeleteSavedFilter(ctx, "ada", "rush"); store.ErrorCode(err) != store.ENOTFOUND {
		t.Errorf("second delete: %v, want ENOTFOUND", err)
	}
	if got, want := list("ada"), "big orders=var=amount%3Agt%3A100;"; got != want {
		t.Errorf("after the delete: %q, want %q", got, want)
	}
	if got := list("eve"); got != "" {
		t.Errorf("eve's filters = %q", got)
	}
	for _, bad := range [][2]string{{"", "q"}, {"n", ""}, {string(make([]byte, store.MaxSavedFilterName+1)), "q"}} {
		if err := save("ada", bad[0], bad[1]); store.ErrorCode(err) != store.EINVALID {
			t.Errorf("save %q=%q: %v, want EINVALID", bad[0], bad[1], err)
		}
	}
	for i := range store.MaxSavedFilters {
		if err := save("cap", fmt.Sprint("f", i), "q"); err != nil {
			t.Fatal(err)
		}
	}
	if err := save("cap", "one more", "q"); store.ErrorCode(err) != store.ECONFLICT {
		t.Errorf("save beyond the cap: %v, want ECONFLICT", err)
	}
	if err := save("cap", "f0", "replaced"); err != nil {
		t.Errorf("replace at the cap: %v", err)
	}
}
