-- 0001_initial: deployments, definitions, instances and their queryable rows.
--
-- Conventions:
--   * Times are INTEGER unix nanoseconds, UTC. NULL means "not yet" (ended_at,
--     resolved_at); every other time column is NOT NULL.
--   * Optional text columns are NOT NULL DEFAULT '' so that "" round-trips and
--     equality filters need no NULL handling.
--   * Jobs, timers, user tasks and subscriptions arrive in later migrations.

CREATE TABLE deployments (
    id          TEXT    NOT NULL PRIMARY KEY,
    deployed_at INTEGER NOT NULL
);

-- resources are the verbatim uploaded files of a deployment.
CREATE TABLE resources (
    deployment_id TEXT NOT NULL REFERENCES deployments (id),
    name          TEXT NOT NULL,
    hash          TEXT NOT NULL,
    content       BLOB NOT NULL,
    PRIMARY KEY (deployment_id, name)
);

-- definitions are the immutable (key, version) process definitions. The
-- primary key also serves "latest version of a key"
-- (WHERE key = ? ORDER BY version DESC LIMIT 1), so no extra index is needed.
CREATE TABLE definitions (
    key           TEXT    NOT NULL,
    version       INTEGER NOT NULL CHECK (version > 0),
    name          TEXT    NOT NULL DEFAULT '',
    deployment_id TEXT    NOT NULL,
    resource_name TEXT    NOT NULL,
    resource_hash TEXT    NOT NULL,
    deployed_at   INTEGER NOT NULL,
    PRIMARY KEY (key, version),
    FOREIGN KEY (deployment_id, resource_name) REFERENCES resources (deployment_id, name)
);

CREATE INDEX definitions_deployment ON definitions (deployment_id);

-- instances hold one row per process instance: the queryable summary plus the
-- checkpoint (the serialized engine state). revision guards against lost
-- updates: every step updates WHERE revision = <the revision it read>.
-- parent_id deliberately has no foreign key: a child and its caller may be
-- created by steps of the same group commit, in any order.
CREATE TABLE instances (
    id              TEXT    NOT NULL PRIMARY KEY,
    process_key     TEXT    NOT NULL,
    process_version INTEGER NOT NULL,
    status          TEXT    NOT NULL,
    business_key    TEXT    NOT NULL DEFAULT '',
    parent_id       TEXT    NOT NULL DEFAULT '',
    parent_node_id  TEXT    NOT NULL DEFAULT '',
    created_at      INTEGER NOT NULL,
    updated_at      INTEGER NOT NULL,
    ended_at        INTEGER,
    revision        INTEGER NOT NULL CHECK (revision > 0),
    checkpoint      BLOB    NOT NULL
);

CREATE INDEX instances_status       ON instances (status);
CREATE INDEX instances_process      ON instances (process_key, process_version);
CREATE INDEX instances_business_key ON instances (business_key);
CREATE INDEX instances_parent       ON instances (parent_id);
CREATE INDEX instances_created      ON instances (created_at DESC, id DESC);

-- scopes are the open scopes of an instance; a step replaces them all.
CREATE TABLE scopes (
    instance_id TEXT NOT NULL REFERENCES instances (id),
    id          TEXT NOT NULL,
    parent_id   TEXT NOT NULL DEFAULT '',
    node_id     TEXT NOT NULL DEFAULT '',
    path        TEXT NOT NULL DEFAULT '',
    state       TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (instance_id, id)
);

-- facts are the append-only history of an instance; seq is assigned by the
-- engine and strictly increases per instance. detail is a JSON document, or
-- NULL when the fact carries none.
CREATE TABLE facts (
    instance_id TEXT    NOT NULL REFERENCES instances (id),
    seq         INTEGER NOT NULL,
    at          INTEGER NOT NULL,
    kind        TEXT    NOT NULL,
    node_id     TEXT    NOT NULL DEFAULT '',
    scope_path  TEXT    NOT NULL DEFAULT '',
    detail      TEXT    CHECK (detail IS NULL OR json_valid(detail)),
    PRIMARY KEY (instance_id, seq)
);

-- incidents are inserted or updated by id; resolved_at is NULL while open.
CREATE TABLE incidents (
    id          TEXT    NOT NULL PRIMARY KEY,
    instance_id TEXT    NOT NULL REFERENCES instances (id),
    node_id     TEXT    NOT NULL DEFAULT '',
    scope_id    TEXT    NOT NULL DEFAULT '',
    kind        TEXT    NOT NULL,
    message     TEXT    NOT NULL DEFAULT '',
    created_at  INTEGER NOT NULL,
    resolved_at INTEGER
);

CREATE INDEX incidents_instance ON incidents (instance_id, created_at);
CREATE INDEX incidents_open     ON incidents (created_at, id) WHERE resolved_at IS NULL;
