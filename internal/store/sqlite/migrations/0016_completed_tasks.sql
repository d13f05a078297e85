-- 0016_completed_tasks: the user tasks people completed, kept after their
-- wait is gone so that an inbox can list them ("Completed"). One row per
-- completed task, written in the step's transaction that completed it
-- (runtime.StepRecord.CompletedTasks); the process key, business key and
-- instance id are the instance row's, read with a join. An instance's
-- rows go with it when it is deleted.
CREATE TABLE completed_tasks (
    instance_seq INTEGER NOT NULL,
    task_id      TEXT    NOT NULL,
    node_id      TEXT    NOT NULL,
    name         TEXT    NOT NULL DEFAULT '',
    completed_by TEXT    NOT NULL,
    created_at   INTEGER NOT NULL,
    completed_at INTEGER NOT NULL,
    PRIMARY KEY (instance_seq, task_id)
) WITHOUT ROWID, STRICT;

CREATE INDEX completed_tasks_at ON completed_tasks (completed_at DESC, task_id DESC);
CREATE INDEX completed_tasks_by ON completed_tasks (completed_by, completed_at DESC, task_id DESC);
