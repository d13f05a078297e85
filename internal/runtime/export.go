package runtime

import (
	"context"
	"fmt"

	"github.com/gobpm/gobpm/internal/store"
)

// The history export: every instance's facts in the order they were
// committed, a page at a time (GET /api/v1/history/export).
type (
	// ExportPosition is store.ExportPosition.
	ExportPosition = store.ExportPosition
	// ExportFilter is store.ExportFilter.
	ExportFilter = store.ExportFilter
	// ExportedFact is store.ExportedFact.
	ExportedFact = store.ExportedFact
)

// MaxExportPage is store.MaxExportPage: the most facts one HistoryExport
// call returns.
const MaxExportPage = store.MaxExportPage

// HistoryExport returns at most f.Limit facts after f.After matching f,
// in commit order, from the store's read pool (EINVALID for a limit out of
// range).
func (r *Runtime) HistoryExport(ctx context.Context, f ExportFilter) ([]ExportedFact, error) {
	facts, err := r.store.HistoryExport(ctx, f)
	if err != nil {
		return nil, fmt.Errorf("runtime: history export: %w", err)
	}
	return facts, nil
}
