-- A job's span context while tracing is on (--otel-endpoint): the W3C
-- traceparent of the job's span, its parent span and its start, so the
-- step that ends the job (perhaps after a restart) ends its span; '' when
-- tracing was off as the job was created.
ALTER TABLE waits ADD COLUMN trace_context TEXT NOT NULL DEFAULT '';
