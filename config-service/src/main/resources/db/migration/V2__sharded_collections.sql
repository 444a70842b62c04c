-- Sharded collections (issue 4, docs/sharding-protocol.md): config.collections and config.chunks.

-- config.collections: {_id: ns, lastmodEpoch, timestamp, uuid, key, unique, noBalance}.
CREATE TABLE collections (
    namespace      text PRIMARY KEY,
    uuid           uuid NOT NULL UNIQUE,
    epoch          text NOT NULL,        -- ObjectId, 24 hex digits
    timestamp_secs bigint NOT NULL,      -- Timestamp(seconds, increment) of the epoch's creation
    timestamp_inc  bigint NOT NULL,
    key_pattern    bytea NOT NULL,       -- the shard key pattern as a BSON document
    unique_key     boolean NOT NULL,
    no_balance     boolean NOT NULL DEFAULT false
);

-- config.chunks: {_id, uuid, min, max, shard, lastmod, jumbo, history: [{validAfter, shard}]}. The bounds are kept
-- twice: as BSON documents (what readers get back) and as their KeyString encodings (ShardKeyPattern.encode), so
-- that PostgreSQL compares and orders them in BSON order with plain bytea comparison.
CREATE TABLE chunks (
    id              text PRIMARY KEY,    -- ObjectId, 24 hex digits
    collection_uuid uuid NOT NULL REFERENCES collections (uuid) ON DELETE CASCADE,
    min_key         bytea NOT NULL,
    max_key         bytea NOT NULL,
    min_bson        bytea NOT NULL,
    max_bson        bytea NOT NULL,
    shard           text NOT NULL REFERENCES shards (id),
    major           integer NOT NULL CHECK (major >= 0),
    minor           integer NOT NULL CHECK (minor >= 0),
    epoch           text NOT NULL,
    timestamp_secs  bigint NOT NULL,
    timestamp_inc   bigint NOT NULL,
    jumbo           boolean NOT NULL DEFAULT false,
    history         bytea NOT NULL,      -- BSON document {history: [{validAfter: Timestamp, shard}]}, newest first
    CHECK (min_key < max_key),
    UNIQUE (collection_uuid, min_key)
);

-- Incremental refreshes read the chunks newer than a version; split and migration need a shard's version.
CREATE INDEX chunks_by_version ON chunks (collection_uuid, major, minor);
CREATE INDEX chunks_by_shard ON chunks (collection_uuid, shard, major, minor);

-- ROUTING_CHANGED events carry the collection epoch, the new collection version and the shards concerned.
ALTER TABLE outbox
    ADD COLUMN epoch text,
    ADD COLUMN collection_version text,
    ADD COLUMN shards text[] NOT NULL DEFAULT '{}';
