-- The error details (a stack trace) of a job's last failure, as Camunda 7's
-- external task failure reports them: read one job at a time, written right
-- after the failure's step, and gone with the job's row.
ALTER TABLE waits ADD COLUMN error_details TEXT;
