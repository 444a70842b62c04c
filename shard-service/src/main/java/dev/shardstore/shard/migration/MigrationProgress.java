package dev.shardstore.shard.migration;

import dev.shardstore.contracts.namespace.Namespace;
import dev.shardstore.contracts.sharding.ChunkRange;
import java.time.Instant;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import org.bson.BsonDateTime;
import org.bson.BsonDocument;
import org.bson.BsonInt64;
import org.bson.BsonString;

/**
 * The live state of one migration on one shard, as {@code currentOp}, {@code /actuator/migrations} and
 * {@code _recvChunkStatus} show it: its phase and what it moved so far. Thread-safe (one writer, many readers).
 */
public final class MigrationProgress {
    /** Which side of the migration this shard is. */
    public enum Role {
        DONOR("MoveChunk"), RECIPIENT("ReceiveChunk");

        private final String desc;

        Role(String desc) {
            this.desc = desc;
        }

        /** {@code currentOp}'s {@code desc} of the operation. */
        public String desc() {
            return desc;
        }
    }

    private final UUID id;
    private final Role role;
    private final Namespace namespace;
    private final ChunkRange range;
    private final String donor;
    private final String recipient;
    private final Instant startedAt = Instant.now();
    private final long startNanos = System.nanoTime();
    private final AtomicLong documents = new AtomicLong();
    private final AtomicLong bytes = new AtomicLong();
    private final AtomicLong mods = new AtomicLong();
    private volatile String phase;

    MigrationProgress(UUID id, Role role, Namespace namespace, ChunkRange range, String donor, String recipient, String phase) {
        this.id = Objects.requireNonNull(id, "id");
        this.role = Objects.requireNonNull(role, "role");
        this.namespace = Objects.requireNonNull(namespace, "namespace");
        this.range = Objects.requireNonNull(range, "range");
        this.donor = Objects.requireNonNull(donor, "donor");
        this.recipient = Objects.requireNonNull(recipient, "recipient");
        this.phase = Objects.requireNonNull(phase, "phase");
    }

    public UUID id() {
        return id;
    }

    public Role role() {
        return role;
    }

    public Namespace namespace() {
        return namespace;
    }

    public ChunkRange range() {
        return range;
    }

    public String donor() {
        return donor;
    }

    public String recipient() {
        return recipient;
    }

    /** The current phase (donor: {@code start clone criticalSection commit cleanup}; recipient: {@code _recvChunkStatus}'s state). */
    public String phase() {
        return phase;
    }

    void phase(String newPhase) {
        this.phase = Objects.requireNonNull(newPhase, "phase");
    }

    /** Documents cloned so far (served by the donor, inserted by the recipient). */
    public long documentsCloned() {
        return documents.get();
    }

    /** Bytes of the documents cloned so far. */
    public long bytesCloned() {
        return bytes.get();
    }

    /** Oplog entries transferred (donor) or applied (recipient) so far. */
    public long modsTransferred() {
        return mods.get();
    }

    void cloned(long count, long size) {
        documents.addAndGet(count);
        bytes.addAndGet(size);
    }

    void transferred(long count) {
        mods.addAndGet(count);
    }

    /** Milliseconds since the migration started on this shard. */
    public long elapsedMillis() {
        return (System.nanoTime() - startNanos) / 1_000_000;
    }

    /**
     * A {@code currentOp}-style document: {@code {type: "op", desc: "MoveChunk" | "ReceiveChunk", migrationId, ns, min, max,
     * donor, recipient, phase, documentsCloned, bytesCloned, modsTransferred, startedAt, elapsedMillis}}.
     */
    public BsonDocument describe() {
        return new BsonDocument("type", new BsonString("op"))
                .append("desc", new BsonString(role.desc()))
                .append("migrationId", new BsonString(id.toString()))
                .append("ns", new BsonString(namespace.full()))
                .append("min", range.min())
                .append("max", range.max())
                .append("donor", new BsonString(donor))
                .append("recipient", new BsonString(recipient))
                .append("phase", new BsonString(phase))
                .append("documentsCloned", new BsonInt64(documentsCloned()))
                .append("bytesCloned", new BsonInt64(bytesCloned()))
                .append("modsTransferred", new BsonInt64(modsTransferred()))
                .append("startedAt", new BsonDateTime(startedAt.toEpochMilli()))
                .append("elapsedMillis", new BsonInt64(elapsedMillis()));
    }
}
