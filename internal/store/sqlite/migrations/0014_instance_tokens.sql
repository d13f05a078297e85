-- 0014_instance_tokens: the token index. One row per token of an instance — a live
-- track and the element it stands on — so the cockpit counts the tokens at
-- each element of a process version over all its instances exactly, with
-- a GROUP BY, without reading a single state (the parts stay opaque). Each
-- step writes the rows of the tracks it changed (runtime.StepRecord.Tokens,
-- RemovedTokens), so a step costs what it changes; a step that ends its
-- instance drops the instance's rows.
CREATE TABLE instance_tokens (
    instance_seq INTEGER NOT NULL,
    track        TEXT    NOT NULL,
    node_id      TEXT    NOT NULL,
    PRIMARY KEY (instance_seq, track)
) WITHOUT ROWID, STRICT;

-- instance_tokens_pending: the instances not ended when the index was added; the
-- runtime indexes their tokens from their states at start-up
-- (Runtime.Prepare, IndexTokens) and removes them from here.
CREATE TABLE instance_tokens_pending (
    instance_seq INTEGER NOT NULL PRIMARY KEY
) WITHOUT ROWID, STRICT;

INSERT INTO instance_tokens_pending (instance_seq) SELECT seq FROM instances WHERE ended_at IS NULL;
