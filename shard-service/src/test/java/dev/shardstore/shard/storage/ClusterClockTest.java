package dev.shardstore.shard.storage;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shardstore.shard.ShardIntegrationTest;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

class ClusterClockTest extends ShardIntegrationTest {
    @Autowired
    ClusterClock clock;

    @Test
    void reservationsIncreaseAndStartAboveTheOplog() {
        long first = clock.reserve(5);
        long second = clock.reserve(1);

        assertThat(second).isEqualTo(first + 5);
        assertThat(clock.latest().getValue()).isEqualTo(second);
        assertThat(first >>> 32).isGreaterThanOrEqualTo(System.currentTimeMillis() / 1000 - 1);

        // A restart after the wall clock went back: the oplog holds a time ahead of the wall clock.
        long future = (System.currentTimeMillis() / 1000 + 100_000) << 32 | 7;
        jdbc.sql("INSERT INTO oplog (ts, op, ns) VALUES (?, 'c', 'clock.$cmd')").param(future).update();
        assertThat(new ClusterClock(jdbc).reserve(1)).isEqualTo(future + 1);
    }
}
