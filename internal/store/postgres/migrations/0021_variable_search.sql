-- 0021_variable_search: typed, comparable forms of the variable index
-- (the SQLite store's 0028): value_num a JSON number's value, value_text a
-- JSON string's text (canonical JSON at most 1 KiB), value_time the unix
-- nanoseconds of a string holding an RFC 3339 time or date; NULL where a
-- value has no such form. (IF NOT EXISTS: the upgrade tests take a
-- database back below 0010 and apply the later migrations again.)
ALTER TABLE instance_variables ADD COLUMN IF NOT EXISTS value_num  DOUBLE PRECISION;
ALTER TABLE instance_variables ADD COLUMN IF NOT EXISTS value_text TEXT COLLATE "C";
ALTER TABLE instance_variables ADD COLUMN IF NOT EXISTS value_time BIGINT;

-- One index per column, by name then value: a filter reads the range of
-- its matches.
CREATE INDEX IF NOT EXISTS instance_variables_value ON instance_variables (name, value);
CREATE INDEX IF NOT EXISTS instance_variables_num   ON instance_variables (name, value_num)  WHERE value_num IS NOT NULL;
CREATE INDEX IF NOT EXISTS instance_variables_text  ON instance_variables (name, value_text) WHERE value_text IS NOT NULL;
CREATE INDEX IF NOT EXISTS instance_variables_time  ON instance_variables (name, value_time) WHERE value_time IS NOT NULL;

-- The backfill: the instances with a number or string variable are
-- indexed again from their root scope parts when the store opens (as for
-- 0008): the typed forms are Go's decisions, not SQL's.
INSERT INTO instance_variables_pending (instance_seq)
    SELECT DISTINCT instance_seq FROM instance_variables
    WHERE substr(value, 1, 1) IN ('"', '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9')
    ON CONFLICT DO NOTHING;

-- saved_filters: the instance-list filters a cockpit user saved under a
-- name (the list's query string), per user.
CREATE TABLE IF NOT EXISTS saved_filters (
    user_id    TEXT COLLATE "C" NOT NULL,
    name       TEXT COLLATE "C" NOT NULL,
    query      TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    PRIMARY KEY (user_id, name)
);
