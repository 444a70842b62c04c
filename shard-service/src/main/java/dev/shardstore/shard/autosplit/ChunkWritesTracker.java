package dev.shardstore.shard.autosplit;

import dev.shardstore.contracts.namespace.Namespace;
import dev.shardstore.contracts.sharding.Chunk;
import dev.shardstore.contracts.sharding.ChunkRange;
import dev.shardstore.contracts.sharding.RoutingTable;
import dev.shardstore.shard.ShardProperties;
import dev.shardstore.shard.storage.CommittedWritesObserver;
import dev.shardstore.shard.storage.WriteUnitOfWork;
import dev.shardstore.shard.versioning.CollectionFilteringInfo;
import dev.shardstore.shard.versioning.CollectionShardingState;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import org.jspecify.annotations.Nullable;
import org.springframework.stereotype.Component;

/**
 * Counts the bytes of committed client inserts and updates per chunk of this shard (mongo/src/mongo/db/s/README.md "Deciding when to
 * auto-split a chunk"; MongoDB's {@code ChunkManager}/{@code ChunkInfo}/{@code ChunkWritesTracker}) and hands a chunk to
 * the {@link ChunkSplitter} once a fifth of the maximum chunk size was written to it and no split of it is in progress.
 *
 * <p>A write is attributed to a chunk through the shard's filtering metadata ({@link CollectionShardingState#known}, which
 * never loads): a write to a collection whose metadata this shard has not loaded is not counted. The counters of one
 * collection follow the newest routing table any write saw; when it changes (a split, a migration), the counters of
 * chunks that are no longer chunks of this shard are dropped and new chunks start at zero. Thread-safe: one short lock per
 * collection per committed unit.
 */
@Component
public class ChunkWritesTracker implements CommittedWritesObserver {
    private final CollectionShardingState sharding;
    private final AutoSplitSettings settings;
    private final ChunkSplitter splitter;
    private final String self;
    private final ConcurrentMap<String, CollectionWrites> collections = new ConcurrentHashMap<>();

    public ChunkWritesTracker(WriteUnitOfWork units, CollectionShardingState sharding, AutoSplitSettings settings, ChunkSplitter splitter,
            ShardProperties shard) {
        this.sharding = sharding;
        this.settings = settings;
        this.splitter = splitter;
        this.self = shard.name();
        units.observeCommittedWrites(this);
    }

    @Override
    public void committed(List<WrittenDocument> written) {
        Map<Namespace, List<WrittenDocument>> byNamespace = new LinkedHashMap<>();
        for (WrittenDocument w : written) {
            byNamespace.computeIfAbsent(w.namespace(), k -> new ArrayList<>()).add(w);
        }
        byNamespace.forEach(this::count);
    }

    private void count(Namespace ns, List<WrittenDocument> written) {
        Optional<RoutingTable> seen = sharding.known(ns.full()).flatMap(CollectionFilteringInfo::table);
        if (seen.isEmpty()) {
            return;
        }
        CollectionWrites collection = collections.computeIfAbsent(ns.full(), k -> new CollectionWrites());
        Map<Chunk, ChunkWrites> touched = new HashMap<>();
        RoutingTable table;
        synchronized (collection) {
            table = collection.advance(seen.get(), self);
            for (WrittenDocument w : written) {
                Chunk chunk = table.findChunk(w.shardKey());
                if (chunk.shard().equals(self)) {
                    ChunkWrites writes = collection.chunks.computeIfAbsent(chunk.range(), r -> new ChunkWrites());
                    writes.add(w.bytes());
                    touched.put(chunk, writes);
                }
            }
        }
        if (touched.isEmpty()) {
            return;
        }
        Optional<AutoSplitSettings.Effective> effective = settings.cached(ns.full());
        if (effective.isEmpty() || !effective.get().enabled()) {
            return;
        }
        long threshold = effective.get().splitThresholdBytes();
        touched.forEach((chunk, writes) -> {
            if (writes.bytes() >= threshold && writes.tryStartSplit() && !splitter.trySplitting(ns, chunk, writes)) {
                writes.finishSplit(); // the splitter's queue is full: the next writes try again
            }
        });
    }

    /** The bytes counted for {@code range} of {@code namespace} since its last split attempt (0 when not tracked). */
    public long bytesWritten(String namespace, ChunkRange range) {
        CollectionWrites collection = collections.get(namespace);
        if (collection == null) {
            return 0;
        }
        synchronized (collection) {
            ChunkWrites writes = collection.chunks.get(range);
            return writes == null ? 0 : writes.bytes();
        }
    }

    /** One collection's counters, per chunk range of the routing table they follow (guarded by the instance's monitor). */
    private static final class CollectionWrites {
        private @Nullable RoutingTable table;
        private final Map<ChunkRange, ChunkWrites> chunks = new HashMap<>();

        /** Moves to {@code seen} when it is newer than the table followed so far; returns the table to attribute writes by. */
        RoutingTable advance(RoutingTable seen, String self) {
            if (table == null || newer(seen, table)) {
                table = seen;
                chunks.keySet().removeIf(range -> {
                    Chunk now = seen.findChunk(seen.shardKey().encode(range.min()));
                    return !now.range().equals(range) || !now.shard().equals(self);
                });
            }
            return table;
        }

        private static boolean newer(RoutingTable seen, RoutingTable followed) {
            return !seen.collectionVersion().sameEpoch(followed.collectionVersion())
                    ? seen.collection().timestamp().compareTo(followed.collection().timestamp()) > 0
                    : seen.collectionVersion().compareTo(followed.collectionVersion()) > 0;
        }
    }
}
