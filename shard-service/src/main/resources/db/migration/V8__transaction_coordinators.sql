-- Two-phase commit's coordinator documents (MongoDB's config.transaction_coordinators; docs/architecture.md
-- "Multi-document transactions"): one row per transaction this shard coordinates. The participants are written
-- before any is asked to prepare, the decision (commit with its commit time, or abort) before any is told, and the
-- row is deleted once every participant has applied it; a restarted shard resumes every row from what it says.
CREATE TABLE transaction_coordinators (
    lsid         bytea   NOT NULL,          -- the session: the BSON of {id, uid?}
    txn_number   bigint  NOT NULL,
    participants text[]  NOT NULL,          -- shard names, the coordinator's own included
    decision     text    CHECK (decision IN ('commit', 'abort')),
    commit_ts    bigint,                    -- the commit's Timestamp value (the highest prepare time), with 'commit'
    PRIMARY KEY (lsid, txn_number)
);
