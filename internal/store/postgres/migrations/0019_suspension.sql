-- 0019_suspension: suspended instances and process versions (the SQLite
-- store's 0027). instances.suspended is the instance's flag; waits.held
-- marks the waits of a suspended instance and the start timers of a
-- suspended version, which the timer claims, job activation, message
-- correlation and signal broadcasts skip on every node until the resume
-- clears it. (IF NOT EXISTS: the upgrade tests apply later migrations
-- again.)
ALTER TABLE instances ADD COLUMN IF NOT EXISTS suspended BOOLEAN NOT NULL DEFAULT false;
ALTER TABLE waits ADD COLUMN IF NOT EXISTS held BOOLEAN NOT NULL DEFAULT false;

CREATE TABLE IF NOT EXISTS suspended_versions (
    process_key     TEXT COLLATE "C" NOT NULL,
    process_version INTEGER NOT NULL,
    suspended_at    BIGINT NOT NULL,
    PRIMARY KEY (process_key, process_version)
);
