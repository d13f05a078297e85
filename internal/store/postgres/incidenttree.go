package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/gobpm/gobpm/internal/store"
	"github.com/gobpm/gobpm/internal/store/sqlquery"
)

// IncidentAncestry returns, for every instance with an open incident, the
// instance itself (Depth 0) and each caller above it up to the root of
// its call tree; with ids not nil only the rows whose AncestorID is one of
// ids.
func (db *DB) IncidentAncestry(ctx context.Context, ids []store.InstanceID) ([]store.IncidentAncestor, error) {
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
	var out []store.IncidentAncestor
	err := db.readTx(ctx, func(tx pgx.Tx) error {
		var err error
		out, err = queryRows(ctx, tx, func(row pgx.Row) (store.IncidentAncestor, error) {
			var (
				x          store.IncidentAncestor
				start, anc string
			)
			err := row.Scan(&start, &anc, &x.AncestorKey, &x.Depth)
			x.InstanceID, x.AncestorID = store.InstanceID(start), store.InstanceID(anc)
			return x, err
		}, sqlquery.IncidentAncestryQuery(filter), a...)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("postgres store: incident ancestry: %w", err)
	}
	return out, nil
}
