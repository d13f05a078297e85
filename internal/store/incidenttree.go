package store

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"

	"github.com/gobpm/gobpm/internal/runtime"
)

// maxCallDepth bounds the walk up a call tree, so that a parent link that
// loops (which the runtime never writes) cannot keep a query running.
const maxCallDepth = 1000

// incidentAncestryQuery walks up from every instance with an open incident
// (the partial index incidents_open) through parent_id, one primary-key
// lookup per level; filter selects the ancestors ("" for all).
func incidentAncestryQuery(filter string) string {
	return `WITH RECURSIVE up(start, id, key, parent, depth) AS (
		SELECT i.id, i.id, i.process_key, i.parent_id, 0
		FROM instances i WHERE i.id IN (SELECT instance_id FROM incidents WHERE resolved_at IS NULL)
		UNION ALL
		SELECT up.start, p.id, p.process_key, p.parent_id, up.depth + 1
		FROM up JOIN instances p ON p.id = up.parent
		WHERE up.parent <> '' AND up.depth < ` + strconv.Itoa(maxCallDepth) + `
	)
	SELECT start, id, key, depth FROM up` + filter
}

// IncidentAncestry returns, for every instance with an open incident, the
// instance itself (Depth 0) and each caller above it up to the root of
// its call tree; with ids not nil only the rows whose AncestorID is one of
// ids.
func (db *DB) IncidentAncestry(ctx context.Context, ids []runtime.InstanceID) ([]runtime.IncidentAncestor, error) {
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
	var out []runtime.IncidentAncestor
	err := db.readTx(ctx, func(tx *sql.Tx) error {
		rs, err := tx.QueryContext(ctx, incidentAncestryQuery(filter), args...)
		if err != nil {
			return err
		}
		defer rs.Close()
		for rs.Next() {
			var a runtime.IncidentAncestor
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
