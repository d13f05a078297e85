-- 0002_waits: the queryable copy of every wait of an instance (jobs for
-- workers, user tasks, timers, message and signal subscriptions) and the
-- schedules of timer start events.
--
-- Conventions (as in 0001):
--   * Times are INTEGER unix nanoseconds, UTC. due_at is NULL when the wait
--     has none; lock_owner and lock_expires_at are both NULL while a job is
--     not locked.
--   * Optional text columns are NOT NULL DEFAULT ''.
--   * candidate_users and candidate_groups are JSON arrays of strings, '[]'
--     when empty, matched with json_each.
--
-- The engine owns the waits (they are part of the checkpoint); a step
-- inserts, replaces or deletes these rows by id in its transaction. Only the
-- lock columns are written outside a step, by job activation.
--
-- instance_id is '' for start-timer rows, which belong to a process key, not
-- to an instance; hence no foreign key.
CREATE TABLE waits (
    id               TEXT    NOT NULL PRIMARY KEY,
    instance_id      TEXT    NOT NULL DEFAULT '',
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
    candidate_users  TEXT    NOT NULL DEFAULT '[]' CHECK (json_valid(candidate_users)),
    candidate_groups TEXT    NOT NULL DEFAULT '[]' CHECK (json_valid(candidate_groups)),
    created_at       INTEGER NOT NULL,
    lock_owner       TEXT,
    lock_expires_at  INTEGER
);

-- Job activation and NextJobAvailable (kind = 'job' AND name = ? ORDER BY
-- created_at, id), signal subscriptions (kind = 'signal' AND name = ?).
CREATE INDEX waits_kind_name ON waits (kind, name, created_at, id);

-- Message correlation: kind = 'message' AND name = ? AND correlation_key = ?
-- ORDER BY created_at, id, without scanning the other keys of the name.
CREATE INDEX waits_message ON waits (kind, name, correlation_key, created_at, id);

-- The timer scheduler: due timers earliest first and the next due time. A
-- partial index over both timer kinds keeps due_at order across them, so
-- "earliest first, at most n" reads only n entries and the next due time
-- reads one. The queries name it (INDEXED BY): the planner does not pick a
-- partial index over an IN term on its own.
CREATE INDEX waits_timers_due ON waits (due_at, id) WHERE kind IN ('timer', 'start-timer');

-- The waits of an instance (ending an instance), the tasks of an instance
-- oldest first and, with instance_id = '', the start timers of a key.
CREATE INDEX waits_instance ON waits (instance_id, kind, created_at, id);

-- The task inbox: all tasks oldest first, and tasks of an assignee.
CREATE INDEX waits_kind_created  ON waits (kind, created_at, id);
CREATE INDEX waits_kind_assignee ON waits (kind, assignee, created_at, id);
