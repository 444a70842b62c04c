package dev.shardstore.config.sharding;

import dev.shardstore.config.catalog.CatalogChunk;
import dev.shardstore.config.catalog.ChunkCatalog;
import dev.shardstore.config.catalog.ChunkCommits;
import dev.shardstore.config.catalog.ShardedCollectionCatalog;
import dev.shardstore.config.catalog.CommitExpectation;
import dev.shardstore.config.catalog.CommitResult;
import dev.shardstore.config.catalog.KeyBounds;
import dev.shardstore.config.catalog.ShardRepository;
import dev.shardstore.config.catalog.ShardEntity;
import dev.shardstore.config.shard.ShardPeers;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.sharding.ChunkRange;
import dev.shardstore.contracts.sharding.ShardKeyPattern;
import dev.shardstore.contracts.sharding.ShardedCollection;
import java.util.Arrays;
import java.util.List;
import org.bson.BsonDocument;
import org.springframework.stereotype.Service;

/**
 * {@code _configsvrSplitChunk}, the admin {@code split} command: finds the chunk ({@code middle}: the one owning that
 * key; {@code find}: the one owning the query's shard key; {@code bounds}: exactly that chunk), takes the split point
 * ({@code middle} itself, otherwise the median the owning shard's {@code splitVector … force: true} reports) and
 * commits the split through {@link ChunkCommits#split}.
 */
@Service
public class SplitChunkCoordinator {
    /** Where to split: exactly one of the admin command's {@code middle}, {@code find} and {@code bounds}. */
    public sealed interface SplitAt {
        /** Split at this key (pattern shape, hashed components as longs). */
        record Middle(BsonDocument key) implements SplitAt {}

        /** Split the chunk owning the shard key of these equality values at its median. */
        record Find(BsonDocument query) implements SplitAt {}

        /** Split exactly this chunk at its median. */
        record Bounds(ChunkRange range) implements SplitAt {}
    }

    private final ShardedCollectionCatalog collections;
    private final ChunkCatalog chunks;
    private final ChunkCommits commits;
    private final ShardRepository shards;
    private final ShardPeers peers;

    public SplitChunkCoordinator(ShardedCollectionCatalog collections, ChunkCatalog chunks, ChunkCommits commits, ShardRepository shards,
            ShardPeers peers) {
        this.collections = collections;
        this.chunks = chunks;
        this.commits = commits;
        this.shards = shards;
        this.peers = peers;
    }

    /**
     * @throws CommandException NamespaceNotSharded; BadValue naming {@code middle} or {@code bounds} when the key does
     *                          not match the pattern or the bounds are not a chunk; ShardKeyNotFound naming the field
     *                          missing from {@code find}; CannotSplit when {@code middle} is a chunk boundary or the
     *                          shard finds no split point; the commit's errors
     */
    public CommitResult split(String namespace, SplitAt at) {
        ShardedCollection collection = collections.find(namespace)
                .orElseThrow(() -> new CommandException(ErrorCode.NamespaceNotSharded, "collection " + namespace + " is not sharded"));
        ShardKeyPattern key = collection.key();
        CatalogChunk chunk = switch (at) {
            case SplitAt.Middle m -> owning(collection, KeyBounds.encode(key, m.key(), "middle"));
            case SplitAt.Find f -> owning(collection, key.encode(key.requireShardKeyFromQuery(f.query())));
            case SplitAt.Bounds b -> chunks.exact(collection.uuid(), KeyBounds.encode(key, b.range().min(), "bounds.0"),
                    KeyBounds.encode(key, b.range().max(), "bounds.1")).orElseThrow(() -> new CommandException(ErrorCode.BadValue,
                    "'bounds' " + b.range() + " is not a chunk of " + namespace));
        };
        BsonDocument point;
        if (at instanceof SplitAt.Middle m) {
            if (Arrays.equals(key.encode(m.key()), key.encode(chunk.range().min()))) {
                throw new CommandException(ErrorCode.CannotSplit, "'middle' " + m.key().toJson() + " is the lower bound of chunk "
                        + chunk.range() + "; a chunk cannot be split at its boundary");
            }
            point = m.key();
        } else {
            point = median(namespace, key, chunk);
        }
        return commits.split(namespace, new CommitExpectation(collection.epoch(), collection.timestamp(), null), chunk.range(),
                List.of(point), chunk.shard());
    }

    private CatalogChunk owning(ShardedCollection collection, byte[] key) {
        return chunks.owning(collection.uuid(), key).orElseThrow(() -> new IllegalStateException(
                "the chunks of " + collection.namespace() + " do not cover the key space"));
    }

    private BsonDocument median(String namespace, ShardKeyPattern key, CatalogChunk chunk) {
        ShardEntity owner = shards.findById(chunk.shard()).orElseThrow(() -> new CommandException(ErrorCode.ShardNotFound,
                "shard " + chunk.shard() + " owning chunk " + chunk.range() + " of " + namespace + " is not registered"));
        List<BsonDocument> keys = peers.splitVector(owner.id(), owner.host(), namespace, key, chunk.range());
        if (keys.isEmpty()) {
            throw new CommandException(ErrorCode.CannotSplit, "shard " + owner.id() + " found no split point in chunk " + chunk.range()
                    + " of " + namespace + " (too few distinct shard key values)");
        }
        return keys.getFirst();
    }
}
