-- Secondary indexes (MongoDB's createIndexes): one catalog row per index of a collection; each index's
-- entries live in their own table i_<32 hex> (key bytea = KeyString of the key values with the
-- index's Ordering, id bytea = the document's _id KeyString) under a B-tree on (key, id), plus a
-- unique constraint on key for unique indexes. The _id_ index is the collection table's primary key
-- and has no row here.
CREATE TABLE indexes (
    collection_uuid uuid    NOT NULL,
    name            text    NOT NULL,
    spec            bytea   NOT NULL,        -- BSON {key, name, unique?, sparse?, partialFilterExpression?}
    table_name      text    NOT NULL UNIQUE CHECK (table_name ~ '^i_[0-9a-f]{32}$'),
    multikey        boolean NOT NULL DEFAULT false,
    created_seq     bigserial,
    PRIMARY KEY (collection_uuid, name)
);
