package dev.shardstore.shard.storage;

import dev.shardstore.shard.OplogProperties;
import java.time.Clock;
import java.time.Duration;
import org.bson.BsonTimestamp;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * Keeps the oplog from growing forever (MongoDB caps {@code local.oplog.rs} by size and {@code oplogMinRetentionHours}):
 * every {@code shardstore.shard.oplog.truncate-interval} it deletes the entries older than
 * {@code shardstore.shard.oplog.retention}, but never one that a pinned reader still needs, one above the all-durable
 * point, or the newest ({@link OplogReader#truncateBefore}). Retention is by age only; a cap by size is not
 * implemented.
 */
@Component
public class OplogRetention {
    private static final Logger log = LoggerFactory.getLogger(OplogRetention.class);

    private final OplogReader reader;
    private final Duration retention;
    private final Clock clock;

    @Autowired
    public OplogRetention(OplogReader reader, OplogProperties settings) {
        this(reader, settings, Clock.systemUTC());
    }

    OplogRetention(OplogReader reader, OplogProperties settings, Clock clock) {
        this.reader = reader;
        this.retention = settings.retention();
        this.clock = clock;
    }

    /**
     * Deletes the entries whose cluster time is more than the retention behind the wall clock (and that no reader
     * pins).
     *
     * @return how many entries were deleted
     */
    @Scheduled(fixedDelayString = "${shardstore.shard.oplog.truncate-interval:1m}",
            initialDelayString = "${shardstore.shard.oplog.truncate-interval:1m}")
    public int truncate() {
        long cutoffSeconds = Math.max(0, clock.instant().minus(retention).getEpochSecond());
        int deleted = reader.truncateBefore(new BsonTimestamp(cutoffSeconds << 32));
        if (deleted > 0) {
            log.info("oplog retention deleted {} entries older than {}", deleted, retention);
        }
        return deleted;
    }
}
