-- Several nodes on one database (DESIGN §3 "Multiple nodes"): the nodes
-- register and heart-beat in cluster_nodes; a due timer and an outbox row
-- are claimed by one node (claimed_by), a claim holding while its node is
-- registered.
CREATE TABLE cluster_nodes (
    id           TEXT COLLATE "C" NOT NULL PRIMARY KEY CHECK (id <> ''),
    address      TEXT NOT NULL DEFAULT '',
    version      TEXT NOT NULL DEFAULT '',
    started_at   BIGINT NOT NULL,
    heartbeat_at BIGINT NOT NULL
);

ALTER TABLE waits ADD COLUMN claimed_by TEXT COLLATE "C" NOT NULL DEFAULT '';
ALTER TABLE outbox ADD COLUMN claimed_by TEXT COLLATE "C" NOT NULL DEFAULT '';
