-- 0011_buffered_messages: messages published with a time to live (the
-- SQLite store's 0018, Camunda 8's message buffering). A message waits
-- here until expires_at for the subscriptions that open meanwhile; the
-- step that opens one takes the oldest live message of its name and
-- correlation key that its process key has not taken
-- (buffered_message_takes), in the step's transaction. message_id, when
-- not empty, is unique among the messages of one name and correlation key.
CREATE TABLE buffered_messages (
    id              TEXT COLLATE "C" NOT NULL PRIMARY KEY,
    name            TEXT COLLATE "C" NOT NULL,
    correlation_key TEXT COLLATE "C" NOT NULL,
    message_id      TEXT COLLATE "C" NOT NULL DEFAULT '',
    variables       TEXT NOT NULL,
    published_at    BIGINT NOT NULL,
    expires_at      BIGINT NOT NULL
);

-- A subscription's look-up: its name and key, oldest first.
CREATE INDEX buffered_messages_match ON buffered_messages (name, correlation_key, published_at, id);
-- The sweep: earliest expiry first.
CREATE INDEX buffered_messages_expiry ON buffered_messages (expires_at);
-- Uniqueness of a publisher's message id.
CREATE UNIQUE INDEX buffered_messages_unique ON buffered_messages (name, correlation_key, message_id) WHERE message_id <> '';

-- The process keys a buffered message correlated with: at most once each.
CREATE TABLE buffered_message_takes (
    message      TEXT COLLATE "C" NOT NULL REFERENCES buffered_messages (id) ON DELETE CASCADE,
    process_key  TEXT COLLATE "C" NOT NULL,
    instance_id  TEXT COLLATE "C" NOT NULL,
    taken_at     BIGINT NOT NULL,
    PRIMARY KEY (message, process_key)
);
