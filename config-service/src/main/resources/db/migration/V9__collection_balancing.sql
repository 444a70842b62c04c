-- configureCollectionBalancing (MongoDB's config.collections fields): the collection's own maximum chunk size in bytes
-- (NULL: the cluster's chunksize setting) and whether the auto-merger may join its chunks (NULL: the default, true).
ALTER TABLE collections
    ADD COLUMN max_chunk_size_bytes bigint CHECK (max_chunk_size_bytes > 0),
    ADD COLUMN enable_auto_merger boolean;

-- The balancer's round counter (balancerStatus.numBalancerRounds), kept here so that it survives a restart of the
-- balancer service: each round takes its number from it. One row.
CREATE TABLE balancer_rounds (
    id      boolean PRIMARY KEY DEFAULT true CHECK (id),
    rounds  bigint NOT NULL
);
INSERT INTO balancer_rounds (id, rounds) VALUES (true, 0);
