-- config.changelog (MongoDB's): what happened to the cluster's metadata, written by the config service and, through
-- _configsvrLogChange, by shards (chunk migrations: moveChunk.start, .commit, .error, .from, .to). Readable through the
-- router as find on config.changelog, oldest first.
CREATE TABLE changelog (
    seq      bigserial PRIMARY KEY,          -- insertion order
    id       text NOT NULL UNIQUE,           -- MongoDB's _id "<server>-<time>-<ObjectId>"
    server   text NOT NULL,                  -- who wrote it: a shard's name or "config"
    shard    text NOT NULL,                  -- the shard the entry is about ("config" for the config service itself)
    time     timestamptz NOT NULL DEFAULT now(),
    what     text NOT NULL,                  -- e.g. "moveChunk.commit"
    ns       text NOT NULL,                  -- "db.coll"
    details  bytea NOT NULL                  -- BSON document
);
CREATE INDEX changelog_ns ON changelog (ns, seq);
