-- The oplog becomes readable by chunk migration's transferMods and resharding's oplog fetcher (see Oplog.java).
--
-- ts -> ts_key: a BSON Timestamp's 64-bit value (seconds << 32 | increment) compares unsigned and its seconds run
-- to 2^32 - 1 (2106). Stored as is in a signed bigint it turns negative in 2038 and sorts first. ts_key holds the
-- value with its sign bit flipped (XOR 0x8000000000000000), which maps unsigned order onto signed order, so one
-- 8-byte B-tree key orders every Timestamp. Existing values (all below 2038) are converted; their order is kept.
ALTER TABLE oplog DROP CONSTRAINT oplog_pkey;
ALTER TABLE oplog DROP CONSTRAINT oplog_ts_key;
ALTER TABLE oplog DROP COLUMN seq;
ALTER TABLE oplog RENAME COLUMN ts TO ts_key;
UPDATE oplog SET ts_key = ts_key # '-9223372036854775808'::bigint;
ALTER TABLE oplog ADD PRIMARY KEY (ts_key);

-- ui: the collection's UUID from the shard's catalog (a drop and re-create between two reads is visible).
-- Document entries of collections that still exist get theirs; command entries written before (their collection
-- name is inside the BSON command) and entries of dropped collections keep null: no reader starts before now.
ALTER TABLE oplog ADD COLUMN ui uuid;
UPDATE oplog o SET ui = c.uuid FROM collections c
 WHERE o.op IN ('i', 'u', 'd') AND o.ns = c.namespace;

-- shard_key: the KeyString of the document's shard key (null for an unsharded collection), so that a chunk range
-- [min, max) of one collection is an index range scan; pre_shard_key: the shard key before an update that changed
-- it. Earlier entries were written without them (the collections were unsharded or their key unrecorded).
ALTER TABLE oplog ADD COLUMN shard_key bytea;
ALTER TABLE oplog ADD COLUMN pre_shard_key bytea;
-- fromMigrate: written by chunk migration on the recipient or by range deletion.
ALTER TABLE oplog ADD COLUMN from_migrate boolean NOT NULL DEFAULT false;

CREATE INDEX oplog_ui_ts ON oplog (ui, ts_key);
CREATE INDEX oplog_ui_shard_key ON oplog (ui, shard_key, ts_key);
CREATE INDEX oplog_ui_pre_shard_key ON oplog (ui, pre_shard_key, ts_key) WHERE pre_shard_key IS NOT NULL;
