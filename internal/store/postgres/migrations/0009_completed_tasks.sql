-- 0009_completed_tasks: the user tasks people completed (the SQLite store's
-- 0016), kept after their wait is gone so that an inbox can list them.
-- One row per completed task, written in the step's transaction that
-- completed it; process key, business key and instance id are the
-- instance row's, read with a join. An instance's rows go with it.
CREATE TABLE completed_tasks (
    instance_seq BIGINT NOT NULL,
    task_id      TEXT COLLATE "C" NOT NULL,
    node_id      TEXT COLLATE "C" NOT NULL,
    name         TEXT NOT NULL DEFAULT '',
    completed_by TEXT COLLATE "C" NOT NULL,
    created_at   BIGINT NOT NULL,
    completed_at BIGINT NOT NULL,
    PRIMARY KEY (instance_seq, task_id)
);

CREATE INDEX completed_tasks_at ON completed_tasks (completed_at DESC, task_id DESC);
CREATE INDEX completed_tasks_by ON completed_tasks (completed_by, completed_at DESC, task_id DESC);
