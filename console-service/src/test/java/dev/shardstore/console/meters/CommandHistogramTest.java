package dev.shardstore.console.meters;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

/** {@link CommandHistogram}: Prometheus's text read per {@code le} over tag sets, and histogram_quantile's estimate. */
class CommandHistogramTest {
    @Test
    void bucketsAreSummedOverTagSetsAndTheQuantileIsLinearInItsBucket() {
        CommandHistogram h = CommandHistogram.parse("""
                process_start_time_seconds 1.7649E9
                shardstore_shard_command_seconds_bucket{command="find",outcome="ok",le="0.002"} 40.0
                shardstore_shard_command_seconds_bucket{command="find",outcome="ok",le="+Inf"} 50.0
                shardstore_shard_command_seconds_bucket{command="insert",outcome="Unauthorized",le="0.002"} 0.0
                shardstore_shard_command_seconds_bucket{command="insert",outcome="Unauthorized",le="+Inf"} 50.0
                shardstore_shard_command_seconds_count{command="find",outcome="ok"} 50.0
                """);
        assertThat(h.count()).isEqualTo(100);
        assertThat(h.startSeconds()).isEqualTo(1.7649E9);
        // rank 20 of the first bucket's 40: half of its width
        assertThat(h.quantile(0.2)).isCloseTo(0.001, within(1e-12));
        // rank 99 lies in +Inf: the highest finite bound, as histogram_quantile answers
        assertThat(h.quantile(0.99)).isEqualTo(0.002);
        assertThat(CommandHistogram.parse("process_start_time_seconds 1\n").count()).as("no command yet").isZero();
        assertThat(CommandHistogram.parse("process_start_time_seconds 1\n").quantile(0.99)).isNaN();
    }

    @Test
    void aMalformedCountIsRefused() {
        assertThatThrownBy(() -> CommandHistogram.parse("shardstore_shard_command_seconds_bucket{le=\"1\"} many"))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
