-- 0007_instance_tokens: the token index (the SQLite store's 0014). One row per token
-- of an instance — a live track and the element it stands on — so the
-- tokens at each element of a process version are counted over all its
-- instances exactly, without reading a state. Each step writes the rows of
-- the tracks it changed; a step that ends its instance drops its rows.
CREATE TABLE instance_tokens (
    instance_seq BIGINT NOT NULL,
    track        TEXT COLLATE "C" NOT NULL,
    node_id      TEXT COLLATE "C" NOT NULL,
    PRIMARY KEY (instance_seq, track)
);

-- instance_tokens_pending: the instances not ended when the index was added; the
-- runtime indexes their tokens at start-up (IndexTokens) and removes them.
CREATE TABLE instance_tokens_pending (
    instance_seq BIGINT NOT NULL PRIMARY KEY
);

INSERT INTO instance_tokens_pending (instance_seq) SELECT seq FROM instances WHERE ended_at IS NULL;
