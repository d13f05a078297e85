-- 0003_decisions: the immutable (key, version) DMN decisions, registered by
-- deployments of .dmn resources.
--
-- The table mirrors definitions (0001) column for column and follows the
-- same rules: a decision whose latest version came from a resource with the
-- same hash keeps that version, any other gets the next one. The resource
-- content (the DMN document) stays in resources. The primary key also serves
-- "latest version of a key" (WHERE key = ? ORDER BY version DESC LIMIT 1).
--
-- Conventions (as in 0001): times are INTEGER unix nanoseconds, UTC;
-- optional text columns are NOT NULL DEFAULT ''.
CREATE TABLE decision_definitions (
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

CREATE INDEX decision_definitions_deployment ON decision_definitions (deployment_id);
