-- config.version (MongoDB's): one document {_id: 1, clusterId: ObjectId}, the cluster's identity, made once with the
-- catalog. As in any ObjectId, the first four bytes are the creation time in seconds; the other eight are random.
CREATE TABLE cluster_version (
    id          int PRIMARY KEY CHECK (id = 1),
    cluster_id  char(24) NOT NULL
);
INSERT INTO cluster_version (id, cluster_id)
VALUES (1, lpad(to_hex(extract(epoch FROM now())::bigint), 8, '0')
           || substr(md5(random()::text || clock_timestamp()::text), 1, 16));
