package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/gobpm/gobpm/internal/store"
	"github.com/gobpm/gobpm/internal/store/sqlquery"
)

// The store as one node of a cluster (store.ClusterStore, migration
// 0002). Node liveness is measured on the database's clock, so the nodes'
// clocks need not agree. A claim (waits.claimed_by, outbox.claimed_by)
// holds while the claiming node is registered: a heartbeat removes the
// nodes that went silent, and their claims are free from then on.

var _ store.ClusterStore = (*DB)(nil)

// wakeChannel is the LISTEN/NOTIFY channel of the wake-ups commits publish.
const wakeChannel = "gobpm_wake"

const (
	// dbNow is the database's clock in unix nanoseconds.
	dbNow         = `(EXTRACT(EPOCH FROM clock_timestamp()) * 1000000000)::BIGINT`
	upsertNodeSQL = `INSERT INTO cluster_nodes (id, address, version, started_at, heartbeat_at)
		VALUES ($1, $2, $3, ` + dbNow + `, ` + dbNow + `)
		ON CONFLICT (id) DO UPDATE SET address = excluded.address, version = excluded.version,
		    heartbeat_at = excluded.heartbeat_at`
	removeSilentSQL = `DELETE FROM cluster_nodes WHERE id <> $1 AND heartbeat_at < ` + dbNow + ` - $2 RETURNING id`
	leaveSQL        = `DELETE FROM cluster_nodes WHERE id = $1`
	nodesSQL        = `SELECT id, address, version, started_at, heartbeat_at FROM cluster_nodes ORDER BY started_at, id`

	// claimableNode1 is the condition on a row (aliased c) that the node
	// $1 may claim: nobody holds it, the node itself does, or a node that
	// is no longer registered did; claimableNode2 is the same for $2.
	claimableNode1 = `(c.claimed_by = '' OR c.claimed_by = $1
		OR NOT EXISTS (SELECT 1 FROM cluster_nodes n WHERE n.id = c.claimed_by))`
	claimableNode2 = `(c.claimed_by = '' OR c.claimed_by = $2
		OR NOT EXISTS (SELECT 1 FROM cluster_nodes n WHERE n.id = c.claimed_by))`

	// homedElsewhere, completed by a node parameter and ")", is the
	// condition that the instance of the wait (aliased c) is homed on a
	// live node other than that one: the node whose step of it committed
	// last, whose cache holds its state (migration 0020). A start timer
	// (no instance) and an instance homed on a node no longer registered
	// are nobody's.
	homedElsewhere = `EXISTS (SELECT 1 FROM instances i JOIN cluster_nodes n ON n.id = i.home_node
		    WHERE i.id = c.instance_id AND i.home_node <> `
	// jobAvailableSince is when a job (aliased c) became activatable: its
	// creation, backoff or lock expiry, whichever is last.
	jobAvailableSince = `GREATEST(c.created_at, COALESCE(c.due_at, 0), COALESCE(c.lock_expires_at, 0))`

	// claimTimersSQL claims due timers, skipping rows another transaction
	// holds (a step changing the wait, another node claiming it); a timer
	// of an instance homed on another live node is left to that node for
	// the first grace after it fell due.
	// Arguments: now, node, limit, grace.
	claimTimersSQL = `WITH picked AS (
		    SELECT c.id AS picked_id FROM waits c
		    WHERE c.kind IN ('timer', 'start-timer') AND NOT c.held AND c.due_at <= $1 AND ` + claimableNode2 + `
		      AND NOT (c.due_at > $1 - $4 AND ` + homedElsewhere + `$2))
		    ORDER BY c.due_at, c.id LIMIT $3
		    FOR UPDATE OF c SKIP LOCKED)
		UPDATE waits SET claimed_by = $2 FROM picked WHERE waits.id = picked.picked_id
		RETURNING ` + waitColumns
	// nextClaimableSQL is when node $1 must look for due timers again: at
	// the earliest due time of the timers it holds or may claim, a timer
	// held back for its home counting from the end of its grace ($2). The
	// earliest timer's due time plus the grace bounds the answer, so only
	// the timers due before that bound are looked at for one not held back.
	nextClaimableSQL = `WITH first AS (
		    SELECT c.due_at FROM waits c
		    WHERE c.kind IN ('timer', 'start-timer') AND NOT c.held AND c.due_at IS NOT NULL AND ` + claimableNode1 + `
		    ORDER BY c.due_at LIMIT 1)
		SELECT LEAST(first.due_at + $2, (
		    SELECT c.due_at FROM waits c
		    WHERE c.kind IN ('timer', 'start-timer') AND NOT c.held AND c.due_at IS NOT NULL AND ` + claimableNode1 + `
		      AND c.due_at < first.due_at + $2 AND NOT ` + homedElsewhere + `$1)
		    ORDER BY c.due_at LIMIT 1))
		FROM first`
	// homedElsewhereSQL lists the running or failed instances homed on a
	// registered node other than $1.
	homedElsewhereSQL = `SELECT i.id FROM instances i JOIN cluster_nodes n ON n.id = i.home_node
		WHERE i.status IN ('running', 'failed') AND i.home_node <> $1`
	// homedOnSQL lists the running or failed instances homed on one of
	// the nodes $1.
	homedOnSQL = `SELECT id FROM instances WHERE status IN ('running', 'failed') AND home_node = ANY($1::text[])`
	// claimOutboxSQL claims outbox rows. Arguments: node, limit.
	claimOutboxSQL = `WITH picked AS (
		    SELECT c.id AS picked_id FROM outbox c WHERE ` + claimableNode1 + `
		    ORDER BY c.id LIMIT $2
		    FOR UPDATE OF c SKIP LOCKED)
		UPDATE outbox SET claimed_by = $1 FROM picked WHERE outbox.id = picked.picked_id
		RETURNING id, instance_id, kind, payload, created_at`
)

// NodeID is the id this store registers, claims and publishes under
// (Options.NodeID, else one minted by Open).
func (db *DB) NodeID() string { return db.node }

// Heartbeat registers this node or refreshes its heartbeat, then removes
// the other nodes silent for longer than timeout and returns their ids.
func (db *DB) Heartbeat(ctx context.Context, n store.NodeInfo, timeout time.Duration) ([]string, error) {
	var removed []string
	err := db.writeTx(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, upsertNodeSQL, db.node, n.Address, n.Version); err != nil {
			return err
		}
		ids, err := queryRows(ctx, tx, func(row pgx.Row) (string, error) {
			var id string
			return id, row.Scan(&id)
		}, removeSilentSQL, db.node, timeout.Nanoseconds())
		removed = ids
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("postgres store: heartbeat of node %s: %w", db.node, err)
	}
	return removed, nil
}

// Leave removes this node's registration.
func (db *DB) Leave(ctx context.Context) error {
	if _, err := db.pool.Exec(ctx, leaveSQL, db.node); err != nil {
		return fmt.Errorf("postgres store: leave as node %s: %w", db.node, err)
	}
	return nil
}

// Nodes lists the registered nodes, oldest first.
func (db *DB) Nodes(ctx context.Context) ([]store.NodeRow, error) {
	out, err := queryRows(ctx, db.pool, func(row pgx.Row) (store.NodeRow, error) {
		var (
			n             store.NodeRow
			started, beat int64
		)
		err := row.Scan(&n.ID, &n.Address, &n.Version, &started, &beat)
		n.StartedAt, n.HeartbeatAt = decodeTime(started), decodeTime(beat)
		return n, err
	}, nodesSQL)
	if err != nil {
		return nil, fmt.Errorf("postgres store: nodes: %w", err)
	}
	return out, nil
}

// ClaimDueTimers claims for this node at most limit due timer and
// start-timer waits nobody else holds, earliest first.
func (db *DB) ClaimDueTimers(ctx context.Context, now time.Time, limit int) ([]store.WaitRow, error) {
	if limit <= 0 || limit > sqlquery.MaxListLimit {
		limit = sqlquery.MaxListLimit
	}
	out, err := queryWaits(ctx, db.pool, claimTimersSQL, encodeTime(now), db.node, limit, db.homeGrace.Nanoseconds())
	if err != nil {
		return nil, fmt.Errorf("postgres store: claim due timers: %w", err)
	}
	// UPDATE … RETURNING gives no order.
	slices.SortFunc(out, func(a, b store.WaitRow) int {
		if c := a.DueAt.Compare(b.DueAt); c != 0 {
			return c
		}
		return compareStrings(a.ID, b.ID)
	})
	return out, nil
}

// NextClaimableTimer returns the earliest due time of the timers this node
// holds or may claim.
func (db *DB) NextClaimableTimer(ctx context.Context) (time.Time, bool, error) {
	var next int64
	err := db.pool.QueryRow(ctx, nextClaimableSQL, db.node, db.homeGrace.Nanoseconds()).Scan(&next)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return time.Time{}, false, nil
	case err != nil:
		return time.Time{}, false, fmt.Errorf("postgres store: next claimable timer: %w", err)
	}
	return decodeTime(next), true, nil
}

// ClaimOutbox claims for this node at most limit outbox rows nobody else
// holds, oldest first.
func (db *DB) ClaimOutbox(ctx context.Context, limit int) ([]store.OutboxRow, error) {
	if limit <= 0 || limit > sqlquery.MaxListLimit {
		limit = sqlquery.MaxListLimit
	}
	out, err := queryRows(ctx, db.pool, scanOutbox, claimOutboxSQL, db.node, limit)
	if err != nil {
		return nil, fmt.Errorf("postgres store: claim outbox: %w", err)
	}
	slices.SortFunc(out, func(a, b store.OutboxRow) int { return int(min(max(a.ID-b.ID, -1), 1)) })
	return out, nil
}

// HomedElsewhere returns the running or failed instances homed on another
// registered node.
func (db *DB) HomedElsewhere(ctx context.Context) ([]store.InstanceID, error) {
	out, err := queryRows(ctx, db.pool, func(row pgx.Row) (store.InstanceID, error) {
		var id string
		err := row.Scan(&id)
		return store.InstanceID(id), err
	}, homedElsewhereSQL, db.node)
	if err != nil {
		return nil, fmt.Errorf("postgres store: instances homed on other nodes: %w", err)
	}
	return out, nil
}

// HomedOn returns the running or failed instances homed on one of nodes.
func (db *DB) HomedOn(ctx context.Context, nodes []string) ([]store.InstanceID, error) {
	out, err := queryRows(ctx, db.pool, func(row pgx.Row) (store.InstanceID, error) {
		var id string
		err := row.Scan(&id)
		return store.InstanceID(id), err
	}, homedOnSQL, nodes)
	if err != nil {
		return nil, fmt.Errorf("postgres store: instances homed on nodes %v: %w", nodes, err)
	}
	return out, nil
}

// compareStrings orders strings bytewise (the "C" collation's order).
func compareStrings(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// Listen calls wake for every wake-up another node publishes, on a
// connection of its own, until ctx ends (nil) or the connection fails
// (the error; the caller listens again). It calls listening once LISTEN
// is in effect.
func (db *DB) Listen(ctx context.Context, listening func(), wake func(store.Wake)) error {
	cfg := db.pool.Config().ConnConfig.Copy()
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return fmt.Errorf("postgres store: listen: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if _, err := conn.Exec(ctx, `LISTEN `+wakeChannel); err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return fmt.Errorf("postgres store: listen: %w", err)
	}
	listening()
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return fmt.Errorf("postgres store: listen: %w", err)
		}
		var m wakeMessage
		if json.Unmarshal([]byte(n.Payload), &m) != nil || m.Node == db.node {
			continue // not ours to read, or this node's own commit
		}
		wake(store.Wake{Jobs: m.Jobs, Timers: m.Timers})
	}
}
