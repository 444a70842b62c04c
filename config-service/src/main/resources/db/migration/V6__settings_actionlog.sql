-- config.settings (MongoDB's): cluster-wide settings documents by _id: "balancer" {mode, activeWindow,
-- attemptToBalanceJumboChunks, policy}, "chunksize" {value: MB}, "automerge" {enabled}. The balancer service reads them every round.
CREATE TABLE settings (
    id   text PRIMARY KEY,                   -- the document's _id
    doc  bytea NOT NULL                      -- the BSON document without _id
);

-- config.actionlog (MongoDB's): what the balancer did, one "balancer.round" entry per round. Same shape as changelog.
CREATE TABLE actionlog (
    seq      bigserial PRIMARY KEY,
    id       text NOT NULL UNIQUE,
    server   text NOT NULL,
    time     timestamptz NOT NULL DEFAULT now(),
    what     text NOT NULL,
    details  bytea NOT NULL
);
