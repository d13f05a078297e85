-- 0003_migrations: batches that migrate instances to another process
-- version, as the SQLite store's migration 0011: a migration with its
-- instances in order, each pending until the background batch records its
-- outcome; a running batch is resumed at the next start.
CREATE TABLE migrations (
    id             TEXT PRIMARY KEY,
    process_key    TEXT NOT NULL,
    source_version INTEGER NOT NULL,
    target_version INTEGER NOT NULL,
    mapping        TEXT NOT NULL,
    status         TEXT NOT NULL,
    created_by     TEXT NOT NULL,
    created_at     BIGINT NOT NULL,
    finished_at    BIGINT
);

CREATE INDEX migrations_running ON migrations (created_at) WHERE status = 'running';

CREATE TABLE migration_items (
    migration_id TEXT NOT NULL REFERENCES migrations (id),
    ord          INTEGER NOT NULL,
    instance_id  TEXT NOT NULL,
    status       TEXT NOT NULL,
    reason       TEXT NOT NULL,
    PRIMARY KEY (migration_id, ord)
);

CREATE UNIQUE INDEX migration_items_instance ON migration_items (migration_id, instance_id);
