-- 0004_outbox: the after-commit work of steps, made durable.
--
-- A step can ask for work that runs after it commits: broadcast a signal it
-- threw ('signal'), hand an ended child's outcome to its caller
-- ('child-ended'), terminate a child whose call was withdrawn
-- ('cancel-child'). Each such request is a row written in the step's own
-- transaction, so it is never lost with a crash between the commit and the
-- work. The runtime performs a row and deletes it once the work succeeded
-- (or became moot); rows left behind by a crash or a failed attempt are
-- performed again, oldest first (id order): delivery is at least once.
--
-- payload is the kind's JSON document. created_at is INTEGER unix
-- nanoseconds, UTC (the step's time), as in 0001.
CREATE TABLE outbox (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    instance_id TEXT    NOT NULL REFERENCES instances (id),
    kind        TEXT    NOT NULL CHECK (kind IN ('signal', 'child-ended', 'cancel-child')),
    payload     TEXT    NOT NULL CHECK (json_valid(payload)),
    created_at  INTEGER NOT NULL
);
