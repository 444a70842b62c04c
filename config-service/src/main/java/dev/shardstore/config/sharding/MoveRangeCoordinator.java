package dev.shardstore.config.sharding;

import dev.shardstore.config.catalog.CatalogChunk;
import dev.shardstore.config.catalog.ChunkCatalog;
import dev.shardstore.config.catalog.ChunkCommits;
import dev.shardstore.config.catalog.ShardedCollectionCatalog;
import dev.shardstore.config.catalog.CommitExpectation;
import dev.shardstore.config.catalog.DatabaseCatalog;
import dev.shardstore.config.catalog.KeyBounds;
import dev.shardstore.config.catalog.ShardEntity;
import dev.shardstore.config.catalog.ShardRepository;
import dev.shardstore.config.catalog.ShardingDdlCoordinators;
import dev.shardstore.config.settings.ClusterSettings;
import dev.shardstore.config.shard.ShardPeers;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.sharding.ChunkRange;
import dev.shardstore.contracts.sharding.ShardKeyPattern;
import dev.shardstore.contracts.sharding.ShardedCollection;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import org.bson.BsonDocument;
import org.jspecify.annotations.Nullable;
import org.springframework.stereotype.Service;

/**
 * {@code _configsvrMoveRange}, where the router's {@code moveChunk} and {@code moveRange} land (MongoDB 6+'s flow:
 * router → config service → donor shard; docs/sharding-protocol.md, "Chunk migration"). It validates the request against
 * the catalog, splits the chunk when only part of it is to move, and asks the donor, the shard owning the range, to run
 * the migration with {@code _shardsvrMoveRange}, which answers once the migration committed or aborted.
 *
 * <p>Serialization with DDL (mongo/src/mongo/db/s/README.md "Serializing conflicting operations"): a migration is refused with
 * ConflictingOperationInProgress (117) while a DDL coordinator of the namespace is unfinished; a migration already
 * running when a drop starts cannot commit (chunk commits are refused while the coordinator exists, so it aborts), and
 * the drop's block on each shard waits until the shard's migration of the namespace is over
 * ({@code _shardsvrParticipantBlock}), so a drop never interleaves with a migration's data steps.
 */
@Service
public class MoveRangeCoordinator {
    /** Which range to move: exactly one of the admin commands' forms. */
    public sealed interface Target {
        /** {@code moveChunk}'s {@code find}: the chunk holding the document with these shard key equality values. */
        record Find(BsonDocument query) implements Target {
            public Find {
                Objects.requireNonNull(query, "query");
            }
        }

        /** {@code moveChunk}'s {@code bounds}: exactly this chunk. */
        record Bounds(ChunkRange range) implements Target {
            public Bounds {
                Objects.requireNonNull(range, "range");
            }
        }

        /**
         * {@code moveRange}'s {@code min} and optional {@code max}: a range inside one chunk, split off first when it is
         * smaller than the chunk; without {@code max}, up to the first split point {@code splitVector} finds for half the
         * max chunk size (the whole rest of the chunk when that is smaller).
         */
        record Range(BsonDocument min, @Nullable BsonDocument max) implements Target {
            public Range {
                Objects.requireNonNull(min, "min");
            }
        }
    }

    /**
     * What a move did.
     *
     * @param moved       false when the range already was on the recipient (a no-op success)
     * @param range       the chunk moved (or that would have been)
     * @param fromShard   its owner before
     * @param toShard     the recipient
     * @param donorReply  the donor's {@code _shardsvrMoveRange} reply; empty when nothing moved
     */
    public record Outcome(boolean moved, ChunkRange range, String fromShard, String toShard, BsonDocument donorReply) {}

    private final DatabaseCatalog databases;
    private final ShardedCollectionCatalog collections;
    private final ChunkCatalog chunks;
    private final ChunkCommits commits;
    private final ShardRepository shards;
    private final ShardingDdlCoordinators coordinators;
    private final ShardPeers peers;
    private final ClusterSettings settings;

    public MoveRangeCoordinator(DatabaseCatalog databases, ShardedCollectionCatalog collections, ChunkCatalog chunks, ChunkCommits commits,
            ShardRepository shards, ShardingDdlCoordinators coordinators, ShardPeers peers, ClusterSettings settings) {
        this.databases = databases;
        this.collections = collections;
        this.chunks = chunks;
        this.commits = commits;
        this.shards = shards;
        this.coordinators = coordinators;
        this.peers = peers;
        this.settings = settings;
    }

    /**
     * Moves {@code target} of {@code namespace} to {@code toShard} and returns once the donor reports the migration over.
     *
     * @param toField the request's name of the recipient field ({@code to} for moveChunk, {@code toShard} for moveRange),
     *                for error messages
     * @throws CommandException NamespaceNotFound (26) when the database does not exist; NamespaceNotSharded (118); ShardNotFound
     *                          (70) naming {@code toField}; BadValue naming {@code bounds}, {@code min} or {@code max};
     *                          ShardKeyNotFound (61) when {@code find} lacks a shard key field; ChunkTooBig (153) for a
     *                          jumbo chunk without {@code forceJumbo}; ConflictingOperationInProgress (117) while a DDL
     *                          operation of the namespace runs; the donor's error when the migration aborted
     */
    public Outcome move(String namespace, Target target, String toShard, String toField, boolean waitForDelete, boolean forceJumbo) {
        ShardedCollection collection = collections.find(namespace).orElseThrow(() -> notSharded(namespace));
        ShardEntity recipient = shards.findById(toShard).orElseThrow(() -> new CommandException(ErrorCode.ShardNotFound,
                "'" + toField + "': no shard named '" + toShard + "' is registered"));
        CatalogChunk resolved = resolve(collection, target);
        if (resolved.shard().equals(recipient.id())) {
            return new Outcome(false, resolved.range(), resolved.shard(), toShard, new BsonDocument());
        }
        if (resolved.chunk().jumbo() && !forceJumbo) {
            throw new CommandException(ErrorCode.ChunkTooBig, "chunk " + resolved.range() + " of " + namespace
                    + " is marked jumbo; moving it needs 'forceJumbo: true'");
        }
        coordinators.requireNone(namespace, "a chunk migration");
        CatalogChunk chunk = target instanceof Target.Range range ? splitOff(collection, resolved, range) : resolved;
        ShardEntity donor = shards.findById(chunk.shard()).orElseThrow(() -> new CommandException(ErrorCode.ShardNotFound,
                "shard " + chunk.shard() + " owning chunk " + chunk.range() + " of " + namespace + " is not registered"));
        BsonDocument reply = peers.moveRange(donor.id(), donor.host(), namespace, chunk.range(), chunk.lastmod(), collection.epoch(),
                collection.timestamp(), recipient.id(), waitForDelete, forceJumbo, settings.maxChunkSizeBytes(collection));
        return new Outcome(true, chunk.range(), donor.id(), recipient.id(), reply);
    }

    /**
     * The chunk of {@code namespace} that {@code target} designates, resolved as {@link #move} resolves it (clearJumboFlag
     * and the balancer's jumbo marking use it).
     *
     * @throws CommandException NamespaceNotSharded (118); BadValue / ShardKeyNotFound naming the target's field
     */
    public CatalogChunk chunk(String namespace, Target target) {
        return resolve(collections.find(namespace).orElseThrow(() -> notSharded(namespace)), target);
    }

    /** The chunk {@code target} designates (for a range: the chunk containing its {@code min}). */
    private CatalogChunk resolve(ShardedCollection collection, Target target) {
        ShardKeyPattern key = collection.key();
        return switch (target) {
            case Target.Find f -> owning(collection, key.encode(shardKeyFromQuery(key, f.query())));
            case Target.Bounds b -> chunks.exact(collection.uuid(), KeyBounds.encode(key, b.range().min(), "bounds.0"),
                    KeyBounds.encode(key, b.range().max(), "bounds.1")).orElseThrow(() -> new CommandException(ErrorCode.BadValue,
                    "'bounds' " + b.range() + " is not exactly one chunk of " + collection.namespace()
                            + " (moveChunk moves one whole chunk; use moveRange for a part of one)"));
            case Target.Range r -> {
                byte[] min = KeyBounds.encode(key, r.min(), "min");
                CatalogChunk owning = owning(collection, min);
                if (r.max() != null) {
                    byte[] max = KeyBounds.encode(key, r.max(), "max");
                    if (Arrays.compareUnsigned(max, min) <= 0 || Arrays.compareUnsigned(max, key.encode(owning.range().max())) > 0) {
                        throw new CommandException(ErrorCode.BadValue, "'max' " + r.max().toJson() + " must be above 'min' and at most "
                                + owning.range().max().toJson() + ", the upper bound of the chunk " + owning.range() + " holding 'min'");
                    }
                }
                yield owning;
            }
        };
    }

    /** {@code find}'s shard key; ShardKeyNotFound names the missing field and {@code find}. */
    private static BsonDocument shardKeyFromQuery(ShardKeyPattern key, BsonDocument query) {
        try {
            return key.requireShardKeyFromQuery(query);
        } catch (CommandException e) {
            throw new CommandException(e.code(), "'find': " + e.getMessage() + " (moveChunk's find needs the full shard key "
                    + key.pattern().toJson() + ")");
        }
    }

    /**
     * Splits {@code chunk} so that {@code range} becomes a chunk of its own, and returns that chunk: at {@code min} when it
     * is inside the chunk, at {@code max} when given and inside, else at the first point {@code splitVector} finds for
     * half the max chunk size (none: the rest of the chunk moves).
     */
    private CatalogChunk splitOff(ShardedCollection collection, CatalogChunk chunk, Target.Range range) {
        ShardKeyPattern key = collection.key();
        byte[] min = key.encode(range.min());
        BsonDocument max = range.max();
        if (max == null) {
            ShardEntity owner = shards.findById(chunk.shard()).orElseThrow();
            // MongoDB's moveRange without max moves about half a chunk: the first point of a cut at half the max size
            List<BsonDocument> points = peers.splitVector(owner.id(), owner.host(), collection.namespace(), key,
                    new ChunkRange(range.min(), chunk.range().max()), settings.maxChunkSizeBytes(collection) / 2);
            max = points.stream().filter(p -> Arrays.compareUnsigned(key.encode(p), min) > 0).findFirst().orElse(null);
        }
        List<BsonDocument> points = new ArrayList<>();
        if (Arrays.compareUnsigned(min, key.encode(chunk.range().min())) > 0) {
            points.add(range.min());
        }
        if (max != null && Arrays.compareUnsigned(key.encode(max), key.encode(chunk.range().max())) < 0) {
            points.add(max);
        }
        if (points.isEmpty()) {
            return chunk;
        }
        commits.split(collection.namespace(), new CommitExpectation(collection.epoch(), collection.timestamp(), null), chunk.range(),
                points, chunk.shard());
        return owning(collection, min);
    }

    private CatalogChunk owning(ShardedCollection collection, byte[] key) {
        return chunks.owning(collection.uuid(), key).orElseThrow(() -> new IllegalStateException(
                "the chunks of " + collection.namespace() + " do not cover the key space"));
    }

    private CommandException notSharded(String namespace) {
        String db = namespace.substring(0, namespace.indexOf('.'));
        if (databases.find(db).isEmpty()) {
            return new CommandException(ErrorCode.NamespaceNotFound, "database " + db + " of " + namespace + " does not exist");
        }
        return new CommandException(ErrorCode.NamespaceNotSharded, "collection " + namespace + " is not sharded");
    }
}
