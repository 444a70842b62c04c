package dev.shardstore.config.catalog;

import java.util.concurrent.atomic.AtomicLong;
import org.bson.BsonTimestamp;
import org.springframework.stereotype.Component;

/**
 * Issues strictly increasing cluster times ({@code Timestamp(seconds, increment)}) for catalog
 * versions such as {@code DatabaseVersion.timestamp}. Wall-clock seconds, increment within a second;
 * never goes backwards even if the wall clock does. The full gossiped cluster time comes later.
 */
@Component
public class ConfigClock {
    private final AtomicLong last = new AtomicLong();

    public BsonTimestamp next() {
        long nowSeconds = System.currentTimeMillis() / 1000;
        long value = last.updateAndGet(prev -> {
            long candidate = nowSeconds << 32 | 1;
            return candidate > prev ? candidate : prev + 1;
        });
        return new BsonTimestamp(value);
    }
}
