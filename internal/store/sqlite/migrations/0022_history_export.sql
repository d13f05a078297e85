-- 0022_history_export: the order of the history export (docs/history-export.md).
-- fact_order numbers the facts rows (one per step, 0005) in the order
-- they were written: the single writer commits one transaction after the
-- other, so a reader never sees a position before another that is still
-- to come. AUTOINCREMENT never hands a position out twice, even after the
-- rows with the highest ones were deleted, so an export cursor stays
-- valid across retention deletes. at is the absolute time of the row's
-- first fact (created_at + facts.at, nanoseconds), so the export filters
-- a period without decoding rows. The triggers keep it beside facts:
-- every insert into facts appends its row, every delete removes it
-- (fact_order_row serves that delete). The rows of the history written
-- before this migration are numbered by time, then instance, then seq.
-- IF NOT EXISTS and NOT EXISTS: a test that takes a database back to an
-- older version applies this file again.
CREATE TABLE IF NOT EXISTS fact_order (
    pos          INTEGER PRIMARY KEY AUTOINCREMENT,
    instance_seq INTEGER NOT NULL,
    seq          INTEGER NOT NULL,
    at           INTEGER NOT NULL
);

CREATE INDEX IF NOT EXISTS fact_order_row ON fact_order (instance_seq, seq);

INSERT INTO fact_order (instance_seq, seq, at)
SELECT f.instance_seq, f.seq, i.created_at + f.at
  FROM facts f JOIN instances i ON i.seq = f.instance_seq
 WHERE NOT EXISTS (SELECT 1 FROM fact_order o WHERE o.instance_seq = f.instance_seq AND o.seq = f.seq)
 ORDER BY i.created_at + f.at, f.instance_seq, f.seq;

CREATE TRIGGER IF NOT EXISTS facts_ordered AFTER INSERT ON facts
BEGIN
    INSERT INTO fact_order (instance_seq, seq, at)
    VALUES (NEW.instance_seq, NEW.seq, NEW.at + (SELECT created_at FROM instances WHERE seq = NEW.instance_seq));
END;

CREATE TRIGGER IF NOT EXISTS facts_unordered AFTER DELETE ON facts
BEGIN
    DELETE FROM fact_order WHERE instance_seq = OLD.instance_seq AND seq = OLD.seq;
END;
