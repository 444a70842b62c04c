-- The version store of snapshot reads (docs/architecture.md "Snapshot reads"): a read at cluster time T sees the
-- current documents, less every change whose time is after T, undone from the change's own entry.
-- pre: the document as it was before an update or a delete (its pre-image); NULL for inserts, commands, and every
-- entry written before this column existed (a snapshot read that would need one answers SnapshotTooOld).
ALTER TABLE oplog ADD COLUMN pre bytea;

-- The commit times of prepared transactions: their entries were given times at the prepare, and become visible at
-- the coordinator's commit time, which is later (the highest prepare time of all participants). Written before
-- COMMIT PREPARED, so a read at a time between the two never sees the entries; deleted with the history window.
CREATE TABLE transaction_commit_times (
    first_ts_key bigint  PRIMARY KEY,       -- the stored ts_key of the transaction's first entry
    entries      integer NOT NULL CHECK (entries > 0),
    commit_ts    bigint  NOT NULL           -- the commit's Timestamp value (not the stored form)
);
