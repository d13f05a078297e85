-- 0007_job_locks: a job belongs to the worker that activated it, and the job
-- keys the API hands out cannot be guessed from an instance id.
--
-- Activation mints a random lock token per job and answers it to the worker;
-- the row keeps only the token's SHA-256 hash (lock_token, 32 bytes) and the
-- activating caller's user id (lock_user, '' when the server runs without
-- authentication). Complete, fail, error and extend must present the token.
-- Like lock_owner and lock_expires_at, both are NULL while the job has never
-- been activated or its lock was released (a step that replaces the job, such
-- as a failure report, clears all four). An expired lock keeps its columns
-- until the job is activated again, so the worker that held it can still
-- report a late completion while nobody else has taken the job.
ALTER TABLE waits ADD COLUMN lock_user  TEXT;
ALTER TABLE waits ADD COLUMN lock_token BLOB;

-- A lock taken before this migration has no token, so its worker could never
-- complete the job: release it, and the job is activatable again at once.
UPDATE waits SET lock_owner = NULL, lock_expires_at = NULL
WHERE lock_owner IS NOT NULL OR lock_expires_at IS NOT NULL;

-- Secrets the server generates on its first start and keeps for its life,
-- by name. "job-keys" (32 random bytes) signs the public job keys,
-- "<wait id>.<mac>" with mac a truncated HMAC-SHA256 of the wait id: a key
-- names a job only for a caller the server gave it to.
CREATE TABLE server_secrets (
    name       TEXT    NOT NULL PRIMARY KEY,
    secret     BLOB    NOT NULL,
    created_at INTEGER NOT NULL
) WITHOUT ROWID;
