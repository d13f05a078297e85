-- 0027_suspension: suspended instances and process versions (README,
-- "Suspend and resume").
--
-- instances.suspended is the instance's flag: no step runs on a suspended
-- instance but its cancellation. waits.held marks the waits of a
-- suspended instance (and the start timers of a suspended version): the
-- scheduler, job activation, message correlation and signal broadcasts
-- skip them until the resume clears the mark. The partial indexes that
-- serve the scheduler and job activation leave held waits out, so a held
-- wait costs those queries nothing.
ALTER TABLE instances ADD COLUMN suspended INTEGER NOT NULL DEFAULT 0;
ALTER TABLE waits ADD COLUMN held INTEGER NOT NULL DEFAULT 0;

DROP INDEX waits_jobs_free;
DROP INDEX waits_jobs_locked;
DROP INDEX waits_timers_due;
CREATE INDEX waits_jobs_free   ON waits (name, created_at)
    WHERE kind = 'job' AND retries > 0 AND lock_expires_at IS NULL AND held = 0;
CREATE INDEX waits_jobs_locked ON waits (name, lock_expires_at)
    WHERE kind = 'job' AND retries > 0 AND lock_expires_at IS NOT NULL AND held = 0;
CREATE INDEX waits_timers_due  ON waits (due_at) WHERE kind IN ('timer', 'start-timer') AND held = 0;

-- suspended_versions: the process versions that start no instance (their
-- API, message and timer starts answer a conflict or hold).
CREATE TABLE suspended_versions (
    process_key     TEXT    NOT NULL,
    process_version INTEGER NOT NULL,
    suspended_at    INTEGER NOT NULL,
    PRIMARY KEY (process_key, process_version)
) WITHOUT ROWID;
