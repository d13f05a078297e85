-- 0027_batches: batch operations by filter (runtime batch.go).
--
-- A batch is created preparing, with its operation, parameters and the
-- instance filter (JSON the runtime owns); the filter is resolved into
-- batch_items page by page (cursor: the last instance id stored, where a
-- batch left preparing resumes). The items are then acted on one by one,
-- each outcome recorded with the batch's counters in one transaction.
-- owner and lease_until say which node runs the batch on a cluster.
CREATE TABLE batches (
    id          TEXT PRIMARY KEY,
    operation   TEXT NOT NULL,
    params      TEXT NOT NULL,    -- JSON
    filter      TEXT NOT NULL,    -- JSON
    state       TEXT NOT NULL,    -- preparing, running, paused, completed, cancelled
    created_by  TEXT NOT NULL,
    created_at  INTEGER NOT NULL,
    finished_at INTEGER,
    cursor      TEXT NOT NULL DEFAULT '',
    total       INTEGER NOT NULL DEFAULT 0,
    done        INTEGER NOT NULL DEFAULT 0,
    failed      INTEGER NOT NULL DEFAULT 0,
    owner       TEXT NOT NULL DEFAULT '',
    lease_until INTEGER NOT NULL DEFAULT 0
) STRICT;

CREATE INDEX batches_created ON batches (created_at, id);
CREATE INDEX batches_open ON batches (created_at) WHERE state IN ('preparing', 'running');

CREATE TABLE batch_items (
    batch_id    TEXT NOT NULL REFERENCES batches (id),
    seq         INTEGER NOT NULL,
    instance_id TEXT NOT NULL,
    status      TEXT NOT NULL,    -- pending, done, failed
    reason      TEXT NOT NULL,
    PRIMARY KEY (batch_id, seq)
) STRICT;

CREATE UNIQUE INDEX batch_items_instance ON batch_items (batch_id, instance_id);
