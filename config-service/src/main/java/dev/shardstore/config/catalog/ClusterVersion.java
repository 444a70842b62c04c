package dev.shardstore.config.catalog;

import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonObjectId;
import org.bson.types.ObjectId;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/**
 * {@code config.version} (table {@code cluster_version}): MongoDB's one document {@code {_id: 1, clusterId: ObjectId}},
 * the cluster's identity, written once when the catalog's schema is created (migration V14) and never changed.
 * mongosh's {@code sh.status()} reads it first and takes its absence for "not a mongos".
 */
@Repository
public class ClusterVersion {
    private final JdbcClient jdbc;

    public ClusterVersion(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    /** {@code {_id: 1, clusterId: ObjectId}}. */
    public BsonDocument document() {
        String clusterId = jdbc.sql("SELECT cluster_id FROM cluster_version WHERE id = 1").query(String.class).single();
        return new BsonDocument("_id", new BsonInt32(1)).append("clusterId", new BsonObjectId(new ObjectId(clusterId)));
    }
}
