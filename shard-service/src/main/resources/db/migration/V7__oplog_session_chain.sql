-- A retryable write's history is found by walking prev_op_time from the transactions row's last_write_op_time
-- (SessionHistory.load, one primary-key lookup per entry), as MongoDB walks its oplog chain. The index on the
-- session columns was only read on a retry but written for every statement of every retryable write: on a routed
-- bulk load it cost PostgreSQL 5-15% of its CPU (issue 10, docs/benchmarks.md).
DROP INDEX oplog_session;
