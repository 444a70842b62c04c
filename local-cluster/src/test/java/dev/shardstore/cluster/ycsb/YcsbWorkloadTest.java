package dev.shardstore.cluster.ycsb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** {@code --workload}: names in any case, the unknown refused, and which mixes insert (those repeat keys on a rerun). */
class YcsbWorkloadTest {
    @Test
    void namesParseInAnyCaseAndOthersAreRefusedNamingTheOption() {
        assertThat(YcsbWorkload.parse("e")).isEqualTo(YcsbWorkload.E);
        assertThat(YcsbWorkload.parse("A")).isEqualTo(YcsbWorkload.A);
        assertThatThrownBy(() -> YcsbWorkload.parse("d")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("--workload").hasMessageContaining("was d");
    }

    @Test
    void onlyWorkloadEInserts() {
        for (YcsbWorkload w : YcsbWorkload.values()) {
            assertThat(w.inserts()).as(w.name()).isEqualTo(w == YcsbWorkload.E);
            assertThat(w.inserts()).as(w.name()).isEqualTo(!w.properties().get("insertproportion").equals("0"));
        }
    }
}
