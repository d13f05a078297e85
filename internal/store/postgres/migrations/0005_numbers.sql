-- 0005_numbers: a short number per process key for people to read and
-- search ("order-approval #1042"); the SQLite store's 0012.
--
-- instances.number counts the instances of one process key (every
-- version) from 1 in start order; instance_numbers keeps the last number
-- handed out per key, so a number is never reused. A commit raises a
-- key's counter once per batch (INSERT … ON CONFLICT DO UPDATE, which
-- locks the key's row until the commit, so two nodes never hand out the
-- same number) before it inserts the instances, which read their numbers
-- back from the row it holds.
--
-- Existing instances are numbered per process key in start order
-- (created_at, then seq), and each key's counter starts after its highest.
ALTER TABLE instances ADD COLUMN number BIGINT;

UPDATE instances SET number = r.n
FROM (SELECT seq, row_number() OVER (PARTITION BY process_key ORDER BY created_at, seq) AS n FROM instances) AS r
WHERE r.seq = instances.seq;

CREATE TABLE instance_numbers (
    process_key TEXT COLLATE "C" NOT NULL PRIMARY KEY,
    last        BIGINT NOT NULL CHECK (last > 0)
);

INSERT INTO instance_numbers (process_key, last)
SELECT process_key, MAX(number) FROM instances GROUP BY process_key;

-- instances_number finds an instance by its number, with or without its
-- key (a search for "#1042" names no key), and keeps numbers unique per key.
CREATE UNIQUE INDEX instances_number ON instances (number, process_key);
