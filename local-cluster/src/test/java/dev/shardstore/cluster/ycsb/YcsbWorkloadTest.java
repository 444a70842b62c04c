package dev.shardstore.cluster.ycsb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** {@code --workload}: names in any case, the unknown refused. */
class YcsbWorkloadTest {
    @Test
    void namesParseInAnyCaseAndOthersAreRefusedNamingTheOption() {
        assertThat(YcsbWorkload.parse("e")).isEqualTo(YcsbWorkload.E);
        assertThat(YcsbWorkload.parse("A")).isEqualTo(YcsbWorkload.A);
        assertThatThrownBy(() -> YcsbWorkload.parse("d")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("--workload").hasMessageContaining("was d");
    }
}
