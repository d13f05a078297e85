package engine

import (
	"fmt"
	"slices"
	"strconv"
	"testing"

	"github.com/gobpm/gobpm/internal/scope"
)

// TestScopesAndTracksAfter pages scopes and tracks by cursor over a state
// with few closed scopes (the probing path) and one with mostly closed
// ones (the sorting path): every page lists each open one once, in
// creation order; a malformed cursor is refused.
func TestScopesAndTracksAfter(t *testing.T) {
	t.Parallel()
	for _, closeEvery := range []int{0, 1} {
		t.Run(fmt.Sprintf("closed=%v", closeEvery == 1), func(t *testing.T) {
			st := NewState("i1", "p", 1)
			var want []string
			want = append(want, string(scope.RootID))
			for i := 1; i <= 250; i++ {
				sc, err := st.Scopes.Open(scope.RootID, "n", nil)
				if err != nil {
					t.Fatal(err)
				}
				if closeEvery == 1 && i%10 != 0 { // keep every tenth: most numbers are closed
					st.Scopes.Close(sc.ID)
					continue
				}
				want = append(want, string(sc.ID))
				st.Tracks = append(st.Tracks, &Track{ID: "t" + strconv.Itoa(i), Scope: sc.ID})
			}
			for _, limit := range []int{1, 7, 100, 1000} {
				var got []string
				after := ""
				for {
					page, more, ok := st.ScopesAfter(after, limit)
					if !ok || len(page) > limit {
						t.Fatalf("limit %d after %q: ok %v, %d scopes", limit, after, ok, len(page))
					}
					for _, sc := range page {
						got = append(got, string(sc.ID))
					}
					if !more {
						break
					}
					after = string(page[len(page)-1].ID)
				}
				if !slices.Equal(got, want) {
					t.Fatalf("limit %d: scopes %v, want %v", limit, got, want)
				}
				var tracks []string
				after = ""
				for {
					page, more, ok := st.TracksAfter(after, limit)
					if !ok {
						t.Fatalf("track cursor %q refused", after)
					}
					for _, tr := range page {
						tracks = append(tracks, tr.ID)
					}
					if !more {
						break
					}
					after = page[len(page)-1].ID
				}
				if len(tracks) != len(st.Tracks) {
					t.Fatalf("limit %d: %d tracks paged, want %d", limit, len(tracks), len(st.Tracks))
				}
			}
		})
	}
	st := NewState("i1", "p", 1)
	for _, bad := range []string{"nope", "s0", "s-1", "t1"} {
		if _, _, ok := st.ScopesAfter(bad, 10); ok {
			t.Errorf("scope cursor %q accepted", bad)
		}
	}
	for _, bad := range []string{"nope", "t0", "s1"} {
		if _, _, ok := st.TracksAfter(bad, 10); ok {
			t.Errorf("track cursor %q accepted", bad)
		}
	}
}
