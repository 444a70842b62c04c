package dev.shardstore.cluster.ycsb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** {@code --target}: single targets, the two shorthands, and comma-separated lists in the order given. */
class YcsbTargetTest {
    @Test
    void namesShorthandsAndListsGiveTheTargetsInOrder() {
        assertThat(YcsbTarget.parse("wire")).containsExactly(YcsbTarget.WIRE);
        assertThat(YcsbTarget.parse("both")).containsExactly(YcsbTarget.ROUTER, YcsbTarget.POSTGRES);
        assertThat(YcsbTarget.parse("all")).containsExactly(YcsbTarget.ROUTER, YcsbTarget.WIRE, YcsbTarget.POSTGRES);
        assertThat(YcsbTarget.parse("postgres,wire")).containsExactly(YcsbTarget.POSTGRES, YcsbTarget.WIRE);
    }

    @Test
    void anUnknownEmptyOrRepeatedTargetIsRefusedNamingTheOption() {
        for (String bad : new String[] {"mongo", "wire,", ",wire", "wire,both", ""}) {
            assertThatThrownBy(() -> YcsbTarget.parse(bad)).as(bad)
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--target").hasMessageContaining("was ");
        }
        assertThatThrownBy(() -> YcsbTarget.parse("wire,wire"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--target names a target twice: wire,wire");
    }
}
