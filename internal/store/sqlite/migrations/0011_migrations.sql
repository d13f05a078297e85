-- 0011_migrations: batches that migrate instances to another process version.
--
-- A migration (runtime migrate.go) is created with the instances it
-- selected, in order, each pending; the background batch records each
-- instance's outcome (migrated, or failed with the reason) as it goes and
-- marks the migration completed at the end. A batch still running when the
-- server stops is resumed at the next start from its pending items.
CREATE TABLE migrations (
    id             TEXT PRIMARY KEY,
    process_key    TEXT NOT NULL,
    source_version INTEGER NOT NULL,
    target_version INTEGER NOT NULL,
    mapping        TEXT NOT NULL,   -- JSON object: source element id → target element id
    status         TEXT NOT NULL,   -- running, completed
    created_by     TEXT NOT NULL,
    created_at     INTEGER NOT NULL,
    finished_at    INTEGER
) STRICT;

CREATE INDEX migrations_running ON migrations (created_at) WHERE status = 'running';

CREATE TABLE migration_items (
    migration_id TEXT NOT NULL REFERENCES migrations (id),
    ord          INTEGER NOT NULL,
    instance_id  TEXT NOT NULL,
    status       TEXT NOT NULL,    -- pending, migrated, failed
    reason       TEXT NOT NULL,
    PRIMARY KEY (migration_id, ord)
) STRICT;

CREATE UNIQUE INDEX migration_items_instance ON migration_items (migration_id, instance_id);
