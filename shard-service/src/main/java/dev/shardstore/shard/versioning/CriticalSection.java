package dev.shardstore.shard.versioning;

import java.time.Instant;
import java.util.Objects;
import org.bson.BsonDocument;
import org.jspecify.annotations.Nullable;

/**
 * One collection's or one database's critical section as the shard records it (MongoDB's
 * {@code config.collection_critical_sections} document, which holds both kinds, keyed by the namespace: a database's
 * by its bare name). Immutable; {@code reason} is a private copy.
 *
 * @param namespace {@code db.coll} for a collection's section, {@code db} for a database's (movePrimary's; database
 *                  names never contain a dot, so the two cannot be confused)
 * @param phase     what it blocks
 * @param reason    which operation holds it, e.g. {@code {command: "dropCollection", ns: "db.coll"}}; only that
 *                  operation may change its phase or exit it
 * @param expiresAt when it releases itself if never exited (shardCollection's section, whose coordinator is not
 *                  persisted); null: held until exited, across restarts
 */
public record CriticalSection(String namespace, CriticalSectionPhase phase, BsonDocument reason, @Nullable Instant expiresAt) {
    public CriticalSection {
        Objects.requireNonNull(namespace, "namespace");
        Objects.requireNonNull(phase, "phase");
        reason = Objects.requireNonNull(reason, "reason").clone();
    }

    @Override
    public BsonDocument reason() {
        return reason.clone();
    }

    /** Whether this is a database's section (it blocks what the database version places: see {@link CollectionShardingRuntime}). */
    public boolean database() {
        return namespace.indexOf('.') < 0;
    }

    /** Whether {@code other} names the same operation as this section's reason. */
    public boolean heldFor(BsonDocument other) {
        return reason.equals(other);
    }

    /** This section in {@code newPhase}, same reason and expiry. */
    CriticalSection withPhase(CriticalSectionPhase newPhase) {
        return new CriticalSection(namespace, newPhase, reason, expiresAt);
    }
}
