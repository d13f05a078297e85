-- 0015_instance_variables: the variable index. One row per top-level
-- (process-instance scope) variable of an instance: its name and its value
-- key (runtime.VariableValueKey: the canonical JSON, or "#sha256:" and the
-- hash of a canonical JSON longer than 1 KiB), so GET /api/v1/instances
-- ?var=name=value and the cockpit's list find instances by a variable's
-- value exactly, probing this primary key, without reading a state (the
-- parts stay opaque). A step that writes the root scope's part rewrites
-- the rows of the variables whose value changed and deletes the removed
-- ones (store: applyVariables). Ended instances keep their rows (their
-- parts stay too) until retention deletes the instance.
CREATE TABLE instance_variables (
    instance_seq INTEGER NOT NULL,
    name         TEXT    NOT NULL,
    value        TEXT    NOT NULL,
    PRIMARY KEY (instance_seq, name)
) WITHOUT ROWID, STRICT;

-- instance_variables_pending: the instances stored before the index; the
-- store indexes their variables from their root scope parts when it opens
-- (indexPendingVariables, in bounded batches, each its own transaction, so
-- an interrupted start resumes where it stopped) and removes them here.
-- The parts are stored abbreviated, so SQL cannot read them here.
CREATE TABLE instance_variables_pending (
    instance_seq INTEGER NOT NULL PRIMARY KEY
) WITHOUT ROWID, STRICT;

INSERT INTO instance_variables_pending (instance_seq) SELECT seq FROM instances;
