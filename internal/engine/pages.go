package engine

import (
	"slices"
	"strconv"

	"github.com/gobpm/gobpm/internal/scope"
)

// ScopesAfter returns at most limit open scopes created after the scope
// named after ("" starts at the root), in creation order, and whether more
// follow; ok is false when after is not a scope id this package mints.
// Scope ids carry their creation number ("s17"; the root is 0), so a page
// probes the numbers after the cursor instead of sorting every scope; when
// most of those numbers belong to closed scopes it sorts the open ones.
func (s *State) ScopesAfter(after string, limit int) (page []*scope.Scope, more, ok bool) {
	from := int64(-1)
	if after != "" {
		if after != string(scope.RootID) && scopeNum(scope.ID(after)) <= 0 {
			return nil, false, false
		}
		from = scopeNum(scope.ID(after))
	}
	next := int64(s.Scopes.Next)
	if span := next - from; span <= int64(4*len(s.Scopes.Scopes)+limit) {
		for n := from + 1; n <= next; n++ {
			id := scope.RootID
			if n > 0 {
				id = scope.ID("s" + strconv.FormatInt(n, 10))
			}
			sc := s.Scopes.Get(id)
			if sc == nil {
				continue
			}
			if len(page) == limit {
				return page, true, true
			}
			page = append(page, sc)
		}
		return page, false, true
	}
	all := s.Scopes.All()
	i, _ := slices.BinarySearchFunc(all, from+1, func(sc *scope.Scope, n int64) int {
		return int(int64(sc.Seq) - n)
	})
	all = all[i:]
	if len(all) > limit {
		return all[:limit], true, true
	}
	return all, false, true
}

// TracksAfter returns at most limit live tracks created after the track
// named after ("" from the first), in creation order, and whether more
// follow; ok is false when after is not a track id this package mints.
// Tracks are kept in creation order with ascending ids: the page starts
// by binary search.
func (s *State) TracksAfter(after string, limit int) (page []*Track, more, ok bool) {
	from := 0
	if after != "" {
		n, isTrack := trackNum(after)
		if !isTrack || n <= 0 {
			return nil, false, false
		}
		from = n
	}
	i, _ := slices.BinarySearchFunc(s.Tracks, from+1, func(t *Track, n int) int {
		m, _ := trackNum(t.ID)
		return m - n
	})
	page = s.Tracks[i:]
	if len(page) > limit {
		return page[:limit], true, true
	}
	return page, false, true
}
