package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/gobpm/gobpm/internal/store"
	"github.com/gobpm/gobpm/internal/store/sqlquery"
)

// The token index (migration 0014): a row per token of an instance, written
// by the steps that change it, counted by ElementCounts.
const (
	upsertTokenSQL = `INSERT INTO instance_tokens (instance_seq, track, node_id) VALUES (?, ?, ?)
		ON CONFLICT (instance_seq, track) DO UPDATE SET node_id = excluded.node_id`
	deleteTokenSQL          = `DELETE FROM instance_tokens WHERE instance_seq = ? AND track = ?`
	deleteInstanceTokensSQL = `DELETE FROM instance_tokens WHERE instance_seq = ?`
	deletePendingTokensSQL  = `DELETE FROM instance_tokens_pending WHERE instance_seq = ?`
	revisionSeqSQL          = `SELECT seq, revision FROM instances WHERE id = ?`
	// tokensPendingSQL lists the instances whose tokens are not indexed
	// yet, in creation order (seq). Argument: limit.
	tokensPendingSQL = `SELECT i.id FROM instance_tokens_pending p JOIN instances i ON i.seq = p.instance_seq
		ORDER BY p.instance_seq LIMIT ?`
	// elementTokensSQL counts the tokens of the running or failed
	// instances of a version by element: instances_process_version finds
	// the instances, the tokens' primary key their tokens. Arguments: key,
	// version.
	elementTokensSQL = `SELECT t.node_id, COUNT(*) FROM instances i INDEXED BY instances_process_version
		JOIN instance_tokens t ON t.instance_seq = i.seq
		WHERE i.process_key = ? AND i.process_version = ? AND i.status IN ('running', 'failed')
		GROUP BY t.node_id`
	// elementIncidentsSQL counts the open incidents of the same instances
	// by element (incidents_instance finds each instance's incidents).
	elementIncidentsSQL = `SELECT c.node_id, COUNT(*) FROM instances i INDEXED BY instances_process_version
		JOIN incidents c ON c.instance_id = i.id
		WHERE i.process_key = ? AND i.process_version = ? AND i.status IN ('running', 'failed')
		    AND c.resolved_at IS NULL
		GROUP BY c.node_id`
)

func init() {
	writeQueries = append(writeQueries, upsertTokenSQL, deleteTokenSQL, deleteInstanceTokensSQL, deletePendingTokensSQL, revisionSeqSQL)
	readQueries = append(readQueries, tokensPendingSQL, elementTokensSQL, elementIncidentsSQL)
}

// applyTokens writes a step's changes to the token index of instance seq:
// removed tokens first, then the written ones; a step that ends its
// instance drops every token it still has.
func applyTokens(st *txStmts, seq int64, in *store.InstanceRow, tokens []store.TokenRow, removed []string) error {
	if !in.EndedAt.IsZero() {
		if _, err := st.exec(deleteInstanceTokensSQL, seq); err != nil {
			return fmt.Errorf("delete tokens of ended instance: %w", err)
		}
		return nil
	}
	for _, track := range removed {
		if _, err := st.exec(deleteTokenSQL, seq, track); err != nil {
			return fmt.Errorf("delete token %s: %w", track, err)
		}
	}
	for _, t := range tokens {
		if _, err := st.exec(upsertTokenSQL, seq, t.TrackID, t.NodeID); err != nil {
			return fmt.Errorf("write token %s: %w", t.TrackID, err)
		}
	}
	return nil
}

// ElementCounts counts the indexed tokens and the open incidents at each
// element over the running or failed instances of a process version, in
// one read transaction (one snapshot), by element id.
func (db *DB) ElementCounts(ctx context.Context, key string, version int) ([]store.ElementCount, error) {
	var counts sqlquery.ElementCounts
	err := db.readWith(ctx, func(st *txStmts) error {
		for _, q := range []struct {
			query     string
			incidents bool
		}{{elementTokensSQL, false}, {elementIncidentsSQL, true}} {
			if err := countByElement(st, q.query, key, version, func(node string, n int) { counts.Add(node, n, q.incidents) }); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("store: element counts of %s v%d: %w", key, version, err)
	}
	return counts.List(), nil
}

// countByElement runs a GROUP BY query of ElementCounts and hands each
// row (element, count) to add.
func countByElement(st *txStmts, query, key string, version int, add func(node string, n int)) error {
	rs, err := st.query(query, key, version)
	if err != nil {
		return err
	}
	defer rs.Close()
	for rs.Next() {
		var (
			node string
			n    int
		)
		if err := rs.Scan(&node, &n); err != nil {
			return err
		}
		add(node, n)
	}
	return rs.Err()
}

// TokensPending returns at most limit (limit <= 0: all) instances whose
// tokens are not indexed yet, in creation order.
func (db *DB) TokensPending(ctx context.Context, limit int) ([]store.InstanceID, error) {
	var out []store.InstanceID
	err := db.readWith(ctx, func(st *txStmts) error {
		rs, err := st.query(tokensPendingSQL, noLimit(limit))
		if err != nil {
			return err
		}
		defer rs.Close()
		for rs.Next() {
			var id store.InstanceID
			if err := rs.Scan(idDest(&id)); err != nil {
				return err
			}
			out = append(out, id)
		}
		return rs.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("store: instances with tokens pending: %w", err)
	}
	return out, nil
}

// IndexTokens replaces the indexed tokens of an instance and clears its
// pending mark, provided its revision is still revision.
func (db *DB) IndexTokens(ctx context.Context, id store.InstanceID, revision int64, tokens []store.TokenRow) error {
	err := db.writeWith(ctx, func(st *txStmts) error {
		var seq, rev int64
		err := st.queryRow(revisionSeqSQL, dbID(id)).Scan(&seq, &rev)
		if errors.Is(err, sql.ErrNoRows) {
			return store.ErrNotFound
		}
		if err != nil {
			return err
		}
		if rev != revision {
			return fmt.Errorf("revision %d is not current (%d): %w", revision, rev, store.ErrConflict)
		}
		if _, err := st.exec(deleteInstanceTokensSQL, seq); err != nil {
			return err
		}
		for _, t := range tokens {
			if _, err := st.exec(upsertTokenSQL, seq, t.TrackID, t.NodeID); err != nil {
				return fmt.Errorf("write token %s: %w", t.TrackID, err)
			}
		}
		_, err = st.exec(deletePendingTokensSQL, seq)
		return err
	})
	if err != nil {
		return fmt.Errorf("store: index tokens of instance %s: %w", id, err)
	}
	return nil
}
