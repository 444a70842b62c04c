package dev.shardstore.support.command;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shardstore.contracts.bson.ExtendedJson;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** {@link OperationDeadline}: maxTimeMS parsing, expiry, nesting and the thread-local's cleanup. */
class OperationDeadlineTest {
    @Test
    void maxTimeMSIsAWholeNumberOfMillisecondsInMongoDBsRange() {
        assertThat(OperationDeadline.millisOf(ExtendedJson.parse("{find: 'c'}"))).isZero();
        assertThat(OperationDeadline.millisOf(ExtendedJson.parse("{find: 'c', maxTimeMS: 250}"))).isEqualTo(250);
        assertThat(OperationDeadline.millisOf(ExtendedJson.parse("{find: 'c', maxTimeMS: {$numberLong: '250'}}"))).isEqualTo(250);
        assertThat(OperationDeadline.millisOf(ExtendedJson.parse("{find: 'c', maxTimeMS: 250.0}"))).isEqualTo(250);
        assertThat(OperationDeadline.millisOf(ExtendedJson.parse("{getMore: {$numberLong: '1'}, collection: 'c', maxTimeMS: 0}"))).isZero();
        for (String bad : new String[] {"-1", "0.5", "'1'", "null", "2147483648"}) {
            assertThatThrownBy(() -> OperationDeadline.millisOf(ExtendedJson.parse("{count: 'c', maxTimeMS: " + bad + "}")))
                    .isInstanceOfSatisfying(CommandException.class, e -> {
                        assertThat(e.code()).isEqualTo(ErrorCode.BadValue);
                        assertThat(e.getMessage()).contains("count.maxTimeMS");
                    });
        }
        assertThatThrownBy(() -> OperationDeadline.millisOf(ExtendedJson.parse("{getMore: {$numberLong: '1'}, collection: 'c', maxTimeMS: 5}")))
                .isInstanceOfSatisfying(CommandException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.BadValue));
    }

    @Test
    void checkThrowsOnlyOnceTheLimitPassedAndTheEarlierOfTwoLimitsHolds() throws Exception {
        OperationDeadline.check(); // no limit: free
        assertThat(OperationDeadline.remainingNanos()).isEqualTo(OperationDeadline.NONE);
        OperationDeadline.within(TimeUnit.SECONDS.toNanos(60), () -> {
            OperationDeadline.check();
            assertThat(OperationDeadline.remainingNanos()).isPositive();
            OperationDeadline.within(TimeUnit.HOURS.toNanos(1), () -> {
                assertThat(OperationDeadline.remainingNanos()).as("the outer, earlier limit holds").isLessThanOrEqualTo(TimeUnit.SECONDS.toNanos(60));
                return null;
            });
            assertThatThrownBy(() -> OperationDeadline.within(0, () -> {
                OperationDeadline.check();
                return null;
            })).isInstanceOfSatisfying(CommandException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.MaxTimeMSExpired));
            OperationDeadline.check(); // the outer limit is back after the inner one expired
            return null;
        });
        assertThat(OperationDeadline.remainingNanos()).as("cleared after the command").isEqualTo(OperationDeadline.NONE);
    }
}
