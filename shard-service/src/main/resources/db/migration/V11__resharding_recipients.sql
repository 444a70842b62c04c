-- Resharding recipients (issue 38; MongoDB's config.localReshardingOperations.recipient and its per-donor progress):
-- one row per resharding operation and donor this shard receives from: the clone's resume token (the _id KeyString of
-- the last document read, in _id order) and whether the clone from that donor is done, then the oplog position applied
-- through. Each row changes in the same PostgreSQL transaction as the documents it accounts for, so a restarted
-- recipient resumes exactly where it stopped. Numbered 38.1: after the donors' table, without taking a number another
-- issue may use.
CREATE TABLE resharding_recipients (
    resharding_uuid  uuid NOT NULL,
    donor            text NOT NULL,
    namespace        text NOT NULL,           -- "db.coll", the collection resharded
    clone_after      bytea NOT NULL,          -- empty: the clone starts at the beginning
    cloned           boolean NOT NULL DEFAULT false,
    applied_through  bigint NOT NULL,         -- Timestamp value (seconds << 32 | increment): cloneTimestamp at first
    documents_copied bigint NOT NULL DEFAULT 0,
    PRIMARY KEY (resharding_uuid, donor)
);
