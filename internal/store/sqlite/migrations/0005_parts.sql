-- 0005_parts: instance state stored as the parts a step touches; compact
-- rows; indexes that serve every instance list with its order.
--
-- What changes:
--   * instances gets an integer surrogate key (seq, the rowid) that facts
--     and parts refer to, so the instance id is stored once per instance
--     rather than in every child row. Its checkpoint column becomes state:
--     the encoded state header (state_format 2) or, for rows written before
--     this migration, the whole format-1 checkpoint (state_format 1) until
--     the runtime upgrades them (LegacyInstances, ReplaceState).
--   * instance_parts holds the state parts (scopes, tracks, waits, ...) by
--     (instance, kind, key); a step inserts, replaces or deletes only the
--     parts it changed. The scopes table, rewritten by every step, is gone:
--     scopes are parts now.
--   * kinds names fact and part kinds once; facts and parts store the
--     small integer.
--   * facts holds one row per step (the facts it appended, packed), with
--     times relative to the instance's creation.
--   * waits become WITHOUT ROWID (their id is the key every index carries
--     anyway) and get one partial index per kind instead of indexes every
--     wait pays for; a wait whose id names its instance has no instance
--     column and no waits_instance entry (its id's range is the index).
--   * Instance, wait and job ids that are canonical UUIDs (36 lowercase
--     characters 8-4-4-4-12) are stored as their 16 bytes (a BLOB), ids
--     "<UUID>-w%06d" (the engine's wait ids) as the UUID's bytes followed
--     by the counter as an order-preserving varint; any other id stays
--     TEXT. A BLOB never equals a TEXT, so the encodings never collide; the
--     store encodes and decodes them. This applies to instances.id and
--     parent_id, waits.id and instance_id, incidents.instance_id and
--     outbox.instance_id, and to part keys (where "<the instance's
--     id>-w%06d" is just the INTEGER counter).
--
-- Conventions (as in 0001): times are INTEGER unix nanoseconds, UTC;
-- optional text columns are NOT NULL DEFAULT ''.
--
-- The tables are rebuilt: the old ones are renamed out of the way (which
-- points their foreign keys at the renamed parent), the new ones created
-- under the final names, the rows copied, the old tables dropped, children
-- first.

ALTER TABLE outbox    RENAME TO outbox_old;
ALTER TABLE facts     RENAME TO facts_old;
ALTER TABLE incidents RENAME TO incidents_old;
ALTER TABLE waits     RENAME TO waits_old;
ALTER TABLE instances RENAME TO instances_old;
DROP TABLE scopes;

-- instances: one row per process instance. seq is internal (children refer
-- to it); the API knows only id. status is one of the four runtime
-- statuses: the list queries rely on the set being closed.
CREATE TABLE instances (
    seq             INTEGER PRIMARY KEY,
    id              TEXT    NOT NULL UNIQUE,
    process_key     TEXT    NOT NULL,
    process_version INTEGER NOT NULL,
    status          TEXT    NOT NULL CHECK (status IN ('running', 'completed', 'terminated', 'failed')),
    business_key    TEXT    NOT NULL DEFAULT '',
    parent_id       TEXT    NOT NULL DEFAULT '',
    parent_node_id  TEXT    NOT NULL DEFAULT '',
    created_at      INTEGER NOT NULL,
    -- updated_after is the time of the last step in nanoseconds after
    -- created_at: 0, hence no bytes, until an instance takes a second step.
    updated_after   INTEGER NOT NULL DEFAULT 0,
    ended_at        INTEGER,
    revision        INTEGER NOT NULL CHECK (revision > 0),
    state_format    INTEGER NOT NULL DEFAULT 2 CHECK (state_format IN (1, 2)),
    state           BLOB    NOT NULL
);

-- kinds names the kinds of facts and parts; rows refer to them by id.
CREATE TABLE kinds (
    id   INTEGER PRIMARY KEY,
    name TEXT    NOT NULL UNIQUE
);

-- instance_parts: the state of an instance beyond its header. data is
-- opaque to the store; ord orders the parts of one kind (keyset paging).
-- key is an id as the store encodes ids (TEXT, or a UUID's bytes), or an
-- INTEGER n for the key "<the instance's id>-w%06d" of n (a wait part's
-- key is its wait's id, which the engine builds that way); BLOB affinity
-- keeps each as it is written.
CREATE TABLE instance_parts (
    instance_seq INTEGER NOT NULL REFERENCES instances (seq),
    kind         INTEGER NOT NULL,
    key          BLOB    NOT NULL,
    ord          INTEGER NOT NULL,
    data         BLOB    NOT NULL,
    PRIMARY KEY (instance_seq, kind, key)
) WITHOUT ROWID;

-- facts: the append-only history. One row holds the facts one step
-- appended (a step writes several; a row each cost more in keys and
-- record headers than the facts themselves), keyed by instance and the
-- seq of its last fact, so the rows holding the facts after a seq start
-- at the first key above it. at is the time of the row's first fact in
-- nanoseconds after the instance's created_at. data is, for each fact in
-- seq order, LEB128 varints and bytes (the store's encodeFacts):
--   last seq - seq; zigzag(at - previous fact's at); kind (kinds.id);
--   node_id, then scope_path, each 0 if equal to the previous fact's (''
--   before the first), else len+1 and the bytes;
--   0 for no detail or len(detail)+1, detail (JSON; the store may write
--   it with its instance's id abbreviated, see the store's package doc).
CREATE TABLE facts (
    instance_seq INTEGER NOT NULL REFERENCES instances (seq),
    seq          INTEGER NOT NULL,
    at           INTEGER NOT NULL,
    data         BLOB    NOT NULL,
    PRIMARY KEY (instance_seq, seq)
) WITHOUT ROWID;

CREATE TABLE incidents (
    id          TEXT    NOT NULL PRIMARY KEY,
    instance_id TEXT    NOT NULL REFERENCES instances (id),
    node_id     TEXT    NOT NULL DEFAULT '',
    scope_id    TEXT    NOT NULL DEFAULT '',
    kind        TEXT    NOT NULL,
    message     TEXT    NOT NULL DEFAULT '',
    created_at  INTEGER NOT NULL,
    resolved_at INTEGER
);

-- waits: as in 0002, keyed by id without a rowid. instance_id is '' for
-- start-timer rows (a process key's schedule), hence no foreign key, and
-- NULL when the id names the instance: an id "<instance UUID>-w000001"
-- (the engine's wait ids), stored as the UUID's 16 bytes and a counter,
-- belongs to the instance its first 16 bytes name, so the instance's
-- waits are a range of the primary key and need no instance column nor
-- entry in waits_instance. The owner is COALESCE(instance_id, substr(id,
-- 1, 16)). Candidate lists are NULL when empty.
CREATE TABLE waits (
    id               TEXT    NOT NULL PRIMARY KEY,
    instance_id      TEXT,
    kind             TEXT    NOT NULL,
    node_id          TEXT    NOT NULL DEFAULT '',
    scope_id         TEXT    NOT NULL DEFAULT '',
    track_id         TEXT    NOT NULL DEFAULT '',
    process_key      TEXT    NOT NULL DEFAULT '',
    process_version  INTEGER NOT NULL DEFAULT 0,
    name             TEXT    NOT NULL DEFAULT '',
    correlation_key  TEXT    NOT NULL DEFAULT '',
    due_at           INTEGER,
    retries          INTEGER NOT NULL DEFAULT 0,
    error_message    TEXT    NOT NULL DEFAULT '',
    assignee         TEXT    NOT NULL DEFAULT '',
    candidate_users  TEXT    CHECK (candidate_users IS NULL OR json_valid(candidate_users)),
    candidate_groups TEXT    CHECK (candidate_groups IS NULL OR json_valid(candidate_groups)),
    created_at       INTEGER NOT NULL,
    lock_owner       TEXT,
    lock_expires_at  INTEGER
) WITHOUT ROWID;

CREATE TABLE outbox (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    instance_id TEXT    NOT NULL REFERENCES instances (id),
    kind        TEXT    NOT NULL CHECK (kind IN ('signal', 'child-ended', 'cancel-child')),
    payload     TEXT    NOT NULL CHECK (json_valid(payload)),
    created_at  INTEGER NOT NULL
);

-- Copy. Every existing instance keeps its checkpoint as a format-1 state;
-- seq follows the old rowid (insertion order).
INSERT INTO instances (seq, id, process_key, process_version, status, business_key, parent_id, parent_node_id,
                       created_at, updated_after, ended_at, revision, state_format, state)
SELECT rowid,
       CASE WHEN typeof(id) = 'text' AND length(id) = 36 AND id = lower(id)
                 AND substr(id, 9, 1) = '-' AND substr(id, 14, 1) = '-' AND substr(id, 19, 1) = '-' AND substr(id, 24, 1) = '-'
                 AND length(unhex(replace(id, '-', ''))) = 16
            THEN unhex(replace(id, '-', '')) ELSE id END,
       process_key, process_version, status, business_key,
       CASE WHEN typeof(parent_id) = 'text' AND length(parent_id) = 36 AND parent_id = lower(parent_id)
                 AND substr(parent_id, 9, 1) = '-' AND substr(parent_id, 14, 1) = '-' AND substr(parent_id, 19, 1) = '-' AND substr(parent_id, 24, 1) = '-'
                 AND length(unhex(replace(parent_id, '-', ''))) = 16
            THEN unhex(replace(parent_id, '-', '')) ELSE parent_id END,
       parent_node_id, created_at, updated_at - created_at, ended_at, revision, 1, checkpoint
FROM instances_old;

INSERT INTO kinds (name) SELECT DISTINCT kind FROM facts_old ORDER BY kind;

-- Each old fact becomes a row of its own (no step boundaries are known):
-- seq and time deltas 0, then the kind, the node and the scope path (0 if
-- empty, as the first fact's previous ones are), and the detail, each
-- varint written as hex (values below 2^35).
INSERT INTO facts (instance_seq, seq, at, data)
SELECT instance_seq, seq, at,
       unhex('0000' || CASE WHEN kind < 128 THEN printf('%02x', kind)
                WHEN kind < 16384 THEN printf('%02x%02x', (kind & 127) | 128, kind >> 7)
                WHEN kind < 2097152 THEN printf('%02x%02x%02x', (kind & 127) | 128, ((kind >> 7) & 127) | 128, kind >> 14)
                ELSE printf('%02x%02x%02x%02x%02x', (kind & 127) | 128, ((kind >> 7) & 127) | 128,
                            ((kind >> 14) & 127) | 128, ((kind >> 21) & 127) | 128, kind >> 28) END
             || CASE WHEN node = x'' THEN '00' ELSE CASE WHEN (length(node) + 1) < 128 THEN printf('%02x', (length(node) + 1))
                WHEN (length(node) + 1) < 16384 THEN printf('%02x%02x', ((length(node) + 1) & 127) | 128, (length(node) + 1) >> 7)
                WHEN (length(node) + 1) < 2097152 THEN printf('%02x%02x%02x', ((length(node) + 1) & 127) | 128, (((length(node) + 1) >> 7) & 127) | 128, (length(node) + 1) >> 14)
                ELSE printf('%02x%02x%02x%02x%02x', ((length(node) + 1) & 127) | 128, (((length(node) + 1) >> 7) & 127) | 128,
                            (((length(node) + 1) >> 14) & 127) | 128, (((length(node) + 1) >> 21) & 127) | 128, (length(node) + 1) >> 28) END || hex(node) END
             || CASE WHEN scope = x'' THEN '00' ELSE CASE WHEN (length(scope) + 1) < 128 THEN printf('%02x', (length(scope) + 1))
                WHEN (length(scope) + 1) < 16384 THEN printf('%02x%02x', ((length(scope) + 1) & 127) | 128, (length(scope) + 1) >> 7)
                WHEN (length(scope) + 1) < 2097152 THEN printf('%02x%02x%02x', ((length(scope) + 1) & 127) | 128, (((length(scope) + 1) >> 7) & 127) | 128, (length(scope) + 1) >> 14)
                ELSE printf('%02x%02x%02x%02x%02x', ((length(scope) + 1) & 127) | 128, (((length(scope) + 1) >> 7) & 127) | 128,
                            (((length(scope) + 1) >> 14) & 127) | 128, (((length(scope) + 1) >> 21) & 127) | 128, (length(scope) + 1) >> 28) END || hex(scope) END
             || CASE WHEN detail IS NULL THEN '00'
                ELSE CASE WHEN (length(detail) + 1) < 128 THEN printf('%02x', (length(detail) + 1))
                   WHEN (length(detail) + 1) < 16384 THEN printf('%02x%02x', ((length(detail) + 1) & 127) | 128, (length(detail) + 1) >> 7)
                   WHEN (length(detail) + 1) < 2097152 THEN printf('%02x%02x%02x', ((length(detail) + 1) & 127) | 128, (((length(detail) + 1) >> 7) & 127) | 128, (length(detail) + 1) >> 14)
                   ELSE printf('%02x%02x%02x%02x%02x', ((length(detail) + 1) & 127) | 128, (((length(detail) + 1) >> 7) & 127) | 128,
                               (((length(detail) + 1) >> 14) & 127) | 128, (((length(detail) + 1) >> 21) & 127) | 128, (length(detail) + 1) >> 28) END || hex(detail) END)
FROM (SELECT o.rowid AS instance_seq, f.seq AS seq, f.at - o.created_at AS at, k.id AS kind,
             CAST(f.node_id AS BLOB) AS node, CAST(f.scope_path AS BLOB) AS scope,
             CAST(NULLIF(f.detail, '') AS BLOB) AS detail
      FROM facts_old f JOIN instances_old o ON o.id = f.instance_id JOIN kinds k ON k.name = f.kind);

INSERT INTO incidents (id, instance_id, node_id, scope_id, kind, message, created_at, resolved_at)
SELECT x.id, n.id, x.node_id, x.scope_id, x.kind, x.message, x.created_at, x.resolved_at
FROM incidents_old x JOIN instances_old o ON o.id = x.instance_id JOIN instances n ON n.seq = o.rowid;

INSERT INTO waits (id, instance_id, kind, node_id, scope_id, track_id, process_key, process_version, name,
                   correlation_key, due_at, retries, error_message, assignee, candidate_users, candidate_groups,
                   created_at, lock_owner, lock_expires_at)
SELECT id,
       -- The owner is implied by an id that starts with its UUID.
       CASE WHEN typeof(id) = 'blob' AND length(id) > 16 AND typeof(owner) = 'blob' AND substr(id, 1, 16) = owner
            THEN NULL ELSE owner END,
       kind, node_id, scope_id, track_id, process_key, process_version, name, correlation_key, due_at, retries,
       error_message, assignee, NULLIF(candidate_users, '[]'), NULLIF(candidate_groups, '[]'), created_at,
       lock_owner, lock_expires_at
FROM (
SELECT CASE WHEN typeof(w.id) = 'text' AND length(w.id) = 36 AND w.id = lower(w.id)
                 AND substr(w.id, 9, 1) = '-' AND substr(w.id, 14, 1) = '-' AND substr(w.id, 19, 1) = '-' AND substr(w.id, 24, 1) = '-'
                 AND length(unhex(replace(w.id, '-', ''))) = 16
            THEN unhex(replace(w.id, '-', ''))
            -- A wait id "<UUID>-w%06d": the UUID's bytes and the counter as
            -- an order-preserving varint (counters below 2^40 here).
            WHEN typeof(w.id) = 'text' AND substr(w.id, 1, 36) = lower(substr(w.id, 1, 36))
                 AND substr(w.id, 9, 1) = '-' AND substr(w.id, 14, 1) = '-' AND substr(w.id, 19, 1) = '-' AND substr(w.id, 24, 1) = '-'
                 AND length(unhex(replace(substr(w.id, 1, 36), '-', ''))) = 16
                 AND substr(w.id, 37, 2) = '-w' AND length(w.id) BETWEEN 44 AND 50
                 AND substr(w.id, 39) NOT GLOB '*[^0-9]*'
                 AND printf('%06d', CAST(substr(w.id, 39) AS INTEGER)) = substr(w.id, 39)
            THEN unhex(replace(substr(w.id, 1, 36), '-', '') || (
                 SELECT CASE WHEN n <= 240 THEN printf('%02x', n)
                             WHEN n < 256 THEN 'f1' || printf('%02x', n)
                             WHEN n < 65536 THEN 'f2' || printf('%04x', n)
                             WHEN n < 16777216 THEN 'f3' || printf('%06x', n)
                             WHEN n < 4294967296 THEN 'f4' || printf('%08x', n)
                             ELSE 'f5' || printf('%010x', n) END
                 FROM (SELECT CAST(substr(w.id, 39) AS INTEGER) AS n)))
            ELSE w.id END AS id,
       COALESCE(n.id, w.instance_id) AS owner, w.kind, w.node_id, w.scope_id, w.track_id, w.process_key,
       w.process_version, w.name, w.correlation_key, w.due_at, w.retries, w.error_message, w.assignee,
       w.candidate_users, w.candidate_groups, w.created_at, w.lock_owner, w.lock_expires_at
FROM waits_old w LEFT JOIN instances_old o ON o.id = w.instance_id LEFT JOIN instances n ON n.seq = o.rowid);

INSERT INTO outbox (id, instance_id, kind, payload, created_at)
SELECT x.id, n.id, x.kind, x.payload, x.created_at
FROM outbox_old x JOIN instances_old o ON o.id = x.instance_id JOIN instances n ON n.seq = o.rowid;

-- Keep AUTOINCREMENT's promise across the rebuild: no outbox id is reused.
INSERT INTO sqlite_sequence (name, seq)
SELECT 'outbox', seq FROM sqlite_sequence WHERE name = 'outbox_old'
  AND NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = 'outbox');
UPDATE sqlite_sequence SET seq = (SELECT MAX(seq) FROM sqlite_sequence WHERE name IN ('outbox', 'outbox_old'))
WHERE name = 'outbox';

DROP TABLE outbox_old;
DROP TABLE facts_old;
DROP TABLE incidents_old;
DROP TABLE waits_old;
DROP TABLE instances_old;

-- Instance lists: every filter is an equality prefix followed by
-- created_at, and the rowid (seq) every index ends with breaks ties, so a
-- page is read in order and never sorted. A list without a status filter
-- reads one range per status (the set is closed) and merges them.
CREATE INDEX instances_status          ON instances (status, created_at);
CREATE INDEX instances_process         ON instances (process_key, status, created_at);
CREATE INDEX instances_process_version ON instances (process_key, process_version, status, created_at);
-- Most instances have no business key and no parent: partial indexes cost
-- them nothing. The queries repeat the index's condition.
CREATE INDEX instances_business_key ON instances (business_key, created_at) WHERE business_key <> '';
CREATE INDEX instances_parent       ON instances (parent_id, created_at) WHERE parent_id <> '';
-- The instances still to upgrade from a format-1 checkpoint, oldest first.
CREATE INDEX instances_legacy ON instances (created_at) WHERE state_format = 1;

CREATE INDEX incidents_instance ON incidents (instance_id, created_at);
CREATE INDEX incidents_open     ON incidents (created_at, id) WHERE resolved_at IS NULL;

-- Waits: the instance's waits whose id does not name it (ending an
-- instance, tasks of an instance, with instance_id = '' the start timers
-- of a key; the others are a range of the primary key), then one partial
-- index per kind, so an engine's job pays for one index, not six. The
-- queries spell the kind condition exactly as the index does.
CREATE INDEX waits_instance      ON waits (instance_id, kind, created_at) WHERE instance_id IS NOT NULL;
CREATE INDEX waits_jobs          ON waits (name, created_at) WHERE kind = 'job';
CREATE INDEX waits_signals       ON waits (name, created_at) WHERE kind = 'signal';
CREATE INDEX waits_messages      ON waits (name, correlation_key, created_at) WHERE kind = 'message';
CREATE INDEX waits_tasks         ON waits (created_at) WHERE kind = 'task';
CREATE INDEX waits_task_assignee ON waits (assignee, created_at) WHERE kind = 'task';
-- The timer scheduler, as in 0002 (the queries name it: INDEXED BY).
CREATE INDEX waits_timers_due    ON waits (due_at) WHERE kind IN ('timer', 'start-timer');
