package dev.shardstore.support.command;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shardstore.contracts.bson.ExtendedJson;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import org.junit.jupiter.api.Test;

/** {@link MaxTimeMS}: the one parser of the argument. */
class MaxTimeMSTest {
    @Test
    void maxTimeMSIsAWholeNumberOfMillisecondsInMongoDBsRange() {
        assertThat(MaxTimeMS.millisOf(ExtendedJson.parse("{find: 'c'}"))).isZero();
        assertThat(MaxTimeMS.millisOf(ExtendedJson.parse("{find: 'c', maxTimeMS: 250}"))).isEqualTo(250);
        assertThat(MaxTimeMS.millisOf(ExtendedJson.parse("{find: 'c', maxTimeMS: {$numberLong: '250'}}"))).isEqualTo(250);
        assertThat(MaxTimeMS.millisOf(ExtendedJson.parse("{find: 'c', maxTimeMS: 250.0}"))).isEqualTo(250);
        assertThat(MaxTimeMS.millisOf(ExtendedJson.parse("{getMore: {$numberLong: '1'}, collection: 'c', maxTimeMS: 0}"))).isZero();
        for (String bad : new String[] {"-1", "0.5", "'1'", "null", "2147483648"}) {
            assertThatThrownBy(() -> MaxTimeMS.millisOf(ExtendedJson.parse("{count: 'c', maxTimeMS: " + bad + "}")))
                    .isInstanceOfSatisfying(CommandException.class, e -> {
                        assertThat(e.code()).isEqualTo(ErrorCode.BadValue);
                        assertThat(e.getMessage()).contains("count.maxTimeMS");
                    });
        }
        assertThatThrownBy(() -> MaxTimeMS.millisOf(ExtendedJson.parse("{getMore: {$numberLong: '1'}, collection: 'c', maxTimeMS: 5}")))
                .isInstanceOfSatisfying(CommandException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.BadValue));
    }
}
