-- Resharding donors (issue 38; MongoDB's config.localReshardingOperations.donor): one row per resharding operation this
-- shard donates to, with the minFetchTimestamp it reported. A restarted shard pins its oplog after it again before
-- retention first runs, so the recipients' fetch still finds every entry. Numbered after the issue so that it does not
-- collide with the other migrations being written at the same time.
CREATE TABLE resharding_donors (
    resharding_uuid     uuid PRIMARY KEY,
    namespace           text NOT NULL,          -- "db.coll"
    min_fetch_timestamp bigint NOT NULL,        -- the Timestamp's 64-bit value (seconds << 32 | increment), as a signed bigint
    created_at          timestamptz NOT NULL DEFAULT now()
);
