package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/gobpm/gobpm/internal/store"
)

// The statistics rollups (migration 0021): each step's commit applies its
// store.StatsOf delta — a counter upsert per element and hour it touched, a
// histogram read and write per element, kind and hour it measured, a row
// per element activation or wait still open — so a statistics query reads
// rollup rows only (one histogram per element, kind and hour).
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

func init() {
	writeQueries = append(writeQueries, upsertStatCountsSQL, selectStatHistSQL, upsertStatHistSQL, upsertStatOpenSQL, closeStatOpenSQL, deleteInstanceStatsSQL)
	readQueries = append(readQueries, statCountsSQL, statDurationsSQL, statTimelineCountsSQL, statTimelineDurationsSQL)
}

var _ store.StatisticsStore = (*DB)(nil)

// statHistKey names the histogram a step's duration goes into.
type statHistKey struct {
	hour       int64
	node, kind string
}

// applyStats applies the rollup changes of step s of instance seq.
func applyStats(st *txStmts, seq int64, s *store.StepRecord) error {
	d := store.StatsOf(s)
	durations := map[statHistKey]map[int]int64{}
	measure := func(k statHistKey, ms int64) {
		h := durations[k]
		if h == nil {
			h = map[int]int64{}
			durations[k] = h
		}
		h[store.StatsBucket(ms)]++
	}
	for _, m := range d.Durations {
		measure(statHistKey{m.Hour, m.NodeID, m.Kind}, m.MS)
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
		if !c.Record || (c.Kind == store.StatsActive && node != c.NodeID) || (c.Kind == store.StatsWait && !d.WentOn(node)) {
			continue
		}
		ms := max(c.At.UnixMilli()-since, 0)
		hour := store.StatsHour(c.At)
		measure(statHistKey{hour, node, c.Kind}, ms)
		k := store.StatsKey{Version: d.Version, NodeID: node, Hour: hour}
		cnt, ok := d.Counts[k]
		if !ok {
			cnt = store.StatsCounts{ActiveMax: -1, WaitMax: -1}
		}
		if c.Kind == store.StatsActive {
			cnt.ActiveMax = max(cnt.ActiveMax, ms)
		} else {
			cnt.WaitMax = max(cnt.WaitMax, ms)
		}
		d.Counts[k] = cnt
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
	for k, c := range d.Counts {
		if _, err := st.exec(upsertStatCountsSQL, d.Key, k.Hour, k.Version, k.NodeID,
			c.Activations, c.Completions, c.Incidents, c.Cancellations, c.Failures, c.ActiveMax, c.WaitMax); err != nil {
			return fmt.Errorf("statistics of %s at %s: %w", d.Key, k.NodeID, err)
		}
	}
	for k, h := range durations {
		var blob []byte
		err := st.queryRow(selectStatHistSQL, d.Key, k.hour, d.Version, k.node, k.kind).Scan(&blob)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("durations of %s at %s: %w", d.Key, k.node, err)
		}
		if err := store.DecodeStatsHist(blob, h); err != nil {
			return fmt.Errorf("durations of %s at %s: %w", d.Key, k.node, err)
		}
		if _, err := st.exec(upsertStatHistSQL, d.Key, k.hour, d.Version, k.node, k.kind, store.EncodeStatsHist(h)); err != nil {
			return fmt.Errorf("durations of %s at %s: %w", d.Key, k.node, err)
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
