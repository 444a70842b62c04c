package dev.shardstore.config.catalog;

import dev.shardstore.contracts.version.DatabaseVersion;
import java.util.List;
import java.util.Objects;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.BsonValue;

/**
 * A persisted movePrimary coordinator (a row of {@code sharding_ddl_coordinators} keyed by the database name; its
 * fields in {@code state} as {@code {from, to, version, collections}}).
 *
 * @param db          the database whose primary moves
 * @param phase       the next phase to run
 * @param fromShard   the primary when the move started (the donor)
 * @param toShard     the new primary (the recipient)
 * @param version     the database version when the move started; the commit makes it {@code lastMod + 1} and refuses to
 *                    commit over any other version
 * @param collections the unsharded collections being moved, recorded once writes are blocked (empty before that)
 */
public record MovePrimaryCoordinatorDocument(String db, MovePrimaryPhase phase, String fromShard, String toShard, DatabaseVersion version,
        List<String> collections) implements DdlCoordinatorDocument {
    /** The {@code operation} of these rows. */
    public static final String OPERATION = "movePrimary";

    public MovePrimaryCoordinatorDocument {
        Objects.requireNonNull(db, "db");
        Objects.requireNonNull(phase, "phase");
        Objects.requireNonNull(fromShard, "fromShard");
        Objects.requireNonNull(toShard, "toShard");
        Objects.requireNonNull(version, "version");
        if (fromShard.equals(toShard)) {
            throw new IllegalArgumentException("movePrimary of " + db + " needs two different shards, not " + fromShard + " twice");
        }
        collections = List.copyOf(collections);
    }

    /** A new coordinator at its first phase. */
    public static MovePrimaryCoordinatorDocument start(String db, String fromShard, String toShard, DatabaseVersion version) {
        return new MovePrimaryCoordinatorDocument(db, MovePrimaryPhase.BLOCK_WRITES, fromShard, toShard, version, List.of());
    }

    /** This document at {@code next}. */
    public MovePrimaryCoordinatorDocument at(MovePrimaryPhase next) {
        return new MovePrimaryCoordinatorDocument(db, next, fromShard, toShard, version, collections);
    }

    /** This document with the collections being moved. */
    public MovePrimaryCoordinatorDocument moving(List<String> names) {
        return new MovePrimaryCoordinatorDocument(db, phase, fromShard, toShard, version, names);
    }

    /**
     * Reads a row's fields.
     *
     * @throws IllegalArgumentException when {@code state} lacks a field or has one of the wrong type
     */
    static MovePrimaryCoordinatorDocument of(String db, MovePrimaryPhase phase, BsonDocument state) {
        try {
            return new MovePrimaryCoordinatorDocument(db, phase, state.getString("from").getValue(), state.getString("to").getValue(),
                    DatabaseVersion.fromBson(state.getDocument("version")),
                    state.getArray("collections").stream().map(v -> v.asString().getValue()).toList());
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("malformed movePrimary coordinator state of " + db + ": " + state.toJson(), e);
        }
    }

    @Override
    public String key() {
        return db;
    }

    @Override
    public String operation() {
        return OPERATION;
    }

    @Override
    public String phaseName() {
        return phase.name();
    }

    @Override
    public BsonDocument state() {
        return new BsonDocument("from", new BsonString(fromShard)).append("to", new BsonString(toShard))
                .append("version", version.toBson())
                .append("collections", new BsonArray(collections.stream().map(c -> (BsonValue) new BsonString(c)).toList()));
    }
}
