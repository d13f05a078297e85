-- 0021_statistics: element statistics as rollups (docs/statistics.md). Every
-- step's commit updates them in its transaction (store.StatsOf): per
-- process key, UTC hour (Unix seconds), version and element ('' for the
-- process itself) the counters and maxima, and per duration kind ('active',
-- 'wait') a log-scale histogram (store.StatsBucket) in one blob
-- (store.EncodeStatsHist), so a period reads one row per element, kind and hour. A statistics query
-- reads these rows only; history retention does not touch them. The key
-- leads with the process and the hour, so a period of one version or of all
-- is one range of the key. Statistics start at this migration: history
-- written before is not rolled up. IF NOT EXISTS: a test that takes a
-- database back to an older version applies this file again.
CREATE TABLE IF NOT EXISTS stat_counts (
    process_key     TEXT    NOT NULL,
    hour            INTEGER NOT NULL,
    process_version INTEGER NOT NULL,
    node_id         TEXT    NOT NULL,
    activations     INTEGER NOT NULL DEFAULT 0,
    completions     INTEGER NOT NULL DEFAULT 0,
    incidents       INTEGER NOT NULL DEFAULT 0,
    cancellations   INTEGER NOT NULL DEFAULT 0,
    failures        INTEGER NOT NULL DEFAULT 0,
    active_max      INTEGER NOT NULL DEFAULT -1,
    wait_max        INTEGER NOT NULL DEFAULT -1,
    PRIMARY KEY (process_key, hour, process_version, node_id)
) WITHOUT ROWID, STRICT;

CREATE TABLE IF NOT EXISTS stat_durations (
    process_key     TEXT    NOT NULL,
    hour            INTEGER NOT NULL,
    process_version INTEGER NOT NULL,
    node_id         TEXT    NOT NULL,
    kind            TEXT    NOT NULL,
    hist            BLOB    NOT NULL,
    PRIMARY KEY (process_key, hour, process_version, node_id, kind)
) WITHOUT ROWID, STRICT;

-- stat_open: the element activations ('t:' track) and waits ('w:' wait id)
-- of running instances whose end is still to come, with their start in Unix
-- milliseconds; the step that ends one reads and deletes its row, the step
-- that ends the instance deletes the rest.
CREATE TABLE IF NOT EXISTS stat_open (
    instance_seq INTEGER NOT NULL,
    item         TEXT    NOT NULL,
    node_id      TEXT    NOT NULL,
    since        INTEGER NOT NULL,
    PRIMARY KEY (instance_seq, item)
) WITHOUT ROWID, STRICT;
