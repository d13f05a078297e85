package sqlite

import (
	"context"
	"fmt"
	"time"

	"github.com/gobpm/gobpm/internal/store"
)

// The variable index (migrations 0015 and 0028): a row per top-level variable of an
// instance, written by the steps that change the root scope, read by the
// list's variable filter.
const (
	upsertVariableSQL = `INSERT INTO instance_variables (instance_seq, name, value, value_num, value_text, value_time)
		VALUES (?, ?, ?, ?, ?, ?)
		ON CONFLICT (instance_seq, name) DO UPDATE SET value = excluded.value,
		    value_num = excluded.value_num, value_text = excluded.value_text, value_time = excluded.value_time`
	deleteVariableSQL          = `DELETE FROM instance_variables WHERE instance_seq = ? AND name = ?`
	deleteInstanceVariablesSQL = `DELETE FROM instance_variables WHERE instance_seq = ?`
	instanceVariablesSQL       = `SELECT name, value FROM instance_variables WHERE instance_seq = ?`
	deletePendingVariablesSQL  = `DELETE FROM instance_variables_pending WHERE instance_seq = ?`
	// variablesPendingSQL reads a batch of the instances whose variables
	// are not indexed yet with their root scope part (NULL for none: a
	// legacy checkpoint, indexed when ReplaceState upgrades it).
	// Arguments: the scope kind's id, the root scope's key, limit.
	variablesPendingSQL = `SELECT p.instance_seq, i.id, ip.data FROM instance_variables_pending p
		JOIN instances i ON i.seq = p.instance_seq
		LEFT JOIN instance_parts ip ON ip.instance_seq = p.instance_seq AND ip.kind = ? AND ip.key = ?
		ORDER BY p.instance_seq LIMIT ?`
)

// pendingVariablesBatch is how many instances one transaction of the
// backfill at open indexes.
const pendingVariablesBatch = 200

func init() {
	writeQueries = append(writeQueries, upsertVariableSQL, deleteVariableSQL, deleteInstanceVariablesSQL,
		instanceVariablesSQL, deletePendingVariablesSQL)
}

// applyVariables keeps the variable index of instance seq true after a
// step that wrote parts: when they hold the root scope, the variables
// whose value key changed are written and the ones gone deleted (read
// against the indexed rows, so an unchanged variable costs no write).
// created says the instance is new (nothing indexed yet). A step that
// removes the root scope without writing it drops every row.
func applyVariables(st *txStmts, seq int64, parts []store.Part, removed []store.PartRef, created bool) error {
	vars, ok, err := store.RootVariables(parts)
	if err != nil {
		return err
	}
	if !ok {
		if store.RootScopeRemoved(removed) {
			if _, err := st.exec(deleteInstanceVariablesSQL, seq); err != nil {
				return fmt.Errorf("unindex variables: %w", err)
			}
		}
		return nil
	}
	old := map[string]string{}
	if !created {
		if old, err = indexedVariables(st, seq); err != nil {
			return err
		}
	}
	for _, v := range vars {
		if prev, had := old[v.Name]; !had || prev != v.Value {
			if _, err := st.exec(upsertVariableSQL, seq, v.Name, v.Value, v.Num, v.Text, optTime(v.Time)); err != nil {
				return fmt.Errorf("index variable %s: %w", v.Name, err)
			}
		}
		delete(old, v.Name)
	}
	for name := range old {
		if _, err := st.exec(deleteVariableSQL, seq, name); err != nil {
			return fmt.Errorf("unindex variable %s: %w", name, err)
		}
	}
	return nil
}

// optTime encodes an optional time of the variable index (NULL for nil).
func optTime(t *time.Time) any {
	if t == nil {
		return nil
	}
	return encodeTime(*t)
}

// indexedVariables reads the indexed variables of instance seq: value key
// by name.
func indexedVariables(st *txStmts, seq int64) (map[string]string, error) {
	rs, err := st.query(instanceVariablesSQL, seq)
	if err != nil {
		return nil, fmt.Errorf("read indexed variables: %w", err)
	}
	defer rs.Close()
	out := map[string]string{}
	for rs.Next() {
		var name, value string
		if err := rs.Scan(&name, &value); err != nil {
			return nil, err
		}
		out[name] = value
	}
	return out, rs.Err()
}

// reindexVariables replaces the indexed variables of instance seq with
// those of its whole state parts (ReplaceState, the backfill) and clears
// its pending mark.
func reindexVariables(st *txStmts, seq int64, parts []store.Part) error {
	if _, err := st.exec(deleteInstanceVariablesSQL, seq); err != nil {
		return fmt.Errorf("unindex variables: %w", err)
	}
	if err := applyVariables(st, seq, parts, nil, true); err != nil {
		return err
	}
	_, err := st.exec(deletePendingVariablesSQL, seq)
	return err
}

// indexPendingVariables indexes, at open, the variables of the instances
// stored before the index existed (instance_variables_pending), in
// batches of pendingVariablesBatch, one transaction each: bounded, and an
// interrupted open resumes with the batch it did not commit.
func (db *DB) indexPendingVariables(ctx context.Context) error {
	for {
		n, err := db.indexVariablesBatch(ctx)
		if err != nil {
			return fmt.Errorf("store: index variables of earlier instances: %w", err)
		}
		if n < pendingVariablesBatch {
			return nil
		}
	}
}

// pendingVariables is one instance of a backfill batch.
type pendingVariables struct {
	seq  int64
	id   store.InstanceID
	data []byte
}

// indexVariablesBatch indexes one batch of pending instances and returns
// how many it read.
func (db *DB) indexVariablesBatch(ctx context.Context) (int, error) {
	var n int
	err := db.writeWith(ctx, func(st *txStmts) error {
		kind, ok, err := st.lookupKind(store.RootScopeKind)
		if err != nil {
			return err
		}
		if !ok {
			kind = -1 // no part of that kind was ever stored
		}
		batch, err := readPendingVariables(st, kind)
		if err != nil {
			return err
		}
		n = len(batch)
		for _, p := range batch {
			var parts []store.Part
			if p.data != nil {
				parts = []store.Part{{Kind: store.RootScopeKind, Key: store.RootScopeKey, Data: expand(string(p.id), p.data)}}
			}
			if err := reindexVariables(st, p.seq, parts); err != nil {
				return fmt.Errorf("instance %s: %w", p.id, err)
			}
		}
		return nil
	})
	return n, err
}

// readPendingVariables reads one batch of pending instances with their
// root scope part's stored data (nil for none).
func readPendingVariables(st *txStmts, kind int64) ([]pendingVariables, error) {
	rs, err := st.query(variablesPendingSQL, kind, partKey("", store.RootScopeKey), pendingVariablesBatch)
	if err != nil {
		return nil, err
	}
	defer rs.Close()
	var out []pendingVariables
	for rs.Next() {
		var p pendingVariables
		if err := rs.Scan(&p.seq, idDest(&p.id), &p.data); err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, rs.Err()
}
