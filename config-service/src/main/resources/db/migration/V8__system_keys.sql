-- admin.system.keys (MongoDB's): the HMAC-SHA1 keys that sign cluster times. Generated ahead by KeyManager so one key
-- is always valid for the next rotation interval; never deleted, so old signatures stay verifiable.
CREATE TABLE system_keys (
    id          bigint PRIMARY KEY,          -- _id: the cluster time the key was made at, also a signature's keyId
    purpose     text   NOT NULL CHECK (purpose = 'HMAC'),
    key         bytea  NOT NULL CHECK (length(key) = 20),
    expires_at  bigint NOT NULL UNIQUE       -- Timestamp value (seconds << 32 | counter) up to which it signs
);
