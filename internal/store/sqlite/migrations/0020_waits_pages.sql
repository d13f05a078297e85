-- Store.WaitsPage reads the open jobs of a type (and all jobs) and the
-- message waits of a name oldest first, so it pages the waits of that kind
-- and name, not the whole waits table, and never sorts: each index keeps
-- creation order (the id, the table's key, breaks ties). The job indexes of
-- 0009 split jobs by lock state, and waits_messages orders by correlation
-- key first, so none of them keeps that order. IF NOT EXISTS: a test that
-- takes a database back before 0017 applies this file again.
CREATE INDEX IF NOT EXISTS waits_jobs_age     ON waits (name, created_at) WHERE kind = 'job';
CREATE INDEX IF NOT EXISTS waits_jobs_created ON waits (created_at) WHERE kind = 'job';
CREATE INDEX IF NOT EXISTS waits_messages_age ON waits (name, created_at) WHERE kind = 'message';
