-- The authoritative catalog, mirroring MongoDB's config collections (DESIGN.md §3).

-- config.shards: {_id, host, state}; state 1 = active, 2 = draining (not used yet).
CREATE TABLE shards (
    id         text PRIMARY KEY,
    host       text NOT NULL UNIQUE,
    state      integer NOT NULL DEFAULT 1,
    created_at timestamptz NOT NULL DEFAULT now()
);

-- config.databases: {_id, primary, version: {uuid, lastMod, timestamp}}.
CREATE TABLE databases (
    id                text PRIMARY KEY,
    primary_shard     text NOT NULL REFERENCES shards (id),
    version_uuid      uuid NOT NULL,
    version_last_mod  integer NOT NULL CHECK (version_last_mod >= 0),
    version_timestamp bigint NOT NULL
);

-- Transactional outbox: written in the same transaction as the catalog change it announces, relayed
-- to Kafka by OutboxRelay, deleted once the broker acknowledged it.
CREATE TABLE outbox (
    seq        bigserial PRIMARY KEY,
    topic      text NOT NULL,
    event_type text NOT NULL,
    database   text NOT NULL,
    namespace  text,
    created_at timestamptz NOT NULL DEFAULT now()
);
