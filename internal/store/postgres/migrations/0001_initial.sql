-- gobpm's schema on PostgreSQL: the same tables as the SQLite store's
-- migrations 0001–0008 reach, written for PostgreSQL. Times are unix
-- nanoseconds (BIGINT), as in SQLite, so both stores round-trip a time
-- exactly. JSON kept verbatim (payloads, answers) is TEXT checked by a cast to
-- jsonb, so it reads back byte for byte. Columns that lists order or compare use the "C" collation: the
-- byte order SQLite uses, whatever the database's locale.

CREATE TABLE deployments (
    id          TEXT COLLATE "C" NOT NULL PRIMARY KEY,
    deployed_at BIGINT NOT NULL
);

CREATE TABLE resources (
    deployment_id TEXT COLLATE "C" NOT NULL REFERENCES deployments (id),
    name          TEXT COLLATE "C" NOT NULL,
    hash          TEXT NOT NULL,
    content       BYTEA NOT NULL,
    PRIMARY KEY (deployment_id, name)
);

CREATE TABLE definitions (
    key           TEXT COLLATE "C" NOT NULL,
    version       INTEGER NOT NULL CHECK (version > 0),
    name          TEXT NOT NULL DEFAULT '',
    deployment_id TEXT COLLATE "C" NOT NULL,
    resource_name TEXT COLLATE "C" NOT NULL,
    resource_hash TEXT NOT NULL,
    deployed_at   BIGINT NOT NULL,
    PRIMARY KEY (key, version),
    FOREIGN KEY (deployment_id, resource_name) REFERENCES resources (deployment_id, name)
);

CREATE INDEX definitions_deployment ON definitions (deployment_id);

CREATE TABLE decision_definitions (
    key           TEXT COLLATE "C" NOT NULL,
    version       INTEGER NOT NULL CHECK (version > 0),
    name          TEXT NOT NULL DEFAULT '',
    deployment_id TEXT COLLATE "C" NOT NULL,
    resource_name TEXT COLLATE "C" NOT NULL,
    resource_hash TEXT NOT NULL,
    deployed_at   BIGINT NOT NULL,
    PRIMARY KEY (key, version),
    FOREIGN KEY (deployment_id, resource_name) REFERENCES resources (deployment_id, name)
);

CREATE INDEX decision_definitions_deployment ON decision_definitions (deployment_id);

-- instances: seq is the surrogate key parts and facts refer to, and the
-- tie-break of lists (the order the store received instances). revision
-- guards every step: an update names the revision it was computed from.
CREATE TABLE instances (
    seq             BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id              TEXT COLLATE "C" NOT NULL UNIQUE,
    process_key     TEXT COLLATE "C" NOT NULL,
    process_version INTEGER NOT NULL,
    status          TEXT NOT NULL CHECK (status IN ('running', 'completed', 'terminated', 'failed')),
    business_key    TEXT COLLATE "C" NOT NULL DEFAULT '',
    parent_id       TEXT COLLATE "C" NOT NULL DEFAULT '',
    parent_node_id  TEXT NOT NULL DEFAULT '',
    created_at      BIGINT NOT NULL,
    updated_at      BIGINT NOT NULL,
    ended_at        BIGINT,
    revision        BIGINT NOT NULL CHECK (revision > 0),
    state           BYTEA NOT NULL
);

CREATE INDEX instances_created         ON instances (created_at DESC, seq DESC);
CREATE INDEX instances_status          ON instances (status, created_at DESC, seq DESC);
CREATE INDEX instances_process         ON instances (process_key, status, created_at DESC, seq DESC);
CREATE INDEX instances_process_version ON instances (process_key, process_version, created_at DESC, seq DESC);
CREATE INDEX instances_business_key    ON instances (business_key, created_at DESC, seq DESC) WHERE business_key <> '';
CREATE INDEX instances_parent          ON instances (parent_id, created_at DESC, seq DESC) WHERE parent_id <> '';

CREATE TABLE instance_parts (
    instance_seq BIGINT NOT NULL REFERENCES instances (seq),
    kind         TEXT COLLATE "C" NOT NULL,
    key          TEXT COLLATE "C" NOT NULL,
    ord          BIGINT NOT NULL,
    data         BYTEA NOT NULL,
    PRIMARY KEY (instance_seq, kind, key)
);

CREATE TABLE facts (
    instance_seq BIGINT NOT NULL REFERENCES instances (seq),
    seq          BIGINT NOT NULL,
    at           BIGINT NOT NULL,
    kind         TEXT NOT NULL,
    node_id      TEXT NOT NULL DEFAULT '',
    scope_path   TEXT NOT NULL DEFAULT '',
    detail       BYTEA,
    PRIMARY KEY (instance_seq, seq)
);

CREATE TABLE incidents (
    id          TEXT COLLATE "C" NOT NULL PRIMARY KEY,
    instance_id TEXT COLLATE "C" NOT NULL REFERENCES instances (id),
    node_id     TEXT NOT NULL DEFAULT '',
    scope_id    TEXT NOT NULL DEFAULT '',
    kind        TEXT NOT NULL,
    message     TEXT NOT NULL DEFAULT '',
    created_at  BIGINT NOT NULL,
    resolved_at BIGINT
);

CREATE INDEX incidents_instance ON incidents (instance_id, created_at, id);
CREATE INDEX incidents_open     ON incidents (created_at, id) WHERE resolved_at IS NULL;

-- waits: instance_id is '' for the start timers of a process key.
CREATE TABLE waits (
    id               TEXT COLLATE "C" NOT NULL PRIMARY KEY,
    instance_id      TEXT COLLATE "C" NOT NULL,
    kind             TEXT NOT NULL,
    node_id          TEXT NOT NULL DEFAULT '',
    scope_id         TEXT NOT NULL DEFAULT '',
    track_id         TEXT NOT NULL DEFAULT '',
    process_key      TEXT COLLATE "C" NOT NULL DEFAULT '',
    process_version  INTEGER NOT NULL DEFAULT 0,
    name             TEXT COLLATE "C" NOT NULL DEFAULT '',
    correlation_key  TEXT COLLATE "C" NOT NULL DEFAULT '',
    due_at           BIGINT,
    retries          INTEGER NOT NULL DEFAULT 0,
    error_message    TEXT NOT NULL DEFAULT '',
    assignee         TEXT COLLATE "C" NOT NULL DEFAULT '',
    candidate_users  JSONB,
    candidate_groups JSONB,
    created_at       BIGINT NOT NULL,
    lock_owner       TEXT,
    lock_expires_at  BIGINT,
    lock_user        TEXT,
    lock_token       BYTEA
);

CREATE INDEX waits_instance      ON waits (instance_id, created_at, id);
CREATE INDEX waits_jobs          ON waits (name, created_at, id) WHERE kind = 'job';
CREATE INDEX waits_signals       ON waits (name, created_at) WHERE kind = 'signal';
CREATE INDEX waits_messages      ON waits (name, correlation_key, created_at, id) WHERE kind = 'message';
CREATE INDEX waits_tasks         ON waits (created_at, id) WHERE kind = 'task';
CREATE INDEX waits_task_assignee ON waits (assignee, created_at, id) WHERE kind = 'task';
CREATE INDEX waits_timers_due    ON waits (due_at, id) WHERE kind IN ('timer', 'start-timer');
CREATE INDEX waits_start_timers  ON waits (process_key) WHERE kind = 'start-timer' AND instance_id = '';

CREATE TABLE outbox (
    id          BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    instance_id TEXT COLLATE "C" NOT NULL REFERENCES instances (id),
    kind        TEXT NOT NULL CHECK (kind IN ('signal', 'child-ended', 'cancel-child')),
    payload     TEXT NOT NULL CHECK (payload::jsonb IS NOT NULL),
    created_at  BIGINT NOT NULL
);

CREATE TABLE server_secrets (
    name       TEXT NOT NULL PRIMARY KEY,
    secret     BYTEA NOT NULL,
    created_at BIGINT NOT NULL
);

CREATE TABLE idempotency (
    key          TEXT COLLATE "C" NOT NULL PRIMARY KEY,
    request_hash BYTEA NOT NULL CHECK (length(request_hash) = 32),
    instance_id  TEXT NOT NULL,
    answer       TEXT NOT NULL CHECK (answer::jsonb IS NOT NULL),
    created_at   BIGINT NOT NULL
);

CREATE INDEX idempotency_created ON idempotency (created_at);

CREATE TABLE users (
    id            TEXT COLLATE "C" NOT NULL PRIMARY KEY CHECK (id <> ''),
    name          TEXT NOT NULL DEFAULT '',
    password_hash TEXT NOT NULL DEFAULT '',
    disabled      BOOLEAN NOT NULL DEFAULT FALSE,
    created_at    BIGINT NOT NULL
);

CREATE TABLE groups (
    id         TEXT COLLATE "C" NOT NULL PRIMARY KEY CHECK (id <> ''),
    name       TEXT NOT NULL DEFAULT '',
    created_at BIGINT NOT NULL
);

CREATE TABLE memberships (
    group_id TEXT COLLATE "C" NOT NULL REFERENCES groups (id) ON DELETE CASCADE,
    user_id  TEXT COLLATE "C" NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    PRIMARY KEY (group_id, user_id)
);

CREATE INDEX memberships_user ON memberships (user_id, group_id);

CREATE TABLE grants (
    id            BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    subject_kind  TEXT NOT NULL CHECK (subject_kind IN ('user', 'group')),
    subject_id    TEXT COLLATE "C" NOT NULL CHECK (subject_id <> ''),
    role          TEXT NOT NULL DEFAULT '',
    permission    TEXT NOT NULL DEFAULT '',
    resource_kind TEXT NOT NULL DEFAULT '',
    pattern       TEXT NOT NULL DEFAULT '',
    created_at    BIGINT NOT NULL,
    created_by    TEXT NOT NULL DEFAULT '',
    CHECK ((role <> '' AND permission = '' AND resource_kind = '' AND pattern = '')
        OR (role = '' AND permission <> '' AND resource_kind <> '' AND pattern <> ''))
);

CREATE UNIQUE INDEX grants_subject ON grants (subject_kind, subject_id, role, permission, resource_kind, pattern);

CREATE TABLE tokens (
    id           TEXT COLLATE "C" NOT NULL PRIMARY KEY CHECK (id <> ''),
    owner        TEXT COLLATE "C" NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    name         TEXT NOT NULL DEFAULT '',
    restriction  TEXT CHECK (restriction::jsonb IS NOT NULL OR restriction IS NULL),
    hash         BYTEA NOT NULL CHECK (length(hash) = 32),
    created_at   BIGINT NOT NULL,
    expires_at   BIGINT,
    last_used_at BIGINT,
    revoked_at   BIGINT
);

CREATE INDEX tokens_owner   ON tokens (owner, created_at, id);
CREATE INDEX tokens_created ON tokens (created_at, id);

CREATE TABLE sessions (
    id_hash      BYTEA NOT NULL PRIMARY KEY CHECK (length(id_hash) = 32),
    user_id      TEXT COLLATE "C" NOT NULL CHECK (user_id <> ''),
    groups       TEXT CHECK (groups::jsonb IS NOT NULL OR groups IS NULL),
    created_at   BIGINT NOT NULL,
    expires_at   BIGINT NOT NULL,
    last_seen_at BIGINT NOT NULL
);

CREATE INDEX sessions_user    ON sessions (user_id);
CREATE INDEX sessions_expires ON sessions (expires_at);

CREATE TABLE audit (
    seq          BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    at           BIGINT NOT NULL,
    actor        TEXT COLLATE "C" NOT NULL DEFAULT '',
    on_behalf_of TEXT NOT NULL DEFAULT '',
    via          TEXT NOT NULL DEFAULT '',
    action       TEXT COLLATE "C" NOT NULL CHECK (action <> ''),
    resource     TEXT COLLATE "C" NOT NULL DEFAULT '',
    outcome      TEXT NOT NULL CHECK (outcome IN ('ok', 'denied', 'failed', 'error')),
    status       INTEGER NOT NULL DEFAULT 0,
    request_id   TEXT NOT NULL DEFAULT '',
    addr         TEXT NOT NULL DEFAULT ''
);

CREATE INDEX audit_actor    ON audit (actor);
CREATE INDEX audit_action   ON audit (action);
CREATE INDEX audit_resource ON audit (resource);
CREATE INDEX audit_at       ON audit (at);
CREATE INDEX audit_outcome  ON audit (outcome) WHERE outcome <> 'ok';
