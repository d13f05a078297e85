-- 0015_history_export: the order of the history export (docs/history-export.md).
-- Each fact records the transaction that wrote it (tx) and a position from
-- a sequence (pos). The export reads facts in (tx, pos) order and only
-- those of transactions older than every transaction still running
-- (pg_snapshot_xmin of the reader's snapshot): no transaction can then
-- still commit a fact that sorts before one already read, which ordering by
-- a sequence alone cannot promise while several transactions (nodes, group
-- commits) write at once. Neither number is ever reused, so an export
-- cursor stays valid across retention deletes. The facts written before
-- this migration keep tx 0 and are numbered by time, then instance, then
-- seq. facts_export serves the read. IF NOT EXISTS and IS NULL: a test that
-- takes a database back to an older version applies this file again.
ALTER TABLE facts ADD COLUMN IF NOT EXISTS tx xid8 NOT NULL DEFAULT '0';
ALTER TABLE facts ALTER COLUMN tx SET DEFAULT pg_current_xact_id();

CREATE SEQUENCE IF NOT EXISTS facts_pos AS BIGINT;
ALTER TABLE facts ADD COLUMN IF NOT EXISTS pos BIGINT;
UPDATE facts f SET pos = o.pos
  FROM (SELECT s.instance_seq, s.seq, nextval('facts_pos') AS pos
          FROM (SELECT instance_seq, seq FROM facts WHERE pos IS NULL ORDER BY at, instance_seq, seq) s) o
 WHERE f.instance_seq = o.instance_seq AND f.seq = o.seq;
ALTER TABLE facts ALTER COLUMN pos SET DEFAULT nextval('facts_pos'), ALTER COLUMN pos SET NOT NULL;
ALTER SEQUENCE facts_pos OWNED BY facts.pos;

CREATE INDEX IF NOT EXISTS facts_export ON facts (tx, pos);
