package dev.shardstore.router.profile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.support.operation.OperationContext;
import dev.shardstore.support.security.Principal;
import dev.shardstore.support.security.RoleName;
import dev.shardstore.support.security.UserName;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.bson.BsonDocument;
import org.junit.jupiter.api.Test;

/**
 * The slow-operation log on a test's own ticker: the {@code slowms} threshold, the sample rate, what an entry keeps,
 * the bound, and the {@code profile} command that sets them as a mongos answers it.
 */
class SlowOperationLogTest {
    private final AtomicLong nanos = new AtomicLong();
    private final double[] draw = {0.5};
    private final SlowOperationLog log = new SlowOperationLog(nanos::get, () -> draw[0],
            Clock.fixed(Instant.parse("2026-12-03T07:00:00Z"), ZoneOffset.UTC));
    private final Principal app = new Principal(List.of(new UserName("app", "shop")), List.of(new RoleName("readWrite", "shop")),
            List.of(), Principal.Kind.USERS, 1);

    private void run(long millis, String json, CommandException error) {
        long start = log.start();
        nanos.addAndGet(millis * 1_000_000);
        log.finished(start, "wire", app, "shop", BsonDocument.parse(json), error);
    }

    @Test
    void commandsLongerThanSlowmsAreKeptWithWhatTheyAskedAndTheirOutcome() {
        run(100, "{find: 'orders'}", null);
        run(101, "{find: 'orders', filter: {status: 'A'}, lsid: {id: 1}, $clusterTime: {}}", null);
        run(2_500, "{aggregate: 1, pipeline: []}", new CommandException(ErrorCode.MaxTimeMSExpired, "too long"));

        assertThat(log.recent()).hasSize(2);
        SlowOperation find = log.recent().getFirst();
        assertThat(find.ns()).isEqualTo("shop.orders");
        assertThat(find.durationMillis()).isEqualTo(101);
        assertThat(find.command()).isEqualTo(BsonDocument.parse("{find: 'orders', filter: {status: 'A'}}"));
        assertThat(find.users()).containsExactly("app@shop");
        assertThat(find.toBson().containsKey("errCode")).isFalse();
        SlowOperation aggregate = log.recent().get(1);
        assertThat(aggregate.ns()).isEqualTo("shop.$cmd");
        assertThat(aggregate.errCode()).isEqualTo(50);
    }

    @Test
    void aLongCommandIsTruncatedTheSampleRateDrawsAndOnlyTheLatestAreKept() {
        run(200, "{insert: 'orders', documents: [{pad: '" + "x".repeat(5_000) + "'}]}", null);
        assertThat(log.recent().getFirst().command().getString("$truncated").getValue()).hasSize(1024);

        log.configure(10, 0.25);
        draw[0] = 0.3;
        run(50, "{find: 'orders'}", null);
        assertThat(log.recent()).as("drawn out by the sample").hasSize(1);
        draw[0] = 0.2;
        for (int i = 0; i < SlowOperationLog.KEPT + 5; i++) {
            run(11, "{find: 'c" + i + "'}", null);
        }
        assertThat(log.recent()).hasSize(SlowOperationLog.KEPT);
        assertThat(log.recent().getLast().ns()).isEqualTo("shop.c" + (SlowOperationLog.KEPT + 4));
    }

    @Test
    void theProfileCommandSetsLevelZerosSlowmsAndRefusesWhatARouterCannotDo() {
        ProfileCommand profile = new ProfileCommand(log);
        OperationContext opCtx = OperationContext.internal("test");
        BsonDocument before = profile.run(opCtx, "shop", BsonDocument.parse("{profile: 0, slowms: 20, sampleRate: 0.5}"));
        assertThat(before).isEqualTo(BsonDocument.parse("{was: 0, slowms: 100, sampleRate: 1.0, ok: 1.0}"));
        assertThat(profile.run(opCtx, "shop", BsonDocument.parse("{profile: -1}")))
                .isEqualTo(BsonDocument.parse("{was: 0, slowms: 20, sampleRate: 0.5, ok: 1.0}"));
        assertThat(log.slowMs()).isEqualTo(20);

        assertThatThrownBy(() -> profile.run(opCtx, "shop", BsonDocument.parse("{profile: 2}")))
                .isInstanceOfSatisfying(CommandException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.BadValue))
                .hasMessageContaining("not permitted on a router");
        assertThatThrownBy(() -> profile.run(opCtx, "shop", BsonDocument.parse("{profile: 0, filter: {op: 'query'}}")))
                .isInstanceOfSatisfying(CommandException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.NotImplemented))
                .hasMessageContaining("filter");
        assertThatThrownBy(() -> profile.run(opCtx, "shop", BsonDocument.parse("{profile: 0, sampleRate: 2}")))
                .isInstanceOfSatisfying(CommandException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.BadValue));
        assertThatThrownBy(() -> profile.run(opCtx, "shop", BsonDocument.parse("{profile: 0, slowms: 'fast'}")))
                .isInstanceOfSatisfying(CommandException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.TypeMismatch));
        assertThat(log.slowMs()).as("a refused command changed nothing").isEqualTo(20);
    }
}
