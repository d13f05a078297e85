package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/gobpm/gobpm/internal/store"
	"github.com/gobpm/gobpm/internal/store/sqlquery"
)

// IncidentAncestry returns, for every instance with an open incident, the
// instance itself (Depth 0) and each caller above it up to the root of
// its call tree; with ids not nil only the rows whose AncestorID is one of
// ids.
func (db *DB) IncidentAncestry(ctx context.Context, ids []store.InstanceID) ([]store.IncidentAncestor, error) {
	filter := ""
	var args []any
	if ids != nil {
		if len(ids) == 0 {
			return nil, nil
		}
		filter = " WHERE id IN (" + strings.TrimSuffix(strings.Repeat("?, ", len(ids)), ", ") + ")"
		for _, id := range ids {
			args = append(args, dbID(id))
		}
	}
	var out []store.IncidentAncestor
	err := db.readTx(ctx, func(tx *sql.Tx) error {
		rs, err := tx.QueryContext(ctx, sqlquery.IncidentAncestryQuery(filter), args...)
		if err != nil {
			return err
		}
		defer rs.Close()
		for rs.Next() {
			var a store.IncidentAncestor
			if err := rs.Scan(idDest(&a.InstanceID), idDest(&a.AncestorID), &a.AncestorKey, &a.Depth); err != nil {
				return err
			}
			out = append(out, a)
		}
		return rs.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("store: incident ancestry: %w", err)
	}
	return out, nil
}
