-- reshardCollection holds its collection in sharding_ddl_coordinators while the resharding service runs it (issue 38):
-- the row refuses the collection's other DDL and its chunk migrations and commits (ConflictingOperationInProgress), as
-- MongoDB's DDL lock and allowMigrations: false do. Its `state` keeps {reshardingUUID}; the config service does not
-- resume such a row itself (the resharding coordinator owns the operation). Numbered after the issue so that it does
-- not collide with the other migrations being written at the same time.
ALTER TABLE sharding_ddl_coordinators DROP CONSTRAINT sharding_ddl_coordinators_operation_check;
ALTER TABLE sharding_ddl_coordinators ADD CONSTRAINT sharding_ddl_coordinators_operation_check
    CHECK (operation IN ('dropCollection', 'movePrimary', 'reshardCollection'));
