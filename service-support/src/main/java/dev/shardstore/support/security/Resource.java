package dev.shardstore.support.security;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import java.util.Objects;
import org.bson.BsonBoolean;
import org.bson.BsonDocument;
import org.bson.BsonString;

/**
 * A resource, as a privilege names it (a pattern) and as a command needs it (a target): MongoDB manual "Resource
 * Document on Self-Managed Deployments". A command's target is always {@link Kind#CLUSTER}, a {@link Kind#DATABASE}
 * or a {@link Kind#COLLECTION}; a privilege's pattern may be any kind.
 *
 * <p>Patterns and what they cover ({@link #covers}): {@code {cluster: true}} the cluster; {@code {anyResource: true}}
 * everything; {@code {db: "", collection: ""}} every database and every collection whose name does not begin with
 * {@code system.}; {@code {db: "d", collection: ""}} database {@code d} and its collections but the {@code system.}
 * ones; {@code {db: "", collection: "c"}} collection {@code c} of every database; {@code {db: "d", collection: "c"}}
 * that collection only (a {@code system.} collection is covered only so, or by {@code anyResource});
 * {@code {db: "d", system_buckets: ""}} the time-series buckets collections ({@code system.buckets.*}) of {@code d},
 * every database's for {@code db: ""} (MongoDB 5.0's {@code system_buckets} resource, which the built-in roles grant
 * beside their database privileges, {@link BuiltinRoles}).
 *
 * @param kind       which pattern or target
 * @param db         the database ("" for any, and for the cluster and anyResource)
 * @param collection the collection ("" for any, and where the kind has none)
 */
public record Resource(Kind kind, String db, String collection) {
    /** The kinds of resource. */
    public enum Kind {
        /** {@code {cluster: true}}. */
        CLUSTER,
        /** {@code {anyResource: true}}. */
        ANY_RESOURCE,
        /** {@code {db: "", collection: ""}}: any normal resource. */
        ANY_NORMAL,
        /** {@code {db: "d", collection: ""}}. */
        DATABASE,
        /** {@code {db: "", collection: "c"}}. */
        COLLECTION_IN_ANY_DATABASE,
        /** {@code {db: "d", collection: "c"}}. */
        COLLECTION,
        /** {@code {db: "d" or "", system_buckets: ""}}: the buckets collections of a time-series collection. */
        SYSTEM_BUCKETS
    }

    public static final Resource CLUSTER = new Resource(Kind.CLUSTER, "", "");
    public static final Resource ANY_RESOURCE = new Resource(Kind.ANY_RESOURCE, "", "");
    public static final Resource ANY_NORMAL = new Resource(Kind.ANY_NORMAL, "", "");
    private static final String SYSTEM_PREFIX = "system.";
    private static final String BUCKETS_PREFIX = "system.buckets.";

    public Resource {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(db, "db");
        Objects.requireNonNull(collection, "collection");
        boolean shaped = switch (kind) {
            case CLUSTER, ANY_RESOURCE, ANY_NORMAL -> db.isEmpty() && collection.isEmpty();
            case DATABASE -> !db.isEmpty() && collection.isEmpty();
            case COLLECTION_IN_ANY_DATABASE -> db.isEmpty() && !collection.isEmpty();
            case COLLECTION -> !db.isEmpty() && !collection.isEmpty();
            case SYSTEM_BUCKETS -> collection.isEmpty();
        };
        if (!shaped) {
            throw new IllegalArgumentException("a " + kind + " resource cannot have db '" + db + "' and collection '" + collection + "'");
        }
    }

    /** Database {@code db} (as a target: the database itself; as a pattern: it and its normal collections). */
    public static Resource database(String db) {
        return new Resource(Kind.DATABASE, db, "");
    }

    /** The buckets collections of database {@code db}, of every database for {@code ""}. */
    public static Resource systemBuckets(String db) {
        return new Resource(Kind.SYSTEM_BUCKETS, db, "");
    }

    /** Collection {@code collection} of database {@code db}. */
    public static Resource collection(String db, String collection) {
        return new Resource(Kind.COLLECTION, db, collection);
    }

    /** True when this pattern covers the target {@code target} (see the class comment). */
    public boolean covers(Resource target) {
        boolean normal = target.kind != Kind.COLLECTION || !target.collection.startsWith(SYSTEM_PREFIX);
        return switch (kind) {
            case ANY_RESOURCE -> true;
            case CLUSTER -> target.kind == Kind.CLUSTER;
            case ANY_NORMAL -> target.kind != Kind.CLUSTER && normal;
            case DATABASE -> target.kind != Kind.CLUSTER && target.db.equals(db) && normal;
            case COLLECTION_IN_ANY_DATABASE -> target.kind == Kind.COLLECTION && target.collection.equals(collection);
            case COLLECTION -> target.equals(this);
            case SYSTEM_BUCKETS -> target.kind == Kind.COLLECTION && target.collection.startsWith(BUCKETS_PREFIX)
                    && (db.isEmpty() || target.db.equals(db));
        };
    }

    /**
     * True when this pattern covers database {@code db} or some collection that may be in it: what makes a database
     * one of a user's "authorized databases" ({@code listDatabases} with {@code authorizedDatabases}).
     */
    public boolean reaches(String db) {
        return switch (kind) {
            case ANY_RESOURCE, ANY_NORMAL, COLLECTION_IN_ANY_DATABASE -> true;
            case CLUSTER -> false;
            case DATABASE, COLLECTION -> this.db.equals(db);
            case SYSTEM_BUCKETS -> this.db.isEmpty() || this.db.equals(db);
        };
    }

    /** The resource document MongoDB writes: {@code {cluster: true}}, {@code {anyResource: true}} or {@code {db, collection}}. */
    public BsonDocument toBson() {
        return switch (kind) {
            case CLUSTER -> new BsonDocument("cluster", BsonBoolean.TRUE);
            case ANY_RESOURCE -> new BsonDocument("anyResource", BsonBoolean.TRUE);
            case SYSTEM_BUCKETS -> new BsonDocument("db", new BsonString(db)).append("system_buckets", new BsonString(""));
            default -> new BsonDocument("db", new BsonString(db)).append("collection", new BsonString(collection));
        };
    }

    /**
     * Reads a resource document of a privilege ({@code createRole}, {@code grantPrivilegesToRole}).
     *
     * @throws CommandException FailedToParse (9) for any other shape
     */
    public static Resource parse(BsonDocument document) {
        if (document.size() == 1 && document.isBoolean("cluster") && document.getBoolean("cluster").getValue()) {
            return CLUSTER;
        }
        if (document.size() == 1 && document.isBoolean("anyResource") && document.getBoolean("anyResource").getValue()) {
            return ANY_RESOURCE;
        }
        if (document.size() == 2 && document.isString("db") && document.isString("system_buckets")
                && document.getString("system_buckets").getValue().isEmpty()) {
            return systemBuckets(document.getString("db").getValue());
        }
        if (document.size() == 2 && document.isString("db") && document.isString("collection")) {
            String db = document.getString("db").getValue();
            String collection = document.getString("collection").getValue();
            Kind kind = db.isEmpty() ? (collection.isEmpty() ? Kind.ANY_NORMAL : Kind.COLLECTION_IN_ANY_DATABASE)
                    : (collection.isEmpty() ? Kind.DATABASE : Kind.COLLECTION);
            return new Resource(kind, db, collection);
        }
        throw new CommandException(ErrorCode.FailedToParse, "a privilege's resource is {cluster: true}, {anyResource: true}, "
                + "{db: <string>, collection: <string>} or {db: <string>, system_buckets: \"\"}, was " + document.toJson());
    }

    /** As MongoDB's messages name a target: {@code cluster}, the database, or {@code db.collection}. */
    @Override
    public String toString() {
        return switch (kind) {
            case CLUSTER -> "cluster";
            case ANY_RESOURCE -> "anyResource";
            default -> toBson().toJson();
        };
    }
}
