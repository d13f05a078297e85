-- 0008_idempotency: idempotency keys of starts and messages.
--
-- A client that did not get an answer retries with the same Idempotency-Key;
-- the key is written in the transaction of the step the first request made
-- (the start of an instance, the delivery of a message), so the retry finds
-- it whenever that step committed, and acts again only when it did not.
--
-- key is "<scope> <client key>" (scope: "start:<processKey>" or
-- "message"); request_hash is the SHA-256 of the request's canonical form
-- (a key reused for another request is refused); answer is the JSON the
-- runtime replays; created_at is INTEGER unix nanoseconds, UTC. Keys older
-- than the window (24 h by default) count as unused and are deleted a few
-- at a time by later steps.
CREATE TABLE idempotency (
    key          TEXT    NOT NULL PRIMARY KEY,
    request_hash BLOB    NOT NULL CHECK (length(request_hash) = 32),
    instance_id  TEXT    NOT NULL,
    answer       TEXT    NOT NULL CHECK (json_valid(answer)),
    created_at   INTEGER NOT NULL
) WITHOUT ROWID, STRICT;

CREATE INDEX idempotency_created ON idempotency (created_at);
