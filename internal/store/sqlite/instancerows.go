package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/gobpm/gobpm/internal/store"
)

// InstanceRows returns the rows of the instances ids that exist, in one
// query; unknown ids are left out.
func (db *DB) InstanceRows(ctx context.Context, ids []store.InstanceID) ([]store.InstanceRow, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	args := make([]any, len(ids))
	for i, id := range ids {
		args[i] = dbID(id)
	}
	query := `SELECT ` + instanceColumns + ` FROM instances WHERE id IN (` + strings.TrimSuffix(strings.Repeat("?, ", len(ids)), ", ") + `)`
	var out []store.InstanceRow
	err := db.readTx(ctx, func(tx *sql.Tx) error {
		rs, err := tx.QueryContext(ctx, query, args...)
		if err != nil {
			return err
		}
		defer rs.Close()
		for rs.Next() {
			in, err := scanInstance(rs)
			if err != nil {
				return err
			}
			out = append(out, in)
		}
		return rs.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("store: instance rows: %w", err)
	}
	return out, nil
}
