package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/gobpm/gobpm/internal/store"
)

// InstanceRows returns the rows of the instances ids that exist, in one
// query; unknown ids are left out.
func (db *DB) InstanceRows(ctx context.Context, ids []store.InstanceID) ([]store.InstanceRow, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	list := make([]string, len(ids))
	for i, id := range ids {
		list[i] = string(id)
	}
	var out []store.InstanceRow
	err := db.readTx(ctx, func(tx pgx.Tx) error {
		var err error
		out, err = queryRows(ctx, tx, func(row pgx.Row) (store.InstanceRow, error) { return scanInstance(row) },
			`SELECT `+instanceColumns+` FROM instances WHERE id = ANY($1)`, list)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("postgres store: instance rows: %w", err)
	}
	return out, nil
}
