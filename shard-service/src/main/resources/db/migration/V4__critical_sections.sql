-- Critical sections (MongoDB's config.collection_critical_sections): a namespace in one blocks versioned writes
-- (phase 1, catch-up) or versioned reads and writes (phase 2, commit) until the operation that entered it exits it.
-- Persisted so that a shard restarted inside a section keeps blocking: it is restored before the shard serves.
CREATE TABLE critical_sections (
    namespace  text PRIMARY KEY,             -- "db.collection"
    phase      text NOT NULL CHECK (phase IN ('CATCH_UP', 'COMMIT')),
    reason     bytea NOT NULL,               -- BSON document naming the operation that holds it ({command, ns})
    entered_at timestamptz NOT NULL DEFAULT now(),
    expires_at timestamptz                   -- released by itself at this time; null: held until exited
);
