-- 0009_job_queues: activating jobs costs what it activates, not how many jobs
-- of the type are locked or out of retries.
--
-- waits_jobs indexed every job of a type by age, so an activation stepped over
-- each job locked by a worker (and each one out of retries, waiting on its
-- incident) before it found a free one: with ten thousand jobs in flight,
-- every activation read ten thousand rows. Two partial indexes split the
-- jobs instead: those no worker holds, by age (activation takes the first
-- ones), and those a worker holds, by lock expiry (activation takes the ones
-- whose lock expired; the long poll asks for the next expiry). A job out of
-- retries is in neither until its incident is resolved.
DROP INDEX waits_jobs;
CREATE INDEX waits_jobs_free   ON waits (name, created_at)
    WHERE kind = 'job' AND retries > 0 AND lock_expires_at IS NULL;
CREATE INDEX waits_jobs_locked ON waits (name, lock_expires_at)
    WHERE kind = 'job' AND retries > 0 AND lock_expires_at IS NOT NULL;
