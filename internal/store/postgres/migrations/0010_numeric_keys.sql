-- 0010_numeric_keys: Camunda 8's names for gobpm's entities
-- (store.KeyStore); the SQLite store's 0017.
--
-- Every process instance, job, user task, incident, deployment and process
-- version has a numeric key: one row here, written in the transaction that
-- creates the entity and deleted with it. kind is a store.KeyKind (1
-- instance, 2 job, 3 user task, 4 incident, 5 deployment, 6 process
-- version); id is the entity's id (a process version's is
-- "<process key>:<version>").
--
-- Keys come from one sequence, which every node of a cluster draws from,
-- so no two nodes ever hand out the same key (a rolled-back transaction
-- leaves a gap, nothing more). It starts above 1 << 51, so the first key is
-- 2251799813685249, Zeebe's first key of partition 1. A key is found by
-- the primary key, an entity's key by the (kind, id) index.
CREATE SEQUENCE entity_keys_seq AS BIGINT START WITH 2251799813685249 MINVALUE 2251799813685249;

CREATE TABLE entity_keys (
    key  BIGINT PRIMARY KEY DEFAULT nextval('entity_keys_seq'),
    kind SMALLINT NOT NULL CHECK (kind BETWEEN 1 AND 6),
    id   TEXT COLLATE "C" NOT NULL,
    UNIQUE (kind, id)
);

ALTER SEQUENCE entity_keys_seq OWNED BY entity_keys.key;

-- The entities stored before the keys get theirs here, in the order they
-- were created (kind, then id, between entities of one instant).
INSERT INTO entity_keys (kind, id)
SELECT kind, id FROM (
    SELECT deployed_at AS at, 5 AS kind, id FROM deployments
    UNION ALL
    SELECT deployed_at, 6, key || ':' || version FROM definitions
    UNION ALL
    SELECT created_at, 1, id FROM instances
    UNION ALL
    SELECT created_at, 4, id FROM incidents
    UNION ALL
    SELECT created_at, CASE kind WHEN 'job' THEN 2 ELSE 3 END, id FROM waits WHERE kind IN ('job', 'task')
) AS existing ORDER BY at, kind, id;
