-- 0028_variable_search: typed, comparable forms of the variable index, so
-- GET /api/v1/instances?var=name:op:value compares numbers, texts and
-- times with ranges (store.IndexedVariable): value_num holds a JSON
-- number's value, value_text a JSON string's text (when its canonical JSON
-- is at most 1 KiB: a longer one is indexed by its hash only), value_time
-- the unix nanoseconds of a string holding an RFC 3339 time or date
-- (store.ParseVariableTime). NULL where a value has no such form.
ALTER TABLE instance_variables ADD COLUMN value_num REAL;
ALTER TABLE instance_variables ADD COLUMN value_text TEXT;
ALTER TABLE instance_variables ADD COLUMN value_time INTEGER;

-- One index per column, by name then value, so a filter reads the range
-- of its matches (and the list decides from its size whether they drive
-- the page: sqlquery.DriveVariableLimit). Each ends with the primary key.
CREATE INDEX instance_variables_value ON instance_variables (name, value);
CREATE INDEX instance_variables_num   ON instance_variables (name, value_num)  WHERE value_num IS NOT NULL;
CREATE INDEX instance_variables_text  ON instance_variables (name, value_text) WHERE value_text IS NOT NULL;
CREATE INDEX instance_variables_time  ON instance_variables (name, value_time) WHERE value_time IS NOT NULL;

-- The backfill: the instances with a number or string variable are
-- indexed again from their root scope parts when the store opens
-- (indexPendingVariables, as for 0015): the typed forms are Go's
-- decisions (what a number is, what an RFC 3339 time is), not SQL's.
INSERT OR IGNORE INTO instance_variables_pending (instance_seq)
    SELECT DISTINCT instance_seq FROM instance_variables
    WHERE substr(value, 1, 1) IN ('"', '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9');

-- saved_filters: the instance-list filters a cockpit user saved under a
-- name (the list's query string), per user.
CREATE TABLE saved_filters (
    user_id    TEXT    NOT NULL,
    name       TEXT    NOT NULL,
    query      TEXT    NOT NULL,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (user_id, name)
) WITHOUT ROWID, STRICT;
