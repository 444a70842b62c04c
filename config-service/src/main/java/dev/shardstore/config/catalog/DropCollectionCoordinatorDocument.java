package dev.shardstore.config.catalog;

import dev.shardstore.contracts.namespace.Namespace;
import java.util.Objects;
import java.util.UUID;
import org.bson.BsonDocument;
import org.jspecify.annotations.Nullable;

/**
 * A persisted dropCollection coordinator (a row of {@code sharding_ddl_coordinators}).
 *
 * @param namespace      the collection being dropped
 * @param phase          the next phase to run
 * @param collectionUuid the sharded collection instance being dropped, captured when the coordinator started; null when
 *                       the namespace was not sharded (the data is still dropped on every shard)
 */
public record DropCollectionCoordinatorDocument(Namespace namespace, DropCollectionPhase phase, @Nullable UUID collectionUuid)
        implements DdlCoordinatorDocument {
    /** The {@code operation} of these rows. */
    public static final String OPERATION = "dropCollection";

    public DropCollectionCoordinatorDocument {
        Objects.requireNonNull(namespace, "namespace");
        Objects.requireNonNull(phase, "phase");
    }

    /** This document at {@code next}. */
    public DropCollectionCoordinatorDocument at(DropCollectionPhase next) {
        return new DropCollectionCoordinatorDocument(namespace, next, collectionUuid);
    }

    @Override
    public String key() {
        return namespace.full();
    }

    @Override
    public String operation() {
        return OPERATION;
    }

    @Override
    public String phaseName() {
        return phase.name();
    }

    /** None: the collection instance has its own column. */
    @Override
    public @Nullable BsonDocument state() {
        return null;
    }
}
