package dev.shardstore.shard.autosplit;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.util.unit.DataSize;

/**
 * Auto-split settings of one shard ({@code shardstore.shard.autosplit.*}). Whether auto-split runs at all and the maximum
 * chunk size are cluster settings in {@code config.settings} ({@link AutoSplitSettings}); these are the shard's own.
 *
 * @param threads                 auto-split tasks that run at once on this shard (MongoDB's ChunkSplitter pool), at least 1
 * @param queueCapacity           tasks waiting for a thread; a chunk whose task finds the queue full is tried again after
 *                                its next threshold of writes; at least 1
 * @param settingsRefreshInterval how long the {@code config.settings} and {@code config.collections} values read from the
 *                                config service are trusted before they are read again
 * @param defaultMaxChunkSize     the maximum chunk size when neither {@code config.settings} {@code chunksize} nor the
 *                                collection's {@code maxChunkSizeBytes} is set (MongoDB's default, 128 MB)
 */
@ConfigurationProperties("shardstore.shard.autosplit")
public record AutoSplitProperties(
        @DefaultValue("2") int threads,
        @DefaultValue("64") int queueCapacity,
        @DefaultValue("10s") Duration settingsRefreshInterval,
        @DefaultValue("128MB") DataSize defaultMaxChunkSize) {
    public AutoSplitProperties {
        if (threads < 1 || queueCapacity < 1) {
            throw new IllegalArgumentException("shardstore.shard.autosplit.threads and queue-capacity must be at least 1, were "
                    + threads + " and " + queueCapacity);
        }
        if (settingsRefreshInterval.isNegative() || defaultMaxChunkSize.toBytes() < 1) {
            throw new IllegalArgumentException("shardstore.shard.autosplit.settings-refresh-interval must not be negative and"
                    + " default-max-chunk-size must be positive");
        }
    }
}
