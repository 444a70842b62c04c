-- DDL coordinators (MongoDB's config.system.sharding_ddl_coordinators): one document per namespace with an unfinished
-- DDL operation and the phase it has reached. Its existence also serializes DDL on the namespace (a second drop joins
-- it; shardCollection, refine and chunk commits are ConflictingOperationInProgress), and the config service resumes
-- every document it finds, at its phase, when it starts.
CREATE TABLE sharding_ddl_coordinators (
    namespace       text PRIMARY KEY,       -- "db.coll"
    operation       text NOT NULL CHECK (operation IN ('dropCollection')),
    phase           text NOT NULL,          -- the next phase to run (DropCollectionPhase)
    collection_uuid uuid,                   -- the sharded collection instance being dropped; null: it was not sharded
    created_at      timestamptz NOT NULL DEFAULT now(),
    updated_at      timestamptz NOT NULL DEFAULT now()
);
