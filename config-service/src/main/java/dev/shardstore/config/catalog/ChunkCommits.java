package dev.shardstore.config.catalog;

import dev.shardstore.contracts.version.VersionRules;
import dev.shardstore.contracts.clock.LogicalClock;
import dev.shardstore.config.changelog.Changelog;
import dev.shardstore.config.outbox.Outbox;
import dev.shardstore.contracts.event.CatalogEvent;
import dev.shardstore.contracts.sharding.StaleConfig;
import dev.shardstore.support.failpoint.FailPoints;
import org.jspecify.annotations.Nullable;
import org.springframework.context.ApplicationEventPublisher;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.sharding.Chunk;
import dev.shardstore.contracts.sharding.ChunkHistory;
import dev.shardstore.contracts.sharding.ChunkRange;
import dev.shardstore.contracts.sharding.ShardKeyPattern;
import dev.shardstore.contracts.version.ChunkVersion;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.bson.types.ObjectId;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.stereotype.Service;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The catalog commits of split, merge and migration ({@code _configsvrCommitChunkSplit},
 * {@code _configsvrCommitChunksMerge}, {@code _configsvrCommitChunkMigration}). Each is one transaction that locks the
 * collection, checks the caller's expectation ({@link CommitGuard}), validates the range, applies
 * {@link VersionRules} and appends a {@code ROUTING_CHANGED} outbox event; any refusal rolls everything back.
 */
@Service
public class ChunkCommits {
    /** Fail point inside a migration commit's transaction, before it commits (a crash there commits nothing). */
    public static final String MIGRATION_BEFORE_COMMIT = "commitChunkMigration.beforeCommit";
    /** Fail point after a migration commit's transaction committed, before the donor hears of it. */
    public static final String MIGRATION_AFTER_COMMIT = "commitChunkMigration.afterCommit";

    private final CommitGuard guard;
    private final ChunkCatalog chunks;
    private final ShardRepository shards;
    private final Outbox outbox;
    private final LogicalClock clock;
    private final TransactionTemplate tx;
    private final ApplicationEventPublisher events;
    private final FailPoints failPoints;
    private final Changelog changelog;
    private final Duration historyWindow;

    /**
     * @param historyWindow how far back the chunks' placement history must reach: a migration's commit drops older
     *                      entries ({@link CatalogChunk#movedTo}); MongoDB's {@code minSnapshotHistoryWindowInSeconds}
     *                      (300 s), as the shards' {@code shardstore.shard.snapshot-history-window}
     */
    public ChunkCommits(CommitGuard guard, ChunkCatalog chunks, ShardRepository shards, Outbox outbox, LogicalClock clock,
            TransactionTemplate tx, ApplicationEventPublisher events, FailPoints failPoints, Changelog changelog,
            @Value("${shardstore.sharding.chunk-history-window:300s}") Duration historyWindow) {
        if (historyWindow.isNegative()) {
            throw new IllegalArgumentException("shardstore.sharding.chunk-history-window must not be negative, was " + historyWindow);
        }
        this.historyWindow = historyWindow;
        this.changelog = changelog;
        this.guard = guard;
        this.chunks = chunks;
        this.shards = shards;
        this.outbox = outbox;
        this.clock = clock;
        this.tx = tx;
        this.events = events;
        this.failPoints = failPoints;
    }

    /**
     * Splits the chunk {@code [min, max)} of {@code shard} at {@code splitPoints} (ascending, strictly inside the
     * range). The pieces keep the chunk's history; versions per {@link VersionRules#split}. In the same transaction,
     * {@code config.changelog} gets MongoDB's entries ({@link #logSplit}).
     *
     * @throws CommandException StaleEpoch/StaleConfig (see {@link CommitGuard}); BadValue naming {@code min},
     *                          {@code max} or {@code splitPoints.i} for a malformed or misplaced bound, or naming the
     *                          range when it is not exactly a chunk of {@code shard}
     */
    public CommitResult split(String namespace, CommitExpectation expected, ChunkRange range, List<BsonDocument> splitPoints, String shard) {
        return tx.execute(status -> {
            CommitGuard.Locked locked = guard.lock(namespace, expected);
            ShardKeyPattern key = locked.collection().key();
            byte[] min = KeyBounds.encode(key, range.min(), "min");
            byte[] max = KeyBounds.encode(key, range.max(), "max");
            byte[] previous = min;
            if (splitPoints.isEmpty()) {
                throw new CommandException(ErrorCode.BadValue, "'splitPoints' must name at least one split point");
            }
            for (int i = 0; i < splitPoints.size(); i++) {
                byte[] point = KeyBounds.encode(key, splitPoints.get(i), "splitPoints." + i);
                if (Arrays.compareUnsigned(point, previous) <= 0 || Arrays.compareUnsigned(point, max) >= 0) {
                    throw new CommandException(ErrorCode.BadValue, "'splitPoints." + i + "' " + splitPoints.get(i).toJson()
                            + " must be above the previous split point and strictly inside the chunk " + range);
                }
                previous = point;
            }
            UUID uuid = locked.collection().uuid();
            CatalogChunk chunk = chunkOn(namespace, uuid, min, max, range, shard, "min/max");
            ChunkVersion shardVersion = chunks.shardVersion(uuid, shard).orElseThrow();
            List<ChunkVersion> versions = VersionRules.split(locked.collectionVersion(), shardVersion, splitPoints.size() + 1);
            List<BsonDocument> bounds = new ArrayList<>(splitPoints.size() + 2);
            // the stored bounds, not the caller's spelling of them (an int 10 and a long 10 encode alike)
            bounds.add(chunk.range().min());
            bounds.addAll(splitPoints);
            bounds.add(chunk.range().max());
            // the first piece keeps the chunk's row and _id, as MongoDB does; the others are new chunks
            chunks.update(key, chunk.reshaped(chunk.id(), new ChunkRange(bounds.get(0), bounds.get(1)), versions.getFirst()));
            List<CatalogChunk> pieces = new ArrayList<>();
            for (int i = 1; i < versions.size(); i++) {
                pieces.add(chunk.reshaped(new ObjectId(), new ChunkRange(bounds.get(i), bounds.get(i + 1)), versions.get(i)));
            }
            chunks.insert(key, pieces);
            logSplit(namespace, shard, chunk, bounds, versions);
            ChunkVersion latest = versions.getLast();
            outbox.appendRoutingChanged(namespace, latest.epoch(), latest, List.of(shard));
            events.publishEvent(new RoutingChangeCommitted(namespace, List.of(shard)));
            return new CommitResult(latest, latest);
        });
    }

    /**
     * MongoDB's changelog of a split commit ({@code commitSplitChunk}): one {@code split} entry {@code {before, left, right,
     * owningShard}} for two pieces, else one {@code multi-split} entry per piece {@code {before, number, of, chunk,
     * owningShard}}; each chunk as {@code {min, max, lastmod}}.
     */
    private void logSplit(String namespace, String shard, CatalogChunk before, List<BsonDocument> bounds, List<ChunkVersion> versions) {
        BsonDocument beforeDoc = chunkDoc(before.range().min(), before.range().max(), before.lastmod());
        BsonString owner = new BsonString(shard);
        if (versions.size() == 2) {
            changelog.record(CommitGuard.CONFIG_SHARD_ID, shard, "split", namespace, new BsonDocument("before", beforeDoc)
                    .append("left", chunkDoc(bounds.get(0), bounds.get(1), versions.get(0)))
                    .append("right", chunkDoc(bounds.get(1), bounds.get(2), versions.get(1)))
                    .append("owningShard", owner));
            return;
        }
        for (int i = 0; i < versions.size(); i++) {
            changelog.record(CommitGuard.CONFIG_SHARD_ID, shard, "multi-split", namespace, new BsonDocument("before", beforeDoc)
                    .append("number", new BsonInt32(i + 1)).append("of", new BsonInt32(versions.size()))
                    .append("chunk", chunkDoc(bounds.get(i), bounds.get(i + 1), versions.get(i)))
                    .append("owningShard", owner));
        }
    }

    private static BsonDocument chunkDoc(BsonDocument min, BsonDocument max, ChunkVersion lastmod) {
        return new BsonDocument("min", min).append("max", max).append("lastmod", lastmod.toBson());
    }

    /**
     * Merges the chunks that exactly cover {@code range}, contiguous and all on {@code shard}, into one chunk with
     * version {@link VersionRules#merge} and a fresh history. A range that already is one chunk is a no-op success.
     *
     * @throws CommandException StaleEpoch/StaleConfig (see {@link CommitGuard}); BadValue naming {@code chunkRange}
     *                          when the chunks do not exactly cover it or are not all on {@code shard}
     */
    public CommitResult merge(String namespace, CommitExpectation expected, ChunkRange range, String shard) {
        return tx.execute(status -> {
            CommitGuard.Locked locked = guard.lock(namespace, expected);
            ShardKeyPattern key = locked.collection().key();
            byte[] min = KeyBounds.encode(key, range.min(), "chunkRange.min");
            byte[] max = KeyBounds.encode(key, range.max(), "chunkRange.max");
            UUID uuid = locked.collection().uuid();
            List<CatalogChunk> merged = chunks.startingIn(uuid, min, max);
            byte[] expectedMin = min;
            for (CatalogChunk c : merged) {
                if (!Arrays.equals(key.encode(c.range().min()), expectedMin) || !c.shard().equals(shard)) {
                    throw rangeMismatch(namespace, "chunkRange", range, shard);
                }
                expectedMin = key.encode(c.range().max());
            }
            if (merged.isEmpty() || !Arrays.equals(expectedMin, max)) {
                throw rangeMismatch(namespace, "chunkRange", range, shard);
            }
            if (merged.size() == 1) {
                return new CommitResult(chunks.shardVersion(uuid, shard).orElseThrow(), locked.collectionVersion());
            }
            ChunkVersion version = VersionRules.merge(locked.collectionVersion());
            CatalogChunk first = merged.getFirst();
            chunks.delete(merged.subList(1, merged.size()).stream().map(CatalogChunk::id).toList());
            ChunkRange mergedRange = new ChunkRange(first.range().min(), merged.getLast().range().max());
            chunks.update(key, new CatalogChunk(first.id(), uuid, new Chunk(mergedRange, shard, version, false,
                    List.of(new ChunkHistory(clock.tick(1), shard)))));
            outbox.appendRoutingChanged(namespace, version.epoch(), version, List.of(shard));
            events.publishEvent(new RoutingChangeCommitted(namespace, List.of(shard)));
            return new CommitResult(version, version);
        });
    }

    /**
     * Moves the chunk {@code range} from {@code fromShard} to {@code toShard} in the catalog: the moved chunk gets
     * {@link VersionRules#migratedChunk} and a new history entry at the commit's cluster time, a chunk left on the donor
     * (the control chunk) {@link VersionRules#controlChunk}; with {@code ROUTING_CHANGED} and {@code MIGRATION_COMMITTED}
     * events. The data half of a migration is the shards' business (docs/sharding-protocol.md, "Chunk migration").
     *
     * @param chunkVersion the migrated chunk's version when the donor started (MongoDB's {@code migratedChunk.lastmod});
     *                     when given, a chunk with another version is refused: a recovering donor fenced it
     *                     ({@link #ensureChunkVersionIsGreaterThan}) and decided to abort
     * @return the donor's new shard version ({@code 0|0} of the epoch when it has no chunk left) and the collection version
     * @throws CommandException StaleEpoch/StaleConfig (see {@link CommitGuard}); BadValue naming {@code toShard} when
     *                          it equals {@code fromShard}, or naming {@code migratedChunk} when the range is not
     *                          exactly a chunk of {@code fromShard}; StaleConfig when the chunk's version is not
     *                          {@code chunkVersion}; ShardNotFound naming {@code toShard}
     */
    public CommitResult migrate(String namespace, CommitExpectation expected, ChunkRange range, @Nullable ChunkVersion chunkVersion,
            String fromShard, String toShard) {
        if (fromShard.equals(toShard)) {
            throw new CommandException(ErrorCode.BadValue, "'toShard' " + toShard + " must differ from 'fromShard'");
        }
        CommitResult result = tx.execute(status -> {
            CommitGuard.Locked locked = guard.lock(namespace, expected);
            if (!shards.existsById(toShard)) {
                throw new CommandException(ErrorCode.ShardNotFound, "'toShard' " + toShard + " is not a registered shard");
            }
            ShardKeyPattern key = locked.collection().key();
            UUID uuid = locked.collection().uuid();
            CatalogChunk chunk = chunkOn(namespace, uuid, KeyBounds.encode(key, range.min(), "migratedChunk.min"),
                    KeyBounds.encode(key, range.max(), "migratedChunk.max"), range, fromShard, "migratedChunk");
            if (chunkVersion != null && !chunkVersion.equals(chunk.lastmod())) {
                throw new StaleConfig(namespace, chunkVersion, chunk.lastmod(), CommitGuard.CONFIG_SHARD_ID).toException();
            }
            ChunkVersion moved = VersionRules.migratedChunk(locked.collectionVersion());
            chunks.update(key, chunk.movedTo(toShard, moved, clock.tick(1), historyWindow));
            Optional<CatalogChunk> control = chunks.anotherOn(uuid, fromShard, chunk.id())
                    .map(c -> c.withVersion(VersionRules.controlChunk(locked.collectionVersion())));
            control.ifPresent(c -> chunks.update(key, c));
            ChunkVersion collectionVersion = control.map(CatalogChunk::lastmod).orElse(moved);
            ChunkVersion donorVersion = control.map(CatalogChunk::lastmod)
                    .orElse(new ChunkVersion(0, 0, moved.epoch(), moved.timestamp()));
            outbox.appendRoutingChanged(namespace, moved.epoch(), collectionVersion, List.of(fromShard, toShard));
            outbox.appendMigration(CatalogEvent.Type.MIGRATION_COMMITTED, namespace, fromShard, toShard, collectionVersion);
            events.publishEvent(new RoutingChangeCommitted(namespace, List.of(fromShard, toShard)));
            failPoints.hit(MIGRATION_BEFORE_COMMIT);
            return new CommitResult(donorVersion, collectionVersion);
        });
        failPoints.hit(MIGRATION_AFTER_COMMIT);
        return result;
    }

    /**
     * MongoDB's {@code _configsvrEnsureChunkVersionIsGreaterThan}, the fence of a migration donor that does not know
     * whether its commit happened (it restarted, or the commit call failed without an answer): when the chunk
     * {@code range} still exists with a version at or below {@code version}, it gets {@link VersionRules#fence}, so that
     * a commit still in flight naming {@code version} is refused; otherwise nothing changes. One transaction with the
     * collection locked, also while a DDL coordinator of the namespace runs (a drop may be waiting for this migration).
     * Afterwards the catalog says for good whether the migration committed.
     *
     * @return whether the chunk was fenced (it is still where the migration started)
     * @throws CommandException StaleEpoch when the collection is not sharded with {@code expected}'s epoch any more;
     *                          BadValue naming {@code minKey}/{@code maxKey} for bounds not in the shard key's shape
     */
    public boolean ensureChunkVersionIsGreaterThan(String namespace, CommitExpectation expected, ChunkRange range, ChunkVersion version) {
        return tx.execute(status -> {
            CommitGuard.Locked locked = guard.lockDuringDdl(namespace, expected);
            ShardKeyPattern key = locked.collection().key();
            Optional<CatalogChunk> chunk = chunks.exact(locked.collection().uuid(), KeyBounds.encode(key, range.min(), "minKey"),
                    KeyBounds.encode(key, range.max(), "maxKey"));
            // at or below version: the chunk has not moved (a commit would have given it a higher major)
            if (chunk.isEmpty() || !chunk.get().lastmod().sameEpoch(version) || version.isOlderThan(chunk.get().lastmod())) {
                return false;
            }
            ChunkVersion fenced = VersionRules.fence(locked.collectionVersion());
            chunks.update(key, chunk.get().withVersion(fenced));
            outbox.appendRoutingChanged(namespace, fenced.epoch(), fenced, List.of(chunk.get().shard()));
            events.publishEvent(new RoutingChangeCommitted(namespace, List.of(chunk.get().shard())));
            return true;
        });
    }

    private CatalogChunk chunkOn(String namespace, UUID uuid, byte[] min, byte[] max, ChunkRange range, String shard, String field) {
        return chunks.exact(uuid, min, max).filter(c -> c.shard().equals(shard))
                .orElseThrow(() -> rangeMismatch(namespace, field, range, shard));
    }

    private static CommandException rangeMismatch(String namespace, String field, ChunkRange range, String shard) {
        return new CommandException(ErrorCode.BadValue, "'" + field + "' " + range + " does not match the chunks of " + namespace
                + " on shard " + shard + " (IncompatibleShardingMetadata): the catalog changed or the range is wrong");
    }
}
