package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/gobpm/gobpm/internal/store"
	"github.com/gobpm/gobpm/internal/store/sqlquery"
)

// The token index (migration 0007): a row per token of an instance, written
// by the steps that change it, counted by ElementCounts.
const (
	stepUpsertTokenSQL = `INSERT INTO instance_tokens (instance_seq, track, node_id) VALUES (` + seqOf + `, $2, $3)
		ON CONFLICT (instance_seq, track) DO UPDATE SET node_id = excluded.node_id`
	stepDeleteTokenSQL          = `DELETE FROM instance_tokens WHERE instance_seq = ` + seqOf + ` AND track = $2`
	stepDeleteInstanceTokensSQL = `DELETE FROM instance_tokens WHERE instance_seq = ` + seqOf
	// lockRevisionSQL locks an instance's row for IndexTokens: a step of
	// another node waits for the index to be written, or the index for
	// the step (and then sees the new revision).
	lockRevisionSQL        = `SELECT seq, revision FROM instances WHERE id = $1 FOR UPDATE`
	deleteTokensSQL        = `DELETE FROM instance_tokens WHERE instance_seq = $1`
	insertTokenSQL         = `INSERT INTO instance_tokens (instance_seq, track, node_id) VALUES ($1, $2, $3)`
	deletePendingTokensSQL = `DELETE FROM instance_tokens_pending WHERE instance_seq = $1`
	tokensPendingSQL       = `SELECT i.id FROM instance_tokens_pending p JOIN instances i ON i.seq = p.instance_seq
		ORDER BY p.instance_seq LIMIT $1`
	// elementTokensSQL and elementIncidentsSQL count the tokens and the
	// open incidents of the running or failed instances of a version, by
	// element. Arguments: key, version.
	elementTokensSQL = `SELECT t.node_id, COUNT(*) FROM instances i JOIN instance_tokens t ON t.instance_seq = i.seq
		WHERE i.process_key = $1 AND i.process_version = $2 AND i.status IN ('running', 'failed')
		GROUP BY t.node_id`
	elementIncidentsSQL = `SELECT c.node_id, COUNT(*) FROM instances i JOIN incidents c ON c.instance_id = i.id
		WHERE i.process_key = $1 AND i.process_version = $2 AND i.status IN ('running', 'failed')
		    AND c.resolved_at IS NULL
		GROUP BY c.node_id`
)

// queueTokens queues a step's changes to the token index of instance in:
// removed tokens first, then the written ones; a step that ends its
// instance drops every token it still has.
func queueTokens(sb *stepBatch, i int, in *store.InstanceRow, tokens []store.TokenRow, removed []string) {
	id := string(in.ID)
	if !in.EndedAt.IsZero() {
		sb.exec(i, nil, stepDeleteInstanceTokensSQL, id)
		return
	}
	for _, track := range removed {
		sb.exec(i, nil, stepDeleteTokenSQL, id, track)
	}
	for _, t := range tokens {
		sb.exec(i, nil, stepUpsertTokenSQL, id, t.TrackID, t.NodeID)
	}
}

// ElementCounts counts the indexed tokens and the open incidents at each
// element over the running or failed instances of a process version, in
// one read transaction, by element id.
func (db *DB) ElementCounts(ctx context.Context, key string, version int) ([]store.ElementCount, error) {
	var counts sqlquery.ElementCounts
	err := db.readTx(ctx, func(tx pgx.Tx) error {
		for _, q := range []struct {
			query     string
			incidents bool
		}{{elementTokensSQL, false}, {elementIncidentsSQL, true}} {
			rows, err := tx.Query(ctx, q.query, key, version)
			if err != nil {
				return err
			}
			var (
				node string
				n    int
			)
			_, err = pgx.ForEachRow(rows, []any{&node, &n}, func() error {
				counts.Add(node, n, q.incidents)
				return nil
			})
			if err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("postgres store: element counts of %s v%d: %w", key, version, err)
	}
	return counts.List(), nil
}

// TokensPending returns at most limit (limit <= 0: all) instances whose
// tokens are not indexed yet, in creation order.
func (db *DB) TokensPending(ctx context.Context, limit int) ([]store.InstanceID, error) {
	rows, err := db.pool.Query(ctx, tokensPendingSQL, limitArg(limit))
	if err != nil {
		return nil, fmt.Errorf("postgres store: instances with tokens pending: %w", err)
	}
	var (
		out []store.InstanceID
		id  string
	)
	if _, err := pgx.ForEachRow(rows, []any{&id}, func() error {
		out = append(out, store.InstanceID(id))
		return nil
	}); err != nil {
		return nil, fmt.Errorf("postgres store: instances with tokens pending: %w", err)
	}
	return out, nil
}

// IndexTokens replaces the indexed tokens of an instance and clears its
// pending mark, provided its revision is still revision (the row is
// locked meanwhile).
func (db *DB) IndexTokens(ctx context.Context, id store.InstanceID, revision int64, tokens []store.TokenRow) error {
	err := db.writeTx(ctx, func(tx pgx.Tx) error {
		var seq, rev int64
		err := tx.QueryRow(ctx, lockRevisionSQL, string(id)).Scan(&seq, &rev)
		if errors.Is(err, pgx.ErrNoRows) {
			return store.ErrNotFound
		}
		if err != nil {
			return err
		}
		if rev != revision {
			return fmt.Errorf("revision %d is not current (%d): %w", revision, rev, store.ErrConflict)
		}
		b := &pgx.Batch{}
		b.Queue(deleteTokensSQL, seq)
		for _, t := range tokens {
			b.Queue(insertTokenSQL, seq, t.TrackID, t.NodeID)
		}
		b.Queue(deletePendingTokensSQL, seq)
		return tx.SendBatch(ctx, b).Close()
	})
	if err != nil {
		return fmt.Errorf("postgres store: index tokens of instance %s: %w", id, err)
	}
	return nil
}
