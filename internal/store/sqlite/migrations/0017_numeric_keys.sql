-- 0017_numeric_keys: Camunda 8's names for gobpm's entities (store.KeyStore).
--
-- Every process instance, job, user task, incident, deployment and process
-- version has a numeric key: one row here, written in the transaction that
-- creates the entity and deleted with it. kind is a store.KeyKind (1
-- instance, 2 job, 3 user task, 4 incident, 5 deployment, 6 process
-- version); id is the entity's id as its own table stores it (an
-- instance's or a wait's id encoded as the store encodes ids, an
-- incident's or a deployment's id as text, a process version as
-- "<process key>:<version>").
--
-- key is the rowid, so a key is found by the primary key and an entity's
-- key by the (kind, id) index. AUTOINCREMENT never hands out a key twice,
-- not even after its entity is deleted; its counter starts above
-- 1 << 51, so the first key is 2251799813685249, Zeebe's first key of
-- partition 1.
CREATE TABLE entity_keys (
    key  INTEGER PRIMARY KEY AUTOINCREMENT,
    kind INTEGER NOT NULL CHECK (kind BETWEEN 1 AND 6),
    id   ANY     NOT NULL,
    UNIQUE (kind, id)
) STRICT;

INSERT INTO sqlite_sequence (name, seq) VALUES ('entity_keys', 2251799813685248);

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
) ORDER BY at, kind, id;
