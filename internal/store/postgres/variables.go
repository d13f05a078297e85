package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/gobpm/gobpm/internal/store"
)

// The variable index (migrations 0008 and 0021): a row per top-level variable of an
// instance, written by the steps that change the root scope, read by the
// list's variable filter.
const (
	// stepIndexVariablesSQL makes the indexed variables of the instance
	// $1 the names $2 with the value keys $3 in one statement: the names
	// gone are deleted, the new ones inserted, and a row whose value key
	// is unchanged is not written.
	stepIndexVariablesSQL = `WITH gone AS (
		    DELETE FROM instance_variables v WHERE v.instance_seq = ` + seqOf + ` AND NOT (v.name = ANY ($2::text[])))
		INSERT INTO instance_variables (instance_seq, name, value, value_num, value_text, value_time)
		SELECT ` + seqOf + `, n.name, n.value, n.num, n.text, n.at
		FROM unnest($2::text[], $3::text[], $4::float8[], $5::text[], $6::int8[]) AS n (name, value, num, text, at)
		ON CONFLICT (instance_seq, name) DO UPDATE SET value = excluded.value,
		    value_num = excluded.value_num, value_text = excluded.value_text, value_time = excluded.value_time
		    WHERE instance_variables.value <> excluded.value`
	deleteVariablesSQL = `DELETE FROM instance_variables WHERE instance_seq = $1`
	insertVariablesSQL = `INSERT INTO instance_variables (instance_seq, name, value, value_num, value_text, value_time)
		SELECT $1, * FROM unnest($2::text[], $3::text[], $4::float8[], $5::text[], $6::int8[])`
	deletePendingVariablesSQL = `DELETE FROM instance_variables_pending WHERE instance_seq = $1`
	// variablesPendingSQL claims a batch of the instances whose variables
	// are not indexed yet with their root scope part (NULL for none: a
	// legacy checkpoint, indexed when ReplaceState upgrades it); nodes
	// opening together take distinct batches. Arguments: the root scope's
	// kind and key, limit.
	variablesPendingSQL = `SELECT p.instance_seq, ip.data FROM instance_variables_pending p
		LEFT JOIN instance_parts ip ON ip.instance_seq = p.instance_seq AND ip.kind = $1 AND ip.key = $2
		ORDER BY p.instance_seq LIMIT $3 FOR UPDATE OF p SKIP LOCKED`
)

// pendingVariablesBatch is how many instances one transaction of the
// backfill at open indexes.
const pendingVariablesBatch = 200

// variableArrays are the column arrays of the statements that write
// indexed variables (nil elements are NULL).
type variableArrays struct {
	names, values []string
	nums          []*float64
	texts         []*string
	times         []*int64
}

// variableColumns splits indexed variables into the column arrays of the
// statements.
func variableColumns(vars []store.IndexedVariable) variableArrays {
	n := len(vars)
	a := variableArrays{make([]string, n), make([]string, n), make([]*float64, n), make([]*string, n), make([]*int64, n)}
	for i, v := range vars {
		a.names[i], a.values[i], a.nums[i], a.texts[i] = v.Name, v.Value, v.Num, v.Text
		if v.Time != nil {
			at := encodeTime(*v.Time)
			a.times[i] = &at
		}
	}
	return a
}

// queueVariables queues the update of the variable index of instance id
// when the step's parts hold its root scope; a step that removes the root
// scope without writing it drops every row.
func queueVariables(sb *stepBatch, i int, id string, parts []store.Part, removed []store.PartRef) error {
	vars, ok, err := store.RootVariables(parts)
	if err != nil {
		return err
	}
	if !ok && !store.RootScopeRemoved(removed) {
		return nil
	}
	a := variableColumns(vars)
	sb.exec(i, nil, stepIndexVariablesSQL, id, a.names, a.values, a.nums, a.texts, a.times)
	return nil
}

// reindexVariables replaces the indexed variables of instance seq with
// those of its whole state parts and clears its pending mark.
func reindexVariables(ctx context.Context, tx pgx.Tx, seq int64, parts []store.Part) error {
	vars, _, err := store.RootVariables(parts)
	if err != nil {
		return err
	}
	a := variableColumns(vars)
	b := &pgx.Batch{}
	b.Queue(deleteVariablesSQL, seq)
	b.Queue(insertVariablesSQL, seq, a.names, a.values, a.nums, a.texts, a.times)
	b.Queue(deletePendingVariablesSQL, seq)
	if err := tx.SendBatch(ctx, b).Close(); err != nil {
		return fmt.Errorf("index variables: %w", err)
	}
	return nil
}

// indexPendingVariables indexes, at open, the variables of the instances
// stored before the index existed (instance_variables_pending), in
// batches of pendingVariablesBatch, one transaction each: bounded, and an
// interrupted open resumes with the batch it did not commit.
func (db *DB) indexPendingVariables(ctx context.Context) error {
	for {
		n, err := db.indexVariablesBatch(ctx)
		if err != nil {
			return fmt.Errorf("index variables of earlier instances: %w", err)
		}
		if n < pendingVariablesBatch {
			return nil
		}
	}
}

// indexVariablesBatch indexes one batch of pending instances and returns
// how many it claimed.
func (db *DB) indexVariablesBatch(ctx context.Context) (int, error) {
	var n int
	err := db.writeTx(ctx, func(tx pgx.Tx) error {
		type pending struct {
			seq  int64
			data []byte
		}
		rows, err := tx.Query(ctx, variablesPendingSQL, store.RootScopeKind, store.RootScopeKey, pendingVariablesBatch)
		if err != nil {
			return err
		}
		var (
			batch []pending
			p     pending
		)
		if _, err := pgx.ForEachRow(rows, []any{&p.seq, &p.data}, func() error {
			batch = append(batch, pending{p.seq, p.data})
			return nil
		}); err != nil {
			return err
		}
		n = len(batch)
		for _, p := range batch {
			var parts []store.Part
			if p.data != nil {
				parts = []store.Part{{Kind: store.RootScopeKind, Key: store.RootScopeKey, Data: p.data}}
			}
			if err := reindexVariables(ctx, tx, p.seq, parts); err != nil {
				return fmt.Errorf("instance seq %d: %w", p.seq, err)
			}
		}
		return nil
	})
	return n, err
}
