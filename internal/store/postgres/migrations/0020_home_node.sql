-- 0020_home_node: an instance's home node, the node whose step of it
-- committed last (written by that step's own UPDATE, no statement of its
-- own). Job activation and due-timer claims hold a job or timer of an
-- instance homed on another live node back from the other nodes for a
-- short grace, so that the node whose cache holds the instance steps it
-- (README "Running several nodes"). '' for an instance written before
-- 0018: nobody's home, anybody's work. (IF NOT EXISTS: the upgrade tests
-- take a database back below 0010 and apply the later migrations again.)
ALTER TABLE instances ADD COLUMN IF NOT EXISTS home_node TEXT COLLATE "C" NOT NULL DEFAULT '';
