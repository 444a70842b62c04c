-- Retryable writes (reference: "Retryable writes", "The transactions table").
--
-- Session columns of the oplog, set on the entry a retryable write's statement wrote, in the same transaction:
-- lsid (the BSON of {id, uid?}), txn_number, stmt_id, prev_op_time (the ts_key of the session's previous write of
-- the same txnNumber, NULL for the first: the chain a retry walks) and pre_image (findAndModify's document before
-- the change, which a retry answers with; MongoDB's needsRetryImage side row).
ALTER TABLE oplog ADD COLUMN lsid bytea;
ALTER TABLE oplog ADD COLUMN txn_number bigint;
ALTER TABLE oplog ADD COLUMN stmt_id integer;
ALTER TABLE oplog ADD COLUMN prev_op_time bigint;
ALTER TABLE oplog ADD COLUMN pre_image bytea;
CREATE INDEX oplog_session ON oplog (lsid, txn_number) WHERE lsid IS NOT NULL;

-- config.transactions: one row per session with a retryable write on this shard, replaced by each higher
-- txnNumber. last_write_op_time is the ts_key of the session's newest oplog entry; state is a transaction's
-- (committed, aborted, ...) and stays NULL for retryable writes.
CREATE TABLE transactions (
    lsid               bytea       PRIMARY KEY,
    txn_num            bigint      NOT NULL,
    last_write_op_time bigint      NOT NULL,
    last_write_date    timestamptz NOT NULL,
    state              text
);
