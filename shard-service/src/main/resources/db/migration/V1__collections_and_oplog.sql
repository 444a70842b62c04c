-- The shard's local catalog: one row per collection that exists on this shard. Each collection's
-- documents live in their own table, named by the service (never from user input): c_<uuid hex>.
CREATE TABLE collections (
    namespace  text PRIMARY KEY,             -- "db.collection"
    db         text NOT NULL,
    name       text NOT NULL,
    uuid       uuid NOT NULL UNIQUE,         -- the collection instance (new on drop and re-create)
    table_name text NOT NULL UNIQUE CHECK (table_name ~ '^c_[0-9a-f]{32}$'),
    options    bytea NOT NULL                -- BSON document of the create options
);
CREATE INDEX collections_db ON collections (db);

-- The shard's oplog (MongoDB's local.oplog.rs): every write appends here in the same transaction.
-- ts is the cluster time of the entry as a BSON Timestamp's 64-bit value (seconds << 32 | increment).
CREATE TABLE oplog (
    seq bigserial PRIMARY KEY,
    ts  bigint  NOT NULL UNIQUE,
    op  char(1) NOT NULL CHECK (op IN ('i', 'u', 'd', 'c')),
    ns  text    NOT NULL,                    -- "db.collection", or "db.$cmd" for commands
    o2  bytea,                               -- document key {_id: ...} (i, u, d)
    o   bytea                                -- inserted document, post-image (u), command (c); NULL for d
);
