-- Zones (MongoDB's): the zones each shard belongs to (config.shards.tags) and the shard key ranges pinned to a zone
-- (config.tags: {_id: {ns, min}, ns, min, max, tag}). Set by addShardToZone / removeShardFromZone / updateZoneKeyRange,
-- read by the balancer.
CREATE TABLE shard_zones (
    shard  text NOT NULL REFERENCES shards (id) ON DELETE CASCADE,
    zone   text NOT NULL,
    PRIMARY KEY (shard, zone)
);

CREATE TABLE tags (
    ns        text NOT NULL,
    min_bson  bytea NOT NULL,                -- the range's bounds as BSON documents in shard key pattern shape
    max_bson  bytea NOT NULL,
    tag       text NOT NULL,
    PRIMARY KEY (ns, min_bson)
);
