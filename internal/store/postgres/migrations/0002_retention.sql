-- 0002_retention: history retention finds ended instances by end time, as
-- the SQLite store's migration 0010 does: the cleaner deletes the instances of
-- each process version that ended before its time to live, earliest end
-- first, from this partial index (running and failed instances are not in it).
CREATE INDEX instances_ended ON instances (process_key, process_version, ended_at)
    WHERE status IN ('completed', 'terminated');
