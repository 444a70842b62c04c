-- config.system.sessions (reference: "The logical session cache"): one row per logical session that some node's
-- logical session cache has seen used, with the newest lastUse any node reported. The TTL of MongoDB's index on
-- lastUse is the session service's reaper (SessionReaper), which deletes rows idle longer than
-- localLogicalSessionTimeoutMinutes. uid is the user digest of the lsid, empty without authentication.
CREATE TABLE system_sessions (
    id       uuid        NOT NULL,
    uid      bytea       NOT NULL DEFAULT '\x'::bytea,
    last_use timestamptz NOT NULL,
    PRIMARY KEY (id, uid)
);
CREATE INDEX system_sessions_last_use ON system_sessions (last_use);
