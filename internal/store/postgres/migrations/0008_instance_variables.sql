-- 0008_instance_variables: the variable index (the SQLite store's 0015).
-- One row per top-level (process-instance scope) variable of an instance:
-- its name and its value key (runtime.VariableValueKey: the canonical
-- JSON, or "#sha256:" and the hash of a canonical JSON longer than 1 KiB),
-- so instance lists filter by a variable's value exactly by this primary
-- key, without reading a state. A step that writes the root scope's part
-- rewrites the rows whose value changed and deletes the removed ones.
CREATE TABLE instance_variables (
    instance_seq BIGINT NOT NULL,
    name         TEXT COLLATE "C" NOT NULL,
    value        TEXT COLLATE "C" NOT NULL,
    PRIMARY KEY (instance_seq, name)
);

-- instance_variables_pending: the instances stored before the index; the
-- store indexes their variables from their root scope parts when it opens
-- (in bounded batches, each its own transaction: resumable) and removes
-- them here. The canonical JSON of a value is Go's, so SQL does not write it.
CREATE TABLE instance_variables_pending (
    instance_seq BIGINT NOT NULL PRIMARY KEY
);

INSERT INTO instance_variables_pending (instance_seq) SELECT seq FROM instances;
