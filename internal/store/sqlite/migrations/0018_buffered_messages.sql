-- 0018_buffered_messages: messages published with a time to live (Camunda
-- 8's message buffering). A message waits here, durably, for the
-- subscriptions that open before expires_at; the step that opens one takes
-- the oldest live message of its name and correlation key that its process
-- key has not taken (buffered_message_takes), in the step's transaction.
-- message_id, when not empty, is unique among the messages of one name and
-- correlation key (an expired one is replaced at publication, then swept).
-- Times are the runtime clock's, as every other time column.
CREATE TABLE buffered_messages (
    id              TEXT    NOT NULL PRIMARY KEY,
    name            TEXT    NOT NULL,
    correlation_key TEXT    NOT NULL,
    message_id      TEXT    NOT NULL DEFAULT '',
    variables       TEXT    NOT NULL,
    published_at    INTEGER NOT NULL,
    expires_at      INTEGER NOT NULL
) STRICT;

-- A subscription's look-up: its name and key, oldest first.
CREATE INDEX buffered_messages_match ON buffered_messages (name, correlation_key, published_at, id);
-- The sweep: earliest expiry first.
CREATE INDEX buffered_messages_expiry ON buffered_messages (expires_at);
-- Uniqueness of a publisher's message id.
CREATE UNIQUE INDEX buffered_messages_unique ON buffered_messages (name, correlation_key, message_id) WHERE message_id <> '';

-- The process keys a buffered message correlated with: at most once each.
CREATE TABLE buffered_message_takes (
    message      TEXT NOT NULL REFERENCES buffered_messages (id) ON DELETE CASCADE,
    process_key  TEXT NOT NULL,
    instance_id  TEXT NOT NULL,
    taken_at     INTEGER NOT NULL,
    PRIMARY KEY (message, process_key)
) WITHOUT ROWID, STRICT;
