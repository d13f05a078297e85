-- 0012_numbers: a short number per process key for people to read and
-- search ("order-approval #1042").
--
-- instances.number counts the instances of one process key (every
-- version) from 1 in start order; instance_numbers keeps the last number
-- handed out per key, so a number is never reused, not even after
-- retention deletes its instance. The store raises a key's counter once
-- per commit batch, in the transaction that inserts the instances.
--
-- Existing instances are numbered per process key in start order
-- (created_at, then seq: the order the store received them), and each
-- key's counter starts after its highest number.
ALTER TABLE instances ADD COLUMN number INTEGER;

UPDATE instances SET number = r.n
FROM (SELECT seq, row_number() OVER (PARTITION BY process_key ORDER BY created_at, seq) AS n FROM instances) AS r
WHERE r.seq = instances.seq;

CREATE TABLE instance_numbers (
    process_key TEXT    NOT NULL PRIMARY KEY,
    last        INTEGER NOT NULL CHECK (last > 0)
) WITHOUT ROWID;

INSERT INTO instance_numbers (process_key, last)
SELECT process_key, MAX(number) FROM instances GROUP BY process_key;

-- instances_number finds an instance by its number, with or without its
-- key (a search for "#1042" names no key), and keeps numbers unique per key.
CREATE UNIQUE INDEX instances_number ON instances (number, process_key);
