-- 0024_parts_rowid: instance_parts becomes a rowid table with a unique
-- index on (instance_seq, kind, key), so no part's data sits in the B-tree
-- every part's seek walks.
--
-- Since 0005 instance_parts was WITHOUT ROWID: its rows were the cells of
-- the primary key's B-tree, and a row can be a separator cell of an
-- interior page. A part of several MB (a scope holding a big variable) then
-- made every seek that compared against it read its whole overflow chain:
-- cancelling a 40,000-iteration multi-instance beside such an instance
-- deleted 120,000 parts, each seek reading the big row, and held the
-- writer for minutes. Now the rows live in a table keyed by rowid (its
-- interior cells are integers) and the key is a unique index whose entries
-- are the key columns and the rowid only, so a seek reads small cells
-- and then the one row it wants; a part's data is read only when that part
-- is. The columns, their affinities (key BLOB keeps TEXT, BLOB and INTEGER
-- keys as written) and every query stay as they were.
--
-- The table is rebuilt: the old one renamed out of the way, the new one
-- created under the final name, every row copied, the old one dropped.

ALTER TABLE instance_parts RENAME TO instance_parts_old;

-- instance_parts: the state of an instance beyond its header (see 0005).
-- data is last, so reading key and ord never reads a big part's overflow.
CREATE TABLE instance_parts (
    instance_seq INTEGER NOT NULL REFERENCES instances (seq),
    kind         INTEGER NOT NULL,
    key          BLOB    NOT NULL,
    ord          INTEGER NOT NULL,
    data         BLOB    NOT NULL
);

INSERT INTO instance_parts (instance_seq, kind, key, ord, data)
SELECT instance_seq, kind, key, ord, data FROM instance_parts_old ORDER BY instance_seq, kind, key;

DROP TABLE instance_parts_old;

-- The key of a part: a step's upserts, updates and deletes seek it, an
-- instance's read and a kind's page read a range of it.
CREATE UNIQUE INDEX instance_parts_key ON instance_parts (instance_seq, kind, key);
