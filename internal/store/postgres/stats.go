package postgres

import (
	"context"
	"fmt"
	"sort"

	"github.com/jackc/pgx/v5"

	"github.com/gobpm/gobpm/internal/store"
)

// The statistics rollups (migration 0014): each step's commit queues its
// store.StatsOf delta — a counter upsert per element and hour it touched,
// a histogram upsert per element, kind and hour it measured (an array
// added element by element), a row per element activation or wait still
// open. A step's statements are pipelined, so an end that needs
// the start an earlier step recorded is one statement that deletes the
// open row and adds the measured duration (stepCloseStatSQL), with the
// bucket computed as store.StatsBucket does.
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
	// stepCloseStatSQL ends an open item ($2) of instance $1 at $3 (Unix
	// ms); with $4 it records the duration: for an element ($5 = 'active')
	// when the element opened is $6, for a wait when its element is one of
	// $7 (those that went on in the step). $8–$10: key, hour, version.
	stepCloseStatSQL = `WITH c AS (
		    DELETE FROM stat_open WHERE instance_seq = ` + seqOf + ` AND item = $2 RETURNING node_id, since
		), m AS (
		    SELECT node_id, ms, CASE WHEN ms < 1 THEN 0 ELSE LEAST(1 + floor(ln(ms::float8) / ln(1.1::float8))::int, ` + maxBucket + `) END AS bucket
		    FROM (SELECT node_id, GREATEST($3::bigint - since, 0) AS ms FROM c
		        WHERE $4::boolean AND (($5::text = 'active' AND node_id = $6::text) OR ($5::text = 'wait' AND node_id = ANY($7::text[])))) AS x
		), d AS (
		    INSERT INTO stat_durations (process_key, hour, process_version, node_id, kind, hist)
		    SELECT $8::text, $9::bigint, $10::int, node_id, $5::text, array_fill(0::bigint, ARRAY[bucket]) || 1::bigint FROM m
		    ON CONFLICT (process_key, hour, process_version, node_id, kind) DO UPDATE SET hist = ` + addHists + `
		)
		INSERT INTO stat_counts (process_key, hour, process_version, node_id, active_max, wait_max)
		SELECT $8::text, $9::bigint, $10::int, node_id, CASE WHEN $5::text = 'active' THEN ms ELSE -1 END,
		    CASE WHEN $5::text = 'wait' THEN ms ELSE -1 END FROM m
		ON CONFLICT (process_key, hour, process_version, node_id) DO UPDATE SET
		    active_max = GREATEST(stat_counts.active_max, excluded.active_max),
		    wait_max = GREATEST(stat_counts.wait_max, excluded.wait_max)`
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

// maxBucket is store.StatsMaxBucket as SQL text (a test keeps them equal).
const maxBucket = "300"

// addHists is the sum of the row's histogram and the one inserted,
// element by element (unnest pads the shorter with NULLs).
const addHists = `ARRAY(SELECT COALESCE(a, 0) + COALESCE(b, 0)
	FROM unnest(stat_durations.hist, excluded.hist) WITH ORDINALITY AS u(a, b, i) ORDER BY i)`

var _ store.StatisticsStore = (*DB)(nil)

// queueStats queues the rollup changes of step i (s), in a fixed order of
// rows so that two nodes' batches take the rows' locks in the same order.
func queueStats(sb *stepBatch, i int, s *store.StepRecord) {
	d := store.StatsOf(s)
	id := string(s.Instance.ID)
	for _, c := range d.Closes {
		sb.exec(i, nil, stepCloseStatSQL, id, c.Item, c.At.UnixMilli(), c.Record, c.Kind, c.NodeID, d.Went,
			d.Key, store.StatsHour(c.At), d.Version)
	}
	if d.Ended {
		sb.exec(i, nil, stepDeleteInstanceStatsSQL, id)
	}
	for _, o := range d.Opens {
		sb.exec(i, nil, stepUpsertStatOpenSQL, id, o.Item, o.NodeID, o.Since.UnixMilli())
	}
	keys := make([]store.StatsKey, 0, len(d.Counts))
	for k := range d.Counts {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(a, b int) bool {
		if keys[a].Hour != keys[b].Hour {
			return keys[a].Hour < keys[b].Hour
		}
		return keys[a].NodeID < keys[b].NodeID
	})
	for _, k := range keys {
		c := d.Counts[k]
		sb.exec(i, nil, stepUpsertStatCountsSQL, d.Key, k.Hour, k.Version, k.NodeID,
			c.Activations, c.Completions, c.Incidents, c.Cancellations, c.Failures, c.ActiveMax, c.WaitMax)
	}
	type hk struct {
		hour       int64
		node, kind string
	}
	hists := map[hk][]int64{}
	var order []hk
	for _, m := range d.Durations {
		k := hk{m.Hour, m.NodeID, m.Kind}
		h, ok := hists[k]
		if !ok {
			order = append(order, k)
		}
		b := store.StatsBucket(m.MS)
		for len(h) <= b {
			h = append(h, 0)
		}
		h[b]++
		hists[k] = h
	}
	sort.Slice(order, func(a, b int) bool {
		x, y := order[a], order[b]
		if x.hour != y.hour {
			return x.hour < y.hour
		}
		if x.node != y.node {
			return x.node < y.node
		}
		return x.kind < y.kind
	})
	for _, k := range order {
		sb.exec(i, nil, stepUpsertStatHistSQL, d.Key, k.hour, d.Version, k.node, k.kind, hists[k])
	}
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
