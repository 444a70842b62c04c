package dev.shardstore.support.operation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shardstore.contracts.bson.ExtendedJson;
import dev.shardstore.contracts.clock.ReadConcern;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** {@link OperationContext} and its {@link Deadline}: on a ticker the test moves, never on the machine's clock. */
class OperationContextTest {
    private static final OperationContext.Decoration<String> NOTE = new OperationContext.Decoration<>("note", String.class);
    private static final OperationContext.Decoration<Integer> COUNT = new OperationContext.Decoration<>("count", Integer.class);

    private final AtomicLong ticker = new AtomicLong(1_000);

    @Test
    void aCommandsContextCarriesItsSessionReadConcernAndLimit() {
        OperationContext opCtx = OperationContext.forCommand(Caller.client("wire"), ExtendedJson.parse(
                "{insert: 'c', lsid: {id: {$binary: {base64: 'AAAAAAAAAAAAAAAAAAAAAA==', subType: '04'}}}, txnNumber: {$numberLong: '7'},"
                        + " readConcern: {level: 'majority'}}"), 250, ticker::get);
        assertThat(opCtx.session()).hasValueSatisfying(s -> assertThat(s.txnNumber()).isEqualTo(7L));
        assertThat(opCtx.readConcern().level()).isEqualTo(ReadConcern.Level.MAJORITY);
        assertThat(opCtx.caller()).isEqualTo(Caller.client("wire"));
        assertThat(opCtx.deadline().remainingNanos()).isEqualTo(TimeUnit.MILLISECONDS.toNanos(250));

        OperationContext plain = OperationContext.forCommand(Caller.peer(), ExtendedJson.parse("{find: 'c'}"), 0, ticker::get);
        assertThat(plain.session()).isEmpty();
        assertThat(plain.readConcern()).isEqualTo(ReadConcern.DEFAULT);
        assertThat(plain.deadline().limited()).isFalse();
    }

    @Test
    void theDeadlinePassesWhenTheTickerSaysSoAndANarrowerScopeNeverExtendsIt() {
        Deadline none = Deadline.none();
        none.check();
        assertThat(none.remainingNanos()).isEqualTo(Deadline.NONE);

        Deadline minute = Deadline.after(TimeUnit.SECONDS.toNanos(60), ticker::get);
        minute.check();
        assertThat(minute.within(TimeUnit.HOURS.toNanos(1)).remainingNanos()).as("the earlier limit holds")
                .isEqualTo(TimeUnit.SECONDS.toNanos(60));
        Deadline second = minute.within(TimeUnit.SECONDS.toNanos(1));
        assertThat(second.remainingNanos()).isEqualTo(TimeUnit.SECONDS.toNanos(1));
        assertThat(minute.within(Deadline.NONE)).isSameAs(minute);

        ticker.addAndGet(TimeUnit.SECONDS.toNanos(1) - 1);
        second.check(); // one nanosecond left
        ticker.incrementAndGet();
        assertThatThrownBy(second::check).isInstanceOfSatisfying(CommandException.class,
                e -> assertThat(e.code()).isEqualTo(ErrorCode.MaxTimeMSExpired));
        assertThat(second.remainingNanos()).isZero();
        minute.check(); // the wider limit is untouched by the narrower one's expiry
        assertThat(none.within(TimeUnit.HOURS.toNanos(1)).limited()).as("a limit within none is a limit").isTrue();
        assertThatThrownBy(() -> Deadline.after(-1, ticker::get)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aDecorationIsSeenOnlyByTheContextItWasAddedTo() throws Exception {
        OperationContext bare = OperationContext.internal("test");
        OperationContext noted = bare.with(NOTE, "a").with(COUNT, 1);
        assertThat(bare.get(NOTE)).isNull();
        assertThat(noted.get(NOTE)).isEqualTo("a");
        assertThat(noted.get(COUNT)).isEqualTo(1);
        OperationContext replaced = noted.with(NOTE, "b");
        assertThat(replaced.get(NOTE)).isEqualTo("b");
        assertThat(noted.get(NOTE)).as("the context it came from keeps its own").isEqualTo("a");
        OperationContext.Decoration<String> sameName = new OperationContext.Decoration<>("note", String.class);
        assertThat(noted.get(sameName)).as("keys compare by identity").isNull();
        // another thread sees what it is handed, not what its own thread happens to hold
        assertThat(CompletableFuture.supplyAsync(() -> noted.get(NOTE)).get(10, TimeUnit.SECONDS)).isEqualTo("a");
        OperationContext limited = noted.withDeadline(Deadline.after(10, ticker::get));
        assertThat(limited.get(NOTE)).isEqualTo("a");
        assertThat(limited.deadline().limited()).isTrue();
    }
}
