-- Chunk migration (reference: "Migrations"; docs/sharding-protocol.md, "Chunk migration").

-- The donor's migration coordinator documents (MongoDB's config.migrationCoordinators): one per migration this shard
-- donates, written before the recipient is asked to start and deleted once the migration's outcome is applied on both
-- shards. The decision (null while undecided) is recorded before it is acted on, so a donor restarted at any step
-- finishes the commit or abort path; an undecided document is decided from the catalog (the config commit is the point
-- of no return).
CREATE TABLE migration_coordinators (
    id                  uuid PRIMARY KEY,      -- the migration id
    namespace           text NOT NULL,         -- "db.coll"
    collection_uuid     uuid NOT NULL,         -- the donor's collection instance
    min_bson            bytea NOT NULL,        -- the chunk range as BSON bounds
    max_bson            bytea NOT NULL,
    donor               text NOT NULL,
    recipient           text NOT NULL,
    pre_migration_version bytea NOT NULL,      -- BSON ChunkVersion: the collection version when the migration started
    decision            text CHECK (decision IN ('committed', 'aborted')),
    created_at          timestamptz NOT NULL DEFAULT now(),
    updated_at          timestamptz NOT NULL DEFAULT now()
);

-- Range deletion tasks (MongoDB's config.rangeDeletions): ranges of a collection whose documents this shard must delete
-- because it does not own them (the donor's copy after a commit, the recipient's partial copy after an abort). Written
-- pending by both sides when a migration starts; the decision makes one side's task ready and deletes the other's. Ready
-- tasks are run by the range deleter, after orphanCleanupDelaySecs for a 'delayed' one; they survive restarts.
CREATE TABLE range_deletions (
    id              uuid PRIMARY KEY,          -- the migration id
    namespace       text NOT NULL,
    collection_uuid uuid NOT NULL,             -- the collection instance the orphans are in (a re-created one is left alone)
    key_pattern     bytea NOT NULL,            -- BSON shard key pattern
    min_bson        bytea NOT NULL,
    max_bson        bytea NOT NULL,
    min_key         bytea NOT NULL,            -- KeyString of the bounds under the shard key
    max_key         bytea NOT NULL,
    pending         boolean NOT NULL,          -- true until the migration's decision makes it this shard's to delete
    side            text NOT NULL CHECK (side IN ('donor', 'recipient')),
    when_to_clean   text NOT NULL CHECK (when_to_clean IN ('now', 'delayed')),
    created_at      timestamptz NOT NULL DEFAULT now(),
    ready_at        timestamptz,               -- when pending became false
    CHECK (min_key < max_key)
);
CREATE INDEX range_deletions_by_namespace ON range_deletions (namespace, min_key);
