package sqlquery

import (
	"slices"

	"github.com/gobpm/gobpm/internal/store"
)

// BatchCounts is what an item's outcome adds to its batch's done and
// failed counters.
func BatchCounts(status string) (done, failed int) {
	switch status {
	case store.BatchItemDone:
		return 1, 0
	case store.BatchItemFailed:
		return 0, 1
	}
	return 0, 0
}

// StateIn reports whether a batch in state may move: from is empty (any
// state) or holds it.
func StateIn(state string, from []string) bool {
	return len(from) == 0 || slices.Contains(from, state)
}
