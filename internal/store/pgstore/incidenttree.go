package pgstore

import (
	"context"
	"fmt"
	"strconv"

	"github.com/jackc/pgx/v5"

	"github.com/gobpm/gobpm/internal/runtime"
)

// maxCallDepth bounds the walk up a call tree, so that a parent link that
// loops (which the runtime never writes) cannot keep a query running.
const maxCallDepth = 1000

// incidentAncestryQuery walks up from every instance with an open incident
// through parent_id, one unique-index lookup per level; filter selects the
// ancestors ("" for all).
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
	var a args
	if ids != nil {
		if len(ids) == 0 {
			return nil, nil
		}
		list := make([]string, len(ids))
		for i, id := range ids {
			list[i] = string(id)
		}
		filter = " WHERE id = ANY(" + a.add(list) + ")"
	}
	var out []runtime.IncidentAncestor
	err := db.readTx(ctx, func(tx pgx.Tx) error {
		var err error
		out, err = queryRows(ctx, tx, func(row pgx.Row) (runtime.IncidentAncestor, error) {
			var (
				x          runtime.IncidentAncestor
				start, anc string
			)
			err := row.Scan(&start, &anc, &x.AncestorKey, &x.Depth)
			x.InstanceID, x.AncestorID = runtime.InstanceID(start), runtime.InstanceID(anc)
			return x, err
		}, incidentAncestryQuery(filter), a...)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("pgstore: incident ancestry: %w", err)
	}
	return out, nil
}
