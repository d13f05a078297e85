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
// histogram upsert per duration, a row per element activation or wait
// still open — so a statistics query reads rollup rows only.
const (
	upsertStatCountsSQL = `INSERT INTO stat_counts (process_key, hour, process_version, node_id,
		activations, completions, incidents, cancellations, failures, active_max, wait_max)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (process_key, hour, process_version, node_id) DO UPDATE SET
		activations = activations + excluded.activations, completions = completions + excluded.completions,
		incidents = incidents + excluded.incidents, cancellations = cancellations + excluded.cancellations,
		failures = failures + excluded.failures,
		active_max = max(active_max, excluded.active_max), wait_max = max(wait_max, excluded.wait_max)`
	upsertStatDurationSQL = `INSERT INTO stat_durations (process_key, hour, process_version, node_id, kind, bucket, n)
		VALUES (?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (process_key, hour, process_version, node_id, kind, bucket) DO UPDATE SET n = n + excluded.n`
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
	statDurationsSQL = `SELECT node_id, 0, kind, bucket, SUM(n) FROM stat_durations
		WHERE process_key = ?1 AND hour >= ?2 AND hour < ?3 AND (?4 = 0 OR process_version = ?4) GROUP BY node_id, kind, bucket`
	statTimelineCountsSQL = `SELECT node_id, hour, SUM(activations), SUM(completions), SUM(incidents), SUM(cancellations),
		SUM(failures), MAX(active_max), MAX(wait_max) FROM stat_counts
		WHERE process_key = ?1 AND hour >= ?2 AND hour < ?3 AND (?4 = 0 OR process_version = ?4) AND node_id = '' GROUP BY node_id, hour`
	statTimelineDurationsSQL = `SELECT node_id, hour, kind, bucket, SUM(n) FROM stat_durations
		WHERE process_key = ?1 AND hour >= ?2 AND hour < ?3 AND (?4 = 0 OR process_version = ?4) AND node_id = '' GROUP BY node_id, hour, kind, bucket`
)

func init() {
	writeQueries = append(writeQueries, upsertStatCountsSQL, upsertStatDurationSQL, upsertStatOpenSQL, closeStatOpenSQL, deleteInstanceStatsSQL)
	readQueries = append(readQueries, statCountsSQL, statDurationsSQL, statTimelineCountsSQL, statTimelineDurationsSQL)
}

var _ store.StatisticsStore = (*DB)(nil)

// statDurationKey sums a step's durations into one upsert per bucket.
type statDurationKey struct {
	node, kind string
	hour       int64
	bucket     int
}

// applyStats applies the rollup changes of step s of instance seq.
func applyStats(st *txStmts, seq int64, s *store.StepRecord) error {
	d := store.StatsOf(s)
	durations := map[statDurationKey]int64{}
	for _, m := range d.Durations {
		durations[statDurationKey{m.NodeID, m.Kind, m.Hour, store.StatsBucket(m.MS)}]++
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
		durations[statDurationKey{node, c.Kind, hour, store.StatsBucket(ms)}]++
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
	for k, n := range durations {
		if _, err := st.exec(upsertStatDurationSQL, d.Key, k.hour, d.Version, k.node, k.kind, k.bucket, n); err != nil {
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
		for rs.Next() {
			var (
				k      store.StatsKey
				kind   string
				bucket int
				n      int64
			)
			if err := rs.Scan(&k.NodeID, &k.Hour, &kind, &bucket, &n); err != nil {
				return err
			}
			r := row(k)
			if kind == store.StatsActive {
				r.Active[bucket] += n
			} else {
				r.Wait[bucket] += n
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
