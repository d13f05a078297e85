-- 0006_access: built-in users and groups, what they were granted, their API
-- tokens and cockpit sessions, and the audit trail (issue 13; the store side
-- of access.Store).
--
-- Conventions (as in 0001): times are INTEGER unix nanoseconds, UTC; NULL
-- means "not yet" or "never" (expires_at, last_used_at, revoked_at);
-- optional text columns are NOT NULL DEFAULT ''. The tables are STRICT, so a
-- time can only ever be an integer and a hash only a blob.
--
-- Secrets are never stored: tokens and sessions keep the SHA-256 of their
-- secret (auth.SecretHash, 32 bytes), passwords their argon2id PHC string.
--
-- Deleting a user removes their memberships and tokens (foreign keys) and
-- their grants and sessions (the store deletes those in the same
-- transaction: a grant names its subject by kind and id, and a session may
-- belong to an OIDC user, who is not in users). Deleting a group removes
-- its memberships (foreign key) and grants (the store). Nothing of a deleted
-- user or group survives to be inherited by a new one of the same name.

-- users are the built-in logins. password_hash is '' for a user who cannot
-- log in (a worker that only has tokens).
CREATE TABLE users (
    id            TEXT    NOT NULL PRIMARY KEY CHECK (id <> ''),
    name          TEXT    NOT NULL DEFAULT '',
    password_hash TEXT    NOT NULL DEFAULT '',
    disabled      INTEGER NOT NULL DEFAULT 0 CHECK (disabled IN (0, 1)),
    created_at    INTEGER NOT NULL
) STRICT, WITHOUT ROWID;

-- groups are the built-in groups; candidate groups of user tasks name them.
CREATE TABLE groups (
    id         TEXT    NOT NULL PRIMARY KEY CHECK (id <> ''),
    name       TEXT    NOT NULL DEFAULT '',
    created_at INTEGER NOT NULL
) STRICT, WITHOUT ROWID;

-- memberships: the primary key lists a group's members in order, the index
-- a user's groups in order (and serves the cascade from users).
CREATE TABLE memberships (
    group_id TEXT NOT NULL REFERENCES groups (id) ON DELETE CASCADE,
    user_id  TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    PRIMARY KEY (group_id, user_id)
) STRICT, WITHOUT ROWID;

CREATE INDEX memberships_user ON memberships (user_id, group_id);

-- grants: a built-in role (role set, the rest '') or one permission on a
-- pattern of keys of a resource kind (role ''), given to a user or a group.
-- The unique index makes giving the same thing twice find the first grant,
-- and serves every lookup by subject (a user's, their groups', a deletion's).
-- AUTOINCREMENT: an id, which revoking names, is never reused.
CREATE TABLE grants (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    subject_kind  TEXT    NOT NULL CHECK (subject_kind IN ('user', 'group')),
    subject_id    TEXT    NOT NULL CHECK (subject_id <> ''),
    role          TEXT    NOT NULL DEFAULT '',
    permission    TEXT    NOT NULL DEFAULT '',
    resource_kind TEXT    NOT NULL DEFAULT '',
    pattern       TEXT    NOT NULL DEFAULT '',
    created_at    INTEGER NOT NULL,
    created_by    TEXT    NOT NULL DEFAULT '',
    CHECK ((role <> '' AND permission = '' AND resource_kind = '' AND pattern = '')
        OR (role = '' AND permission <> '' AND resource_kind <> '' AND pattern <> ''))
) STRICT;

CREATE UNIQUE INDEX grants_subject ON grants (subject_kind, subject_id, role, permission, resource_kind, pattern);

-- tokens are API tokens, looked up by their public id. restriction is the
-- JSON of an auth.Restriction, NULL for an unrestricted token.
CREATE TABLE tokens (
    id           TEXT    NOT NULL PRIMARY KEY CHECK (id <> ''),
    owner        TEXT    NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    name         TEXT    NOT NULL DEFAULT '',
    restriction  TEXT    CHECK (restriction IS NULL OR json_valid(restriction)),
    hash         BLOB    NOT NULL CHECK (length(hash) = 32),
    created_at   INTEGER NOT NULL,
    expires_at   INTEGER,
    last_used_at INTEGER,
    revoked_at   INTEGER
) STRICT, WITHOUT ROWID;

-- A user's tokens and all tokens, newest first (the id breaks ties).
CREATE INDEX tokens_owner   ON tokens (owner, created_at, id);
CREATE INDEX tokens_created ON tokens (created_at, id);

-- sessions are cockpit logins, looked up by the hash of the cookie's id.
-- user_id has no foreign key: an OIDC user is not in users. groups is the
-- JSON array of the groups an OIDC login brought, NULL when none.
CREATE TABLE sessions (
    id_hash      BLOB    NOT NULL PRIMARY KEY CHECK (length(id_hash) = 32),
    user_id      TEXT    NOT NULL CHECK (user_id <> ''),
    groups       TEXT    CHECK (groups IS NULL OR json_valid(groups)),
    created_at   INTEGER NOT NULL,
    expires_at   INTEGER NOT NULL,
    last_seen_at INTEGER NOT NULL
) STRICT, WITHOUT ROWID;

CREATE INDEX sessions_user    ON sessions (user_id);
CREATE INDEX sessions_expires ON sessions (expires_at);

-- audit is the append-only trail of acts, newest first by seq. Every index
-- ends with the rowid (seq), so an equality filter (actor, action, outcome)
-- reads its entries newest first and a page stops at its limit; a resource
-- prefix or a time range reads its range and sorts it. Most acts succeed:
-- only the other outcomes are indexed, and the query repeats the index's
-- condition. AUTOINCREMENT: a seq is never reused, even after pruning.
CREATE TABLE audit (
    seq          INTEGER PRIMARY KEY AUTOINCREMENT,
    at           INTEGER NOT NULL,
    actor        TEXT    NOT NULL DEFAULT '',
    on_behalf_of TEXT    NOT NULL DEFAULT '',
    via          TEXT    NOT NULL DEFAULT '',
    action       TEXT    NOT NULL CHECK (action <> ''),
    resource     TEXT    NOT NULL DEFAULT '',
    outcome      TEXT    NOT NULL CHECK (outcome IN ('ok', 'denied', 'failed', 'error')),
    status       INTEGER NOT NULL DEFAULT 0,
    request_id   TEXT    NOT NULL DEFAULT '',
    addr         TEXT    NOT NULL DEFAULT ''
) STRICT;

CREATE INDEX audit_actor    ON audit (actor);
CREATE INDEX audit_action   ON audit (action);
CREATE INDEX audit_resource ON audit (resource);
CREATE INDEX audit_at       ON audit (at);
CREATE INDEX audit_outcome  ON audit (outcome) WHERE outcome <> 'ok';
