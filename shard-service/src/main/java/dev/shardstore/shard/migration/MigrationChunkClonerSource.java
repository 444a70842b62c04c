package dev.shardstore.shard.migration;

import dev.shardstore.contracts.bson.BsonBytes;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.shard.storage.OplogEntry;
import dev.shardstore.shard.storage.MigratedSessionHistory;
import dev.shardstore.shard.storage.OplogReader;
import dev.shardstore.shard.storage.StoredDocument;
import dev.shardstore.shard.versioning.CollectionShardingRuntime;
import dev.shardstore.support.failpoint.FailPoints;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import org.bson.BsonArray;
import org.bson.BsonBinary;
import org.bson.BsonBoolean;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonNull;
import org.bson.BsonString;
import org.bson.BsonTimestamp;
import org.jspecify.annotations.Nullable;
import org.springframework.stereotype.Component;

/**
 * The donor's side of the data transfer (MongoDB's {@code MigrationChunkClonerSource}; mongo/src/mongo/db/s/README.md "The live migration
 * protocol", steps 2 and 3), answering the recipient's pulls for the running donation:
 * <ul>
 *   <li>{@code _migrateClone}: the next page of the range's documents in shard key index order, after the position the
 *       recipient names (stateless, so a lost reply is simply asked again), read with one cursor and bounded by bytes
 *       ({@code clone-batch-bytes}), its stored rows sent as they are ({@link ClonePageBytes});</li>
 *   <li>{@code _transferMods}: the range's oplog entries after the time the recipient names ({@link OplogReader}: in time
 *       order, up to the all-durable point, so an entry that commits out of time order is never skipped), skipping
 *       {@code fromMigrate} ones. The pin moves up to that time: the recipient has applied everything before it.</li>
 * </ul>
 * The clone starts at the pin's time, so every write is either seen by the clone (it committed at or before the pin's
 * time) or returned by {@code _transferMods} (after it), and possibly both, which the recipient's upserts absorb.
 */
@Component
public class MigrationChunkClonerSource {
    /** Fail point passed at each {@code _migrateClone} batch the donor serves. */
    public static final String DURING_CLONE = "moveChunk.duringClone";
    /** Fail point passed at each {@code _transferMods} batch the donor serves. */
    public static final String DURING_CATCHUP = "moveChunk.duringCatchup";
    /** Most bytes of documents in one {@code _transferMods} reply (BSON replies stay well under 16 MB). */
    static final long MAX_BATCH_BYTES = 8L * 1024 * 1024;
    /** Most oplog entries one {@code _transferMods} reply reads. */
    public static final int MODS_BATCH_ENTRIES = 1000;

    private final ActiveMigrationsRegistry registry;
    private final CollectionShardingRuntime runtime;
    private final ChunkRangeReader reader;
    private final OplogReader oplog;
    private final MigratedSessionHistory sessionHistory;
    private final FailPoints failPoints;
    private final long cloneBatchBytes;

    public MigrationChunkClonerSource(ActiveMigrationsRegistry registry, CollectionShardingRuntime runtime, ChunkRangeReader reader,
            OplogReader oplog, MigratedSessionHistory sessionHistory, FailPoints failPoints, MigrationProperties properties) {
        this.sessionHistory = sessionHistory;
        this.registry = registry;
        this.runtime = runtime;
        this.reader = reader;
        this.oplog = oplog;
        this.failPoints = failPoints;
        this.cloneBatchBytes = properties.cloneBatchBytes().toBytes();
    }

    /**
     * {@code _migrateClone}: {@code {documents: BinData, count: int, next: {key: BinData, id: BinData} | null}}, the
     * documents framed by {@link ClonePageBytes} (about {@code clone-batch-bytes} of them: cut after the document that
     * reaches it); {@code next: null} when the range has no more documents.
     *
     * @param after the previous reply's {@code next}; null for the first batch
     * @throws CommandException OperationFailed (96) when migration {@code id} is not being donated here (the donor
     *                          restarted or the migration ended)
     */
    BsonDocument nextCloneBatch(UUID id, @Nullable BsonDocument after) {
        ActiveMigrationsRegistry.Donation donation = donation(id);
        DonorSession session = sessionOf(donation);
        failPoints.hit(DURING_CLONE);
        ChunkRangeReader.Position position = after == null ? null
                : new ChunkRangeReader.Position(after.getBinary("key").getData(), after.getBinary("id").getData());
        ChunkRangeReader.Page page = runtime.shared(session.collection().namespace(),
                () -> reader.read(session.collection(), session.index(), session.range(), position, Integer.MAX_VALUE, cloneBatchBytes));
        donation.progress.cloned(page.documents().size(), page.documents().stream().mapToLong(StoredDocument::size).sum());
        return new BsonDocument("documents", new BsonBinary(ClonePageBytes.encode(page.documents())))
                .append("count", new BsonInt32(page.documents().size()))
                .append("next", page.next() == null ? BsonNull.VALUE
                : new BsonDocument("key", new BsonBinary(page.next().key())).append("id", new BsonBinary(page.next().id())));
    }

    /**
     * {@code _transferMods}: {@code {entries: [{ts, op: "i" | "u" | "d", o2: documentKey, o?: document}], resumeAfter:
     * Timestamp, more: bool}}; {@code more} says the read stopped at its size limit rather than at the all-durable point.
     *
     * @param after what the recipient has applied: the previous reply's {@code resumeAfter}, or {@code _recvChunkStart}'s
     *              {@code startAfter}
     * @throws CommandException OperationFailed (96) as {@link #nextCloneBatch}; CappedPositionLost (136) for a time
     *                          before the pin
     */
    BsonDocument nextMods(UUID id, BsonTimestamp after) {
        ActiveMigrationsRegistry.Donation donation = donation(id);
        DonorSession session = sessionOf(donation);
        if (Long.compareUnsigned(after.getValue(), session.startAfter().getValue()) < 0) {
            throw new CommandException(ErrorCode.CappedPositionLost, "'after' " + after + " is before the migration's start "
                    + session.startAfter());
        }
        session.pin().advance(after);
        donation.modsAppliedThrough = after;
        failPoints.hit(DURING_CATCHUP);
        BsonDocument reply = modsReply(oplog.read(session.collection().uuid(), after, session.range(), MODS_BATCH_ENTRIES), after);
        donation.progress.transferred(reply.getArray("entries").size());
        return reply;
    }

    /**
     * A {@code _transferMods}-shaped reply of {@code batch}, read after {@code after} with a limit of
     * {@link #MODS_BATCH_ENTRIES} (resharding's oplog fetch serves the same shape): the client changes, without this
     * shard's migration and range deletion writes, cut at {@link #MAX_BATCH_BYTES} of post-images.
     */
    public static BsonDocument modsReply(OplogReader.Batch batch, BsonTimestamp after) {
        BsonArray entries = new BsonArray();
        BsonTimestamp resumeAfter = batch.resumeAfter();
        boolean more = batch.entries().size() == MODS_BATCH_ENTRIES;
        BsonTimestamp processed = after;
        long bytes = 0;
        for (OplogEntry entry : batch.entries()) {
            if (bytes >= MAX_BATCH_BYTES) {
                resumeAfter = processed; // the rest of the batch comes with the next call
                more = true;
                break;
            }
            processed = entry.ts();
            if (entry.fromMigrate() || entry.op() == OplogEntry.Op.COMMAND || entry.o2() == null) {
                continue; // migration and range deletion writes of this shard are not client changes to transfer
            }
            BsonDocument out = new BsonDocument("ts", entry.ts()).append("op", new BsonString(String.valueOf(entry.op().code())))
                    .append("o2", entry.o2());
            if (entry.o() != null) {
                out.append("o", entry.o());
                bytes += BsonBytes.encode(entry.o()).length;
            }
            entries.add(out);
        }
        return new BsonDocument("entries", entries).append("resumeAfter", resumeAfter).append("more", BsonBoolean.valueOf(more));
    }

    /**
     * {@code _getNextSessionMods}: {@code {entries: [...], more: bool}}, the retryable-write history of the range's
     * documents after {@code after} ({@link MigratedSessionHistory#read}); the recipient asks once the donor blocks writes.
     *
     * @param after the value of the last entry's {@code ts} the recipient wrote, 0 at first
     * @throws CommandException OperationFailed (96) as {@link #nextCloneBatch}
     */
    BsonDocument nextSessionMods(UUID id, long after) {
        DonorSession session = sessionOf(donation(id));
        List<BsonDocument> entries = sessionHistory.read(session.collection().uuid(), session.range(), after, MODS_BATCH_ENTRIES);
        return new BsonDocument("entries", new BsonArray(entries)).append("more", BsonBoolean.valueOf(entries.size() == MODS_BATCH_ENTRIES));
    }

    private ActiveMigrationsRegistry.Donation donation(UUID id) {
        ActiveMigrationsRegistry.Donation donation = registry.donation(id).orElseThrow(() -> new CommandException(ErrorCode.OperationFailed,
                "migration " + id + " is not being donated by this shard (it ended, or this shard restarted)"));
        if (donation.session == null) {
            throw new CommandException(ErrorCode.OperationFailed, "migration " + id + " is not ready to be cloned yet");
        }
        return donation;
    }

    /** The session of a donation {@link #donation} returned: it checked the session is there, and it is set once, never cleared. */
    private static DonorSession sessionOf(ActiveMigrationsRegistry.Donation donation) {
        return Objects.requireNonNull(donation.session, "donation(id) checked it is set");
    }
}
