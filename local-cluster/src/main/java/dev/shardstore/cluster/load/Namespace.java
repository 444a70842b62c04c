package dev.shardstore.cluster.load;

/**
 * A collection's full name, {@code database.collection} (the collection part may itself contain dots).
 */
public record Namespace(String database, String collection) {

    public Namespace {
        if (database.isEmpty() || collection.isEmpty()) {
            throw new IllegalArgumentException("a namespace needs a database and a collection, was '" + database + "." + collection + "'");
        }
    }

    /**
     * Parses {@code db.coll}.
     *
     * @throws IllegalArgumentException when there is no dot, or either side is empty
     */
    public static Namespace parse(String ns) {
        int dot = ns.indexOf('.');
        if (dot <= 0 || dot == ns.length() - 1) {
            throw new IllegalArgumentException("a namespace is DATABASE.COLLECTION, e.g. geo.cities; was '" + ns + "'");
        }
        return new Namespace(ns.substring(0, dot), ns.substring(dot + 1));
    }

    @Override
    public String toString() {
        return database + "." + collection;
    }
}
