-- admin.system.users and admin.system.roles (MongoDB's, issue 39): one row per user or user-defined role, the document
-- as MongoDB stores it (BSON). A user's document holds SCRAM credentials (salt, iteration count, storedKey, serverKey),
-- never the password.
CREATE TABLE system_users (
    id        text  PRIMARY KEY,            -- _id: "<db>.<user>"
    db        text  NOT NULL,
    user_name text  NOT NULL,
    doc       bytea NOT NULL,
    UNIQUE (db, user_name)
);

CREATE TABLE system_roles (
    id        text  PRIMARY KEY,            -- _id: "<db>.<role>"
    db        text  NOT NULL,
    role_name text  NOT NULL,
    doc       bytea NOT NULL,
    UNIQUE (db, role_name)
);

-- MongoDB's user cache generation (_getUserCacheGeneration): moves on with every user or role change, so routers know
-- their cached principals are stale.
CREATE TABLE user_cache_generation (
    single     boolean PRIMARY KEY DEFAULT true CHECK (single),
    generation bigint  NOT NULL
);
INSERT INTO user_cache_generation (single, generation) VALUES (true, 1);
