-- 0014_statistics: element statistics as rollups (the SQLite store's 0021;
-- docs/statistics.md). Every step's commit updates them in its transaction
-- (store.StatsOf): per process key, UTC hour (Unix seconds), version and
-- element ('' for the process itself) the counters and maxima, and per
-- duration kind ('active', 'wait') a log-scale histogram
-- (store.StatsBucket) as one array (element b+1 counts bucket b), so a
-- period reads one row per element, kind and hour. A statistics query reads these rows only; history
-- retention does not touch them. Statistics start at this migration. IF NOT EXISTS: tests that take a
-- database back to an older version apply this file again.
CREATE TABLE IF NOT EXISTS stat_counts (
    process_key     TEXT COLLATE "C" NOT NULL,
    hour            BIGINT  NOT NULL,
    process_version INTEGER NOT NULL,
    node_id         TEXT COLLATE "C" NOT NULL,
    activations     BIGINT  NOT NULL DEFAULT 0,
    completions     BIGINT  NOT NULL DEFAULT 0,
    incidents       BIGINT  NOT NULL DEFAULT 0,
    cancellations   BIGINT  NOT NULL DEFAULT 0,
    failures        BIGINT  NOT NULL DEFAULT 0,
    active_max      BIGINT  NOT NULL DEFAULT -1,
    wait_max        BIGINT  NOT NULL DEFAULT -1,
    PRIMARY KEY (process_key, hour, process_version, node_id)
);

CREATE TABLE IF NOT EXISTS stat_durations (
    process_key     TEXT COLLATE "C" NOT NULL,
    hour            BIGINT  NOT NULL,
    process_version INTEGER NOT NULL,
    node_id         TEXT COLLATE "C" NOT NULL,
    kind            TEXT COLLATE "C" NOT NULL,
    hist            BIGINT[] NOT NULL,
    PRIMARY KEY (process_key, hour, process_version, node_id, kind)
);

-- stat_open: the element activations ('t:' track) and waits ('w:' wait id)
-- of running instances whose end is still to come, with their start in Unix
-- milliseconds; the step that ends one deletes its row (and measures it), the
-- step that ends the instance deletes the rest.
CREATE TABLE IF NOT EXISTS stat_open (
    instance_seq BIGINT NOT NULL,
    item         TEXT COLLATE "C" NOT NULL,
    node_id      TEXT COLLATE "C" NOT NULL,
    since        BIGINT NOT NULL,
    PRIMARY KEY (instance_seq, item)
);
