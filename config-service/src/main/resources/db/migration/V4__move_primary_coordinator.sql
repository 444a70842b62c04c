-- movePrimary's coordinator joins dropCollection's in sharding_ddl_coordinators (MongoDB keeps every DDL coordinator
-- type in config.system.sharding_ddl_coordinators). A database-level operation's row is keyed by the bare database
-- name (no dot), a collection's by "db.coll"; the operation's own fields that have no column live in `state` (BSON;
-- movePrimary: {from, to, version, collections}).
ALTER TABLE sharding_ddl_coordinators DROP CONSTRAINT sharding_ddl_coordinators_operation_check;
ALTER TABLE sharding_ddl_coordinators ADD CONSTRAINT sharding_ddl_coordinators_operation_check
    CHECK (operation IN ('dropCollection', 'movePrimary'));
ALTER TABLE sharding_ddl_coordinators ADD COLUMN state bytea;
