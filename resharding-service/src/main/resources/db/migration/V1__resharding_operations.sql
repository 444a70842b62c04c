-- The resharding coordinator's state documents (MongoDB's config.reshardingOperations): one row per reshardCollection,
-- its state machine's state and the fields it has fixed so far (the rest of the document, as BSON). A collection has at
-- most one unfinished operation; a quiesced one stays a while so that a retried identical command gets its result.
CREATE TABLE resharding_operations (
    id              uuid PRIMARY KEY,       -- _id: the resharding UUID (also the temporary collection's suffix)
    namespace       text NOT NULL,          -- ns: "db.coll"
    state           text NOT NULL,          -- CoordinatorState's value: initializing, preparing-to-donate, ..., done
    document        bytea NOT NULL,         -- the whole state document as BSON (ReshardingOperation#toBson)
    -- the coordinator instance allowed to write the row: a coordinator claims it by raising the generation, and every
    -- later write of that coordinator names it, so a coordinator that lost the row (a newer one resumed it) cannot write
    generation      bigint NOT NULL DEFAULT 0,
    -- abortReshardCollection's request, set only while no commit decision is persisted (the decision is taken only
    -- while it is unset): the two race on this row and exactly one wins
    abort_requested boolean NOT NULL DEFAULT false,
    created_at      timestamptz NOT NULL DEFAULT now(),
    updated_at      timestamptz NOT NULL DEFAULT now()
);
-- One resharding per collection: every operation but the finished (done) ones.
CREATE UNIQUE INDEX resharding_operations_one_per_namespace ON resharding_operations (namespace) WHERE state <> 'done';
