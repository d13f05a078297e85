package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/gobpm/gobpm/internal/store"
)

// The statistics rollups (migration 0014): each step's commit queues its
// store.StatsOf delta. The rows of an instance — one per element
// activation or wait still open — are written with the step's other
// statements; an end that needs the start an earlier step recorded deletes
// that row and reads its start back (stepCloseStatSQL). The shared rows —
// a counter row per element and hour, a histogram per element, kind and
// hour — are many steps' (every instance passing an element in an hour
// adds to one row), so they are not written step by step: the batch sums
// its steps' changes per row and upserts each row once, after every other
// statement of the commit, in one order of rows for every commit
// (store.StatsBatch). A transaction then takes shared-row locks last and in a
// global order, so two nodes' commits cannot deadlock on them, and holds
// them only for the end of its commit.
const (
	stepUpsertStatCountsSQL = `INSERT INTO stat_counts (process_key, hour, process_version, node_id,
		activations, completions, incidents, cancellations, failures, active_max, wait_max)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
		ON CONFLICT (process_key, hour, process_version, node_id) DO UPDATE SET
		activations = stat_counts.activations + excluded.activations,
		completions = stat_counts.completions + excluded.completions,
		incidents = stat_counts.incidents + excluded.incidents,
		cancellations = stat_counts.cancellations + excluded.cancellations,
		failures = stat_counts.failures + excluded.failures,
		active_max = GREATEST(stat_counts.active_max, excluded.active_max),
		wait_max = GREATEST(stat_counts.wait_max, excluded.wait_max)`
	// stepUpsertStatHistSQL adds a histogram ($6: element b+1 counts
	// bucket b) to one row's, element by element (addHists).
	stepUpsertStatHistSQL = `INSERT INTO stat_durations (process_key, hour, process_version, node_id, kind, hist)
		VALUES ($1, $2, $3, $4, $5, $6)
		ON CONFLICT (process_key, hour, process_version, node_id, kind) DO UPDATE SET hist = ` + addHists
	stepUpsertStatOpenSQL = `INSERT INTO stat_open (instance_seq, item, node_id, since) VALUES (` + seqOf + `, $2, $3, $4)
		ON CONFLICT (instance_seq, item) DO UPDATE SET node_id = excluded.node_id, since = excluded.since
		WHERE left(excluded.item, 2) = 't:'`
	stepDeleteInstanceStatsSQL = `DELETE FROM stat_open WHERE instance_seq = ` + seqOf
	// stepCloseStatSQL forgets an open item ($2) of instance $1 and
	// returns its element and start (Unix ms).
	stepCloseStatSQL = `DELETE FROM stat_open WHERE instance_seq = ` + seqOf + ` AND item = $2 RETURNING node_id, since`
	// stepCloseInstanceStatsSQL forgets every open item of instance $1
	// and returns them (item, element, start).
	stepCloseInstanceStatsSQL = `DELETE FROM stat_open WHERE instance_seq = ` + seqOf + ` RETURNING item, node_id, since`
	// statCountsSQL and statDurationsSQL sum a period's rollups of one
	// version ($4 > 0) or of all per element; statTimelineCountsSQL and
	// statTimelineDurationsSQL read the process's rows per hour.
	// Arguments: key, from hour, to hour, version.
	statCountsSQL = `SELECT node_id, 0::bigint, SUM(activations)::bigint, SUM(completions)::bigint, SUM(incidents)::bigint, SUM(cancellations)::bigint,
		SUM(failures)::bigint, MAX(active_max), MAX(wait_max) FROM stat_counts
		WHERE process_key = $1 AND hour >= $2 AND hour < $3 AND ($4 = 0 OR process_version = $4) GROUP BY node_id`
	statDurationsSQL = `SELECT node_id, 0::bigint, kind, hist FROM stat_durations
		WHERE process_key = $1 AND hour >= $2 AND hour < $3 AND ($4 = 0 OR process_version = $4)`
	statTimelineCountsSQL = `SELECT node_id, hour, SUM(activations)::bigint, SUM(completions)::bigint, SUM(incidents)::bigint, SUM(cancellations)::bigint,
		SUM(failures)::bigint, MAX(active_max), MAX(wait_max) FROM stat_counts
		WHERE process_key = $1 AND hour >= $2 AND hour < $3 AND ($4 = 0 OR process_version = $4) AND node_id = '' GROUP BY node_id, hour`
	statTimelineDurationsSQL = `SELECT node_id, hour, kind, hist FROM stat_durations
		WHERE process_key = $1 AND hour >= $2 AND hour < $3 AND ($4 = 0 OR process_version = $4) AND node_id = ''`
)

// addHists is the sum of the row's histogram and the one inserted,
// element by element (unnest pads the shorter with NULLs).
const addHists = `ARRAY(SELECT COALESCE(a, 0) + COALESCE(b, 0)
	FROM unnest(stat_durations.hist, excluded.hist) WITH ORDINALITY AS u(a, b, i) ORDER BY i)`

var _ store.StatisticsStore = (*DB)(nil)

// closeAllStatsFrom is how many items a step ending its instance must
// close for queueStats to read them all in one range delete.
const closeAllStatsFrom = 32

// queueStats queues the rollup changes of step i (s): its instance's open
// items now, its shared rows into sb.stats for sharedStatsBatches.
func queueStats(sb *stepBatch, i int, s *store.StepRecord) {
	d := sb.stats.Add(s)
	id := string(s.Instance.ID)
	if d.Ended && len(d.Closes) >= closeAllStatsFrom {
		// One range delete answers every open item of the ending instance
		// (a cancelled 40,000-iteration multi-instance closes 40,000).
		sb.queue(stepCloseInstanceStatsSQL, id).Query(func(rows pgx.Rows) error {
			type open struct {
				node  string
				since int64
			}
			items := map[string]open{}
			for rows.Next() {
				var (
					item string
					o    open
				)
				if err := rows.Scan(&item, &o.node, &o.since); err != nil {
					return sb.fail(i, err)
				}
				items[item] = o
			}
			if err := rows.Err(); err != nil {
				return sb.fail(i, err)
			}
			for _, c := range d.Closes {
				if o, ok := items[c.Item]; ok {
					delete(items, c.Item)
					sb.stats.Closed(&d, c, o.node, o.since)
				}
			}
			return nil
		})
		for _, o := range d.Opens {
			sb.exec(i, nil, stepUpsertStatOpenSQL, id, o.Item, o.NodeID, o.Since.UnixMilli())
		}
		return
	}
	for _, c := range d.Closes {
		sb.queryRow(i, func(row pgx.Row) error {
			var node string
			var since int64
			err := row.Scan(&node, &since)
			if errors.Is(err, pgx.ErrNoRows) {
				return nil // nothing was open: nothing to measure
			}
			if err != nil {
				return err
			}
			sb.stats.Closed(&d, c, node, since)
			return nil
		}, stepCloseStatSQL, id, c.Item)
	}
	if d.Ended {
		sb.exec(i, nil, stepDeleteInstanceStatsSQL, id)
	}
	for _, o := range d.Opens {
		sb.exec(i, nil, stepUpsertStatOpenSQL, id, o.Item, o.NodeID, o.Since.UnixMilli())
	}
}

// sharedStatsBatches returns the upserts of the shared rows sb.stats
// summed, once the rest of the commit has been sent (the closes' answers
// are in): counter rows, then histograms, each in row order — the same
// order in every commit (store.StatsBatch) — in batches of at most
// maxBatchStatements.
func (sb *stepBatch) sharedStatsBatches() []*pgx.Batch {
	var out []*pgx.Batch
	queue := func(query string, args ...any) {
		if len(out) == 0 || out[len(out)-1].Len() >= maxBatchStatements {
			out = append(out, &pgx.Batch{})
		}
		out[len(out)-1].Queue(query, args...)
	}
	for r, c := range sb.stats.Counts() {
		queue(stepUpsertStatCountsSQL, r.ProcessKey, r.Hour, r.Version, r.NodeID,
			c.Activations, c.Completions, c.Incidents, c.Cancellations, c.Failures, c.ActiveMax, c.WaitMax)
	}
	for k, h := range sb.stats.Hists() {
		queue(stepUpsertStatHistSQL, k.ProcessKey, k.Hour, k.Version, k.NodeID, k.Kind, h)
	}
	return out
}

// StatsRows reads the rollups of f's process and period in one read
// transaction.
func (db *DB) StatsRows(ctx context.Context, f store.StatsFilter) ([]store.StatsRow, error) {
	from, to := store.StatsPeriod(f)
	countsSQL, durationsSQL := statCountsSQL, statDurationsSQL
	if f.Timeline {
		countsSQL, durationsSQL = statTimelineCountsSQL, statTimelineDurationsSQL
	}
	rows := map[store.StatsKey]*store.StatsRow{}
	row := func(k store.StatsKey) *store.StatsRow {
		r, ok := rows[k]
		if !ok {
			r = &store.StatsRow{StatsKey: k, StatsCounts: store.StatsCounts{ActiveMax: -1, WaitMax: -1},
				Active: map[int]int64{}, Wait: map[int]int64{}}
			rows[k] = r
		}
		return r
	}
	err := db.readTx(ctx, func(tx pgx.Tx) error {
		rs, err := tx.Query(ctx, countsSQL, f.ProcessKey, from, to, f.Version)
		if err != nil {
			return err
		}
		var (
			k store.StatsKey
			c store.StatsCounts
		)
		_, err = pgx.ForEachRow(rs, []any{&k.NodeID, &k.Hour, &c.Activations, &c.Completions, &c.Incidents,
			&c.Cancellations, &c.Failures, &c.ActiveMax, &c.WaitMax}, func() error {
			row(k).StatsCounts = c
			return nil
		})
		if err != nil {
			return err
		}
		rs, err = tx.Query(ctx, durationsSQL, f.ProcessKey, from, to, f.Version)
		if err != nil {
			return err
		}
		var (
			kind string
			hist []int64
		)
		_, err = pgx.ForEachRow(rs, []any{&k.NodeID, &k.Hour, &kind, &hist}, func() error {
			r := row(k)
			h := r.Wait
			if kind == store.StatsActive {
				h = r.Active
			}
			for b, n := range hist {
				if n != 0 {
					h[b] += n
				}
			}
			return nil
		})
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("postgres store: statistics of %s: %w", f.ProcessKey, err)
	}
	out := make([]store.StatsRow, 0, len(rows))
	for _, r := range rows {
		out = append(out, *r)
	}
	return out, nil
}
