-- 0010_retention: history retention finds ended instances by end time.
--
-- The history cleaner (runtime retention.go) deletes the instances of each
-- process version that ended (completed or terminated) before that
-- version's time to live, oldest end first, a small batch per
-- transaction. It reads this index: the equality prefix is the version,
-- the range its end time. Only ended instances are in it (partial index),
-- so a running instance costs it nothing and can never be selected; a
-- failed instance stays out too (an operator may still retry it).
CREATE INDEX instances_ended ON instances (process_key, process_version, ended_at)
    WHERE status IN ('completed', 'terminated');
