package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/gobpm/gobpm/internal/store"
)

// The statistics rollups (migration 0021): each step's commit applies its
// store.StatsOf delta. The rows of an instance — one per element
// activation or wait still open — are written with the step's other
// statements (applyStats); the shared rows — a counter row per element and
// hour, a histogram per element, kind and hour — are summed over the
// commit's steps (store.StatsBatch) and written once each after them
// (writeSharedStats): a counter upsert per row, a histogram read and write
// per histogram, however many steps of the commit touched it. A
// statistics query reads rollup rows only (one histogram per element, kind
// and hour).
const (
	upsertStatCountsSQL = `INSERT INTO stat_counts (process_key, hour, process_version, node_id,
		activations, completions, incidents, cancellations, failures, active_max, wait_max)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (process_key, hour, process_version, node_id) DO UPDATE SET
		activations = activations + excluded.activations, completions = completions + excluded.completions,
		incidents = incidents + excluded.incidents, cancellations = cancellations + excluded.cancellations,
		failures = failures + excluded.failures,
		active_max = max(active_max, excluded.active_max), wait_max = max(wait_max, excluded.wait_max)`
	// selectStatHistSQL and upsertStatHistSQL read and write one
	// histogram (the writer's transaction makes the pair atomic).
	selectStatHistSQL = `SELECT hist FROM stat_durations
		WHERE process_key = ? AND hour = ? AND process_version = ? AND node_id = ? AND kind = ?`
	upsertStatHistSQL = `INSERT INTO stat_durations (process_key, hour, process_version, node_id, kind, hist)
		VALUES (?, ?, ?, ?, ?, ?)
		ON CONFLICT (process_key, hour, process_version, node_id, kind) DO UPDATE SET hist = excluded.hist`
	// upsertStatOpenSQL: an element's activation replaces the track's
	// previous one; a wait written again (a job failed) keeps its start.
	upsertStatOpenSQL = `INSERT INTO stat_open (instance_seq, item, node_id, since) VALUES (?, ?, ?, ?)
		ON CONFLICT (instance_seq, item) DO UPDATE SET node_id = excluded.node_id, since = excluded.since
		WHERE substr(excluded.item, 1, 2) = 't:'`
	closeStatOpenSQL       = `DELETE FROM stat_open WHERE instance_seq = ? AND item = ? RETURNING node_id, since`
	deleteInstanceStatsSQL = `DELETE FROM stat_open WHERE instance_seq = ?`
	// closeInstanceStatsSQL forgets every item of an instance, answering
	// them (closeAllStats). Argument: seq.
	closeInstanceStatsSQL = `DELETE FROM stat_open WHERE instance_seq = ? RETURNING item, node_id, since`
	// statCountsSQL and statDurationsSQL sum a period's rollups of one
	// version (?4 > 0) or of all per element; statTimelineCountsSQL and
	// statTimelineDurationsSQL read the process's rows per hour.
	// Arguments: key, from hour, to hour, version.
	statCountsSQL = `SELECT node_id, 0, SUM(activations), SUM(completions), SUM(incidents), SUM(cancellations),
		SUM(failures), MAX(active_max), MAX(wait_max) FROM stat_counts
		WHERE process_key = ?1 AND hour >= ?2 AND hour < ?3 AND (?4 = 0 OR process_version = ?4) GROUP BY node_id`
	statDurationsSQL = `SELECT node_id, 0, kind, hist FROM stat_durations
		WHERE process_key = ?1 AND hour >= ?2 AND hour < ?3 AND (?4 = 0 OR process_version = ?4)`
	statTimelineCountsSQL = `SELECT node_id, hour, SUM(activations), SUM(completions), SUM(incidents), SUM(cancellations),
		SUM(failures), MAX(active_max), MAX(wait_max) FROM stat_counts
		WHERE process_key = ?1 AND hour >= ?2 AND hour < ?3 AND (?4 = 0 OR process_version = ?4) AND node_id = '' GROUP BY node_id, hour`
	statTimelineDurationsSQL = `SELECT node_id, hour, kind, hist FROM stat_durations
		WHERE process_key = ?1 AND hour >= ?2 AND hour < ?3 AND (?4 = 0 OR process_version = ?4) AND node_id = ''`
)

var _ store.StatisticsStore = (*DB)(nil)

// applyStats applies the rollup changes of step s of instance seq that are
// the instance's own (its open items) and adds those of the shared rows to
// sb, which writeSharedStats writes once the commit's steps are in.
func applyStats(st *txStmts, sb *store.StatsBatch, seq int64, s *store.StepRecord) error {
	d := sb.Add(s)
	if d.Ended && len(d.Closes) >= closeAllStatsFrom {
		return closeAllStats(st, sb, &d, seq)
	}
	for _, c := range d.Closes {
		var (
			node  string
			since int64
		)
		err := st.queryRow(closeStatOpenSQL, seq, c.Item).Scan(&node, &since)
		if errors.Is(err, sql.ErrNoRows) {
			continue // opened before the statistics existed
		}
		if err != nil {
			return fmt.Errorf("close statistics item %s: %w", c.Item, err)
		}
		sb.Closed(&d, c, node, since)
	}
	if d.Ended {
		if _, err := st.exec(deleteInstanceStatsSQL, seq); err != nil {
			return fmt.Errorf("forget statistics items: %w", err)
		}
	}
	for _, o := range d.Opens {
		if _, err := st.exec(upsertStatOpenSQL, seq, o.Item, o.NodeID, o.Since.UnixMilli()); err != nil {
			return fmt.Errorf("open statistics item %s: %w", o.Item, err)
		}
	}
	return nil
}

// closeAllStatsFrom is how many items an ending step must close for
// closeAllStats to read them all in one range delete rather than one point
// delete each (a cancelled 40,000-iteration multi-instance closes 40,000).
const closeAllStatsFrom = 32

// closeAllStats is applyStats for a step that ends its instance and closes
// many items: one statement deletes every open item of instance seq and
// the closes are read from its answer; then the step's opens apply, as in
// applyStats.
func closeAllStats(st *txStmts, sb *store.StatsBatch, d *store.StatsDelta, seq int64) error {
	type open struct {
		node  string
		since int64
	}
	rows, err := st.query(closeInstanceStatsSQL, seq)
	if err != nil {
		return fmt.Errorf("close the statistics items of an ended instance: %w", err)
	}
	defer rows.Close()
	items := map[string]open{}
	for rows.Next() {
		var (
			item string
			o    open
		)
		if err := rows.Scan(&item, &o.node, &o.since); err != nil {
			return fmt.Errorf("close the statistics items of an ended instance: %w", err)
		}
		items[item] = o
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("close the statistics items of an ended instance: %w", err)
	}
	for _, c := range d.Closes {
		o, ok := items[c.Item]
		if !ok {
			continue // opened before the statistics existed (or closed twice)
		}
		delete(items, c.Item)
		sb.Closed(d, c, o.node, o.since)
	}
	for _, o := range d.Opens {
		if _, err := st.exec(upsertStatOpenSQL, seq, o.Item, o.NodeID, o.Since.UnixMilli()); err != nil {
			return fmt.Errorf("open statistics item %s: %w", o.Item, err)
		}
	}
	return nil
}

// writeSharedStats writes the shared rollup rows a commit's steps summed
// in sb, each once: a counter upsert per element and hour, a histogram
// read and write per element, kind and hour, in the batch's row order.
func writeSharedStats(st *txStmts, sb *store.StatsBatch) error {
	for r, c := range sb.Counts() {
		if _, err := st.exec(upsertStatCountsSQL, r.ProcessKey, r.Hour, r.Version, r.NodeID,
			c.Activations, c.Completions, c.Incidents, c.Cancellations, c.Failures, c.ActiveMax, c.WaitMax); err != nil {
			return fmt.Errorf("statistics of %s at %s: %w", r.ProcessKey, r.NodeID, err)
		}
	}
	for k, dense := range sb.Hists() {
		var blob []byte
		err := st.queryRow(selectStatHistSQL, k.ProcessKey, k.Hour, k.Version, k.NodeID, k.Kind).Scan(&blob)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("durations of %s at %s: %w", k.ProcessKey, k.NodeID, err)
		}
		h := make(map[int]int64, len(dense))
		for b, n := range dense {
			if n != 0 {
				h[b] = n
			}
		}
		if err := store.DecodeStatsHist(blob, h); err != nil {
			return fmt.Errorf("durations of %s at %s: %w", k.ProcessKey, k.NodeID, err)
		}
		if _, err := st.exec(upsertStatHistSQL, k.ProcessKey, k.Hour, k.Version, k.NodeID, k.Kind, store.EncodeStatsHist(h)); err != nil {
			return fmt.Errorf("durations of %s at %s: %w", k.ProcessKey, k.NodeID, err)
		}
	}
	return nil
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
	err := db.readWith(ctx, func(st *txStmts) error {
		rs, err := st.query(countsSQL, f.ProcessKey, from, to, f.Version)
		if err != nil {
			return err
		}
		for rs.Next() {
			var k store.StatsKey
			var c store.StatsCounts
			if err := rs.Scan(&k.NodeID, &k.Hour, &c.Activations, &c.Completions, &c.Incidents,
				&c.Cancellations, &c.Failures, &c.ActiveMax, &c.WaitMax); err != nil {
				_ = rs.Close()
				return err
			}
			row(k).StatsCounts = c
		}
		if err := rs.Close(); err != nil {
			return err
		}
		if err := rs.Err(); err != nil {
			return err
		}
		rs, err = st.query(durationsSQL, f.ProcessKey, from, to, f.Version)
		if err != nil {
			return err
		}
		defer rs.Close()
		type histKey struct {
			store.StatsKey
			kind string
		}
		dense := map[histKey][]int64{}
		for rs.Next() {
			var (
				k    histKey
				blob sql.RawBytes
			)
			if err := rs.Scan(&k.NodeID, &k.Hour, &k.kind, &blob); err != nil {
				return err
			}
			if dense[k], err = store.AddStatsHist(blob, dense[k]); err != nil {
				return err
			}
		}
		for k, h := range dense {
			r := row(k.StatsKey)
			into := r.Wait
			if k.kind == store.StatsActive {
				into = r.Active
			}
			for b, n := range h {
				if n != 0 {
					into[b] += n
				}
			}
		}
		return rs.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("store: statistics of %s: %w", f.ProcessKey, err)
	}
	out := make([]store.StatsRow, 0, len(rows))
	for _, r := range rows {
		out = append(out, *r)
	}
	return out, nil
}
