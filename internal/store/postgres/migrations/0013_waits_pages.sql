-- Store.WaitsPage reads the open jobs of a type (waits_jobs), all jobs and
-- the message waits of a name oldest first: these indexes keep that order
-- for the last two (waits_messages orders by correlation key first), so a
-- page reads the waits of that kind and name in order and never sorts. The
-- queries name the kind as a literal, so the partial indexes apply.
-- IF NOT EXISTS: tests that take a database back to an older version apply
-- this file again.
CREATE INDEX IF NOT EXISTS waits_jobs_created ON waits (created_at, id) WHERE kind = 'job';
CREATE INDEX IF NOT EXISTS waits_messages_age ON waits (name, created_at, id) WHERE kind = 'message';
