package dev.shardstore.shard.autosplit;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/**
 * The cluster settings auto-split follows, per collection, read from the config service and cached for
 * {@code settings-refresh-interval} (MongoDB's shard-side {@code BalancerConfiguration}, refreshed before each split):
 * <ul>
 *   <li>{@code config.settings} {@code {_id: "autosplit", enabled: bool}} — auto-split on or off (default on, as
 *       MongoDB's {@code sh.enableAutoSplit()} / {@code sh.disableAutoSplit()} write it);</li>
 *   <li>the maximum chunk size: the collection's {@code maxChunkSizeBytes} in {@code config.collections} when set
 *       (MongoDB's per-collection {@code chunkSize}), else {@code config.settings} {@code {_id: "chunksize", value: MB}},
 *       else {@code default-max-chunk-size};</li>
 *   <li>whether a new top chunk may be moved away: the balancer {@code mode} is {@code full} (not {@code stopped}) and the
 *       collection is not {@code noBalance}.</li>
 * </ul>
 * The write path only looks at the cache ({@link #cached}) and never waits for the config service; an auto-split task
 * reads afresh when the cache has expired ({@link #current}). Thread-safe.
 */
@Component
public class AutoSplitSettings {
    private static final Logger log = LoggerFactory.getLogger(AutoSplitSettings.class);
    private static final long MB = 1024 * 1024;

    /**
     * What auto-split of one collection follows.
     *
     * @param enabled           whether auto-split runs
     * @param maxChunkSizeBytes the maximum chunk size, in bytes (positive)
     * @param balance           whether the balancer may move the collection's chunks now (for the top chunk)
     */
    public record Effective(boolean enabled, long maxChunkSizeBytes, boolean balance) {
        public Effective {
            if (maxChunkSizeBytes < 1) {
                throw new IllegalArgumentException("maxChunkSizeBytes must be positive, was " + maxChunkSizeBytes);
            }
        }

        /**
         * The bytes written to a chunk after which its size is checked: a fifth of the maximum chunk size (MongoDB's
         * {@code ChunkWritesTracker::shouldSplit} with its split test factor of 5).
         */
        public long splitThresholdBytes() {
            return Math.max(1, maxChunkSizeBytes / 5);
        }
    }

    private record Entry(Effective value, long loadedAt) {}

    private final ConfigCatalogReader config;
    private final AutoSplitProperties properties;
    private final ConcurrentMap<String, Entry> entries = new ConcurrentHashMap<>();
    private final Set<String> loading = ConcurrentHashMap.newKeySet();

    public AutoSplitSettings(ConfigCatalogReader config, AutoSplitProperties properties) {
        this.config = config;
        this.properties = properties;
    }

    /**
     * The cached settings of {@code namespace}, without waiting: empty until the first read finished. A missing or expired
     * entry is read again in the background.
     */
    public Optional<Effective> cached(String namespace) {
        Entry entry = entries.get(namespace);
        if ((entry == null || expired(entry)) && loading.add(namespace)) {
            Thread.ofVirtual().name("autosplit-settings").start(() -> {
                try {
                    load(namespace);
                } catch (RuntimeException e) {
                    log.warn("could not read the auto-split settings of {} from the config service: {}", namespace, e.getMessage());
                } finally {
                    loading.remove(namespace);
                }
            });
        }
        return entry == null ? Optional.empty() : Optional.of(entry.value());
    }

    /**
     * The settings of {@code namespace}, read from the config service when the cached ones expired.
     *
     * @throws CommandException when the config service does not answer, or BadValue naming a stored setting that is malformed
     */
    public Effective current(String namespace) {
        Entry entry = entries.get(namespace);
        return entry != null && !expired(entry) ? entry.value() : load(namespace);
    }

    private boolean expired(Entry entry) {
        return System.nanoTime() - entry.loadedAt() > properties.settingsRefreshInterval().toNanos();
    }

    private Effective load(String namespace) {
        BsonDocument autosplit = new BsonDocument();
        BsonDocument chunksize = new BsonDocument();
        BsonDocument balancer = new BsonDocument();
        for (BsonDocument doc : config.find("settings", new BsonDocument())) {
            switch (doc.getString("_id", new BsonString("")).getValue()) {
                case "autosplit" -> autosplit = doc;
                case "chunksize" -> chunksize = doc;
                case "balancer" -> balancer = doc;
                default -> { }
            }
        }
        BsonDocument collection = config.find("collections", new BsonDocument("_id", new BsonString(namespace))).stream()
                .findFirst().orElseGet(BsonDocument::new);
        Effective effective = new Effective(bool(autosplit, "autosplit", "enabled", true), maxChunkSize(collection, chunksize),
                balancerOn(balancer) && !bool(collection, "config.collections " + namespace, "noBalance", false));
        entries.put(namespace, new Entry(effective, System.nanoTime()));
        return effective;
    }

    private long maxChunkSize(BsonDocument collection, BsonDocument chunksize) {
        if (collection.containsKey("maxChunkSizeBytes")) {
            if (!collection.isNumber("maxChunkSizeBytes") || collection.getNumber("maxChunkSizeBytes").longValue() < 1) {
                throw malformed("config.collections 'maxChunkSizeBytes'", collection.get("maxChunkSizeBytes").toString());
            }
            return collection.getNumber("maxChunkSizeBytes").longValue();
        }
        if (chunksize.containsKey("value")) {
            if (!chunksize.isNumber("value") || chunksize.getNumber("value").doubleValue() <= 0) {
                throw malformed("config.settings 'chunksize' 'value'", chunksize.get("value").toString());
            }
            return Math.max(1, (long) (chunksize.getNumber("value").doubleValue() * MB));
        }
        return properties.defaultMaxChunkSize().toBytes();
    }

    /** MongoDB's balancer settings: {@code mode} ({@code full} or {@code off}), or the older {@code stopped: bool}. */
    private static boolean balancerOn(BsonDocument balancer) {
        if (balancer.containsKey("mode")) {
            if (!balancer.isString("mode")) {
                throw malformed("config.settings 'balancer' 'mode'", balancer.get("mode").toString());
            }
            return "full".equals(balancer.getString("mode").getValue());
        }
        return !bool(balancer, "balancer", "stopped", false);
    }

    private static boolean bool(BsonDocument doc, String what, String field, boolean absent) {
        if (!doc.containsKey(field)) {
            return absent;
        }
        if (!doc.isBoolean(field)) {
            throw malformed(what + " '" + field + "'", doc.get(field).toString());
        }
        return doc.getBoolean(field).getValue();
    }

    private static CommandException malformed(String what, String value) {
        return new CommandException(ErrorCode.BadValue, what + " is malformed: " + value);
    }
}
