package dev.shardstore.console;

import dev.shardstore.contracts.bson.BsonOrder;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import org.bson.BsonArray;
import org.bson.BsonBoolean;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.springframework.stereotype.Component;

/**
 * Each sharded collection's {@code config.chunks} as the console last read them, in shard key order, refreshed by what
 * changed since, as a router's routing table cache refreshes (MongoDB's incremental refresh from the collection
 * version): a refresh asks the router for the chunks whose {@code lastmod} is newer than the newest one held, and for
 * the jumbo ones (the jumbo flag changes no version: mongo/src/mongo/db/s/README.md "Jumbo Chunks"), and puts each
 * returned chunk in place of the held chunks its range overlaps. A split, a merge or a migration gives every chunk it
 * leaves a newer version, so what it replaced is always covered. The whole list is read again when the collection's
 * {@code uuid}, {@code lastmodEpoch} or {@code timestamp} changed (a drop and re-create, a refine or a reshard), when
 * too many chunks changed to be worth merging, and whenever the merged list does not tile the key space exactly (every
 * chunk's {@code max} the next one's {@code min}), so an unexpected change costs one full read, never a wrong map.
 * With 10,000 chunks an unchanged collection costs one {@code find} answering a few documents instead of ten batches
 * of 1,000 (docs/benchmarks.md "The console's collection map"). Thread-safe: one refresh per collection at a time.
 */
@Component
public class ChunkCache {
    /** More changed chunks than this and the list is read whole (a reshard-sized change). */
    static final int MAX_MERGED = 1000;

    /**
     * One chunk as the console keeps it, its bounds also as the map writes them.
     *
     * @param min     its lower bound (inclusive)
     * @param max     its upper bound (exclusive)
     * @param minJson {@code min} as relaxed Extended JSON
     * @param maxJson {@code max} likewise
     * @param shard   its owner
     * @param major   {@code lastmod.major}
     * @param minor   {@code lastmod.minor}
     * @param jumbo   whether the balancer gave up splitting it
     */
    public record CachedChunk(BsonDocument min, BsonDocument max, String minJson, String maxJson, String shard, int major, int minor,
                              boolean jumbo) {
        public CachedChunk {
            Objects.requireNonNull(min, "min");
            Objects.requireNonNull(max, "max");
            Objects.requireNonNull(minJson, "minJson");
            Objects.requireNonNull(maxJson, "maxJson");
            Objects.requireNonNull(shard, "shard");
        }

        /** A {@code config.chunks} document (its {@code lastmod} {@code {major, minor, ...}}, as the config service writes it). */
        static CachedChunk of(BsonDocument chunk) {
            BsonDocument lastmod = chunk.isDocument("lastmod") ? chunk.getDocument("lastmod") : new BsonDocument();
            return new CachedChunk(chunk.getDocument("min"), chunk.getDocument("max"), ClusterViews.json(chunk.getDocument("min")),
                    ClusterViews.json(chunk.getDocument("max")), chunk.getString("shard").getValue(),
                    lastmod.isNumber("major") ? lastmod.getNumber("major").intValue() : 0,
                    lastmod.isNumber("minor") ? lastmod.getNumber("minor").intValue() : 0,
                    chunk.getBoolean("jumbo", BsonBoolean.FALSE).getValue());
        }

        /** {@code lastmod} as {@code major|minor}. */
        public String version() {
            return major + "|" + minor;
        }

        CachedChunk withJumbo(boolean value) {
            return value == jumbo ? this : new CachedChunk(min, max, minJson, maxJson, shard, major, minor, value);
        }

        boolean newerThan(int otherMajor, int otherMinor) {
            return major > otherMajor || (major == otherMajor && minor > otherMinor);
        }
    }

    /** A collection's chunks in key order, under the identity they were read for, and the newest version among them. */
    private record Entry(BsonDocument identity, List<CachedChunk> chunks, int major, int minor) {}

    private static final Comparator<CachedChunk> KEY_ORDER = Comparator.comparing(CachedChunk::min, BsonOrder.COMPARATOR);

    private final ClusterClient client;
    private final Map<String, Entry> entries = new ConcurrentHashMap<>();
    private final Map<String, Object> locks = new ConcurrentHashMap<>();

    public ChunkCache(ClusterClient client) {
        this.client = client;
    }

    /**
     * The chunks of the sharded collection {@code collection} (its {@code config.collections} document), in shard key
     * order, as {@code config.chunks} holds them now.
     *
     * @throws ClusterException when the router refuses or does not answer (the held list stays for the next try)
     */
    public List<CachedChunk> chunks(BsonDocument collection) {
        String ns = collection.getString("_id").getValue();
        BsonDocument identity = new BsonDocument("uuid", collection.get("uuid"));
        for (String field : new String[] {"lastmodEpoch", "timestamp"}) {
            if (collection.containsKey(field)) {
                identity.append(field, collection.get(field));
            }
        }
        synchronized (locks.computeIfAbsent(ns, k -> new Object())) {
            Entry held = entries.get(ns);
            Entry now = held != null && held.identity().equals(identity) ? refreshed(held) : read(identity);
            entries.put(ns, now);
            return now.chunks();
        }
    }

    private Entry read(BsonDocument identity) {
        List<CachedChunk> chunks = new ArrayList<>(client.find("config", "chunks", new BsonDocument("uuid", identity.get("uuid")))
                .stream().map(CachedChunk::of).toList());
        chunks.sort(KEY_ORDER);
        return entry(identity, chunks);
    }

    private Entry refreshed(Entry held) {
        BsonDocument filter = new BsonDocument("uuid", held.identity().get("uuid")).append("$or", new BsonArray(List.of(
                new BsonDocument("lastmod.major", new BsonDocument("$gt", new BsonInt32(held.major()))),
                new BsonDocument("lastmod.major", new BsonInt32(held.major()))
                        .append("lastmod.minor", new BsonDocument("$gt", new BsonInt32(held.minor()))),
                new BsonDocument("jumbo", BsonBoolean.TRUE))));
        List<CachedChunk> changed = new ArrayList<>(client.find("config", "chunks", filter).stream().map(CachedChunk::of).toList());
        if (changed.size() > MAX_MERGED) {
            return read(held.identity());
        }
        changed.sort(KEY_ORDER);
        List<CachedChunk> merged = merge(held.chunks(), changed);
        return tiles(merged) ? entry(held.identity(), merged) : read(held.identity());
    }

    /**
     * {@code held} with each of {@code changed} (key order, not overlapping one another) in place of the held chunks its
     * range overlaps; every chunk not among {@code changed} is not jumbo (the refresh asked for every jumbo chunk).
     * One sweep over both lists.
     */
    static List<CachedChunk> merge(List<CachedChunk> held, List<CachedChunk> changed) {
        List<CachedChunk> out = new ArrayList<>(held.size() + changed.size());
        int j = 0;
        for (CachedChunk chunk : held) {
            while (j < changed.size() && BsonOrder.compare(changed.get(j).max(), chunk.min()) <= 0) {
                out.add(changed.get(j++));
            }
            boolean overlapped = j < changed.size() && BsonOrder.compare(changed.get(j).min(), chunk.max()) < 0;
            if (!overlapped) {
                out.add(chunk.withJumbo(false));
            }
        }
        while (j < changed.size()) {
            out.add(changed.get(j++));
        }
        return out;
    }

    /** Whether {@code chunks} (key order) are contiguous: each one's {@code max} is the next one's {@code min}. */
    static boolean tiles(List<CachedChunk> chunks) {
        for (int i = 1; i < chunks.size(); i++) {
            if (BsonOrder.compare(chunks.get(i - 1).max(), chunks.get(i).min()) != 0) {
                return false;
            }
        }
        return true;
    }

    private static Entry entry(BsonDocument identity, List<CachedChunk> chunks) {
        int major = 0;
        int minor = 0;
        for (CachedChunk c : chunks) {
            if (c.newerThan(major, minor)) {
                major = c.major();
                minor = c.minor();
            }
        }
        return new Entry(identity, List.copyOf(chunks), major, minor);
    }
}
