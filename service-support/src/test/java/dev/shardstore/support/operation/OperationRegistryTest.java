package dev.shardstore.support.operation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shardstore.contracts.bson.ExtendedJson;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.support.command.CommandHandler;
import dev.shardstore.support.command.CommandRegistry;
import dev.shardstore.support.security.CommandAuthorizer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonString;
import org.junit.jupiter.api.Test;

/**
 * The registry of running commands through the command registry that registers them: a command is listed exactly
 * while its handler runs (getMore too, and when the handler throws), opids are unique, large commands are listed
 * truncated as MongoDB lists them, and a killed operation's next check for interrupt is Interrupted (11601) while an
 * expired one is still MaxTimeMSExpired (50). Time is a counter the test moves.
 */
class OperationRegistryTest {
    private final AtomicLong ticks = new AtomicLong(1_000);
    private final OperationRegistry operations = new OperationRegistry(ticks::get);
    /** What each handler saw of the registry while it ran. */
    private final List<List<RunningOperation>> seen = new ArrayList<>();
    private final CommandRegistry commands = new CommandRegistry(List.of(
            CommandHandler.of("ping", (opCtx, db, command) -> {
                seen.add(operations.running());
                return new BsonDocument("ok", new BsonInt32(1));
            }),
            CommandHandler.of("getMore", (opCtx, db, command) -> {
                seen.add(operations.running());
                return new BsonDocument("ok", new BsonInt32(1));
            }),
            CommandHandler.of("fail", (opCtx, db, command) -> {
                seen.add(operations.running());
                throw new CommandException(ErrorCode.BadValue, "failing");
            }),
            CommandHandler.of("nest", (opCtx, db, command) -> {
                seen.add(operations.running());
                return commands().run(opCtx, db, new BsonDocument("ping", new BsonInt32(1)));
            }),
            CommandHandler.of("spin", (opCtx, db, command) -> {
                // what a long scan does: move on, and check between pages
                for (int page = 0; ; page++) {
                    ticks.addAndGet(1_000_000);
                    if (page == 3) {
                        operations.kill(opCtx.operation().orElseThrow().opid());
                    }
                    opCtx.checkForInterrupt();
                }
            })), CommandAuthorizer.DISABLED, operations);

    private CommandRegistry commands() {
        return commands;
    }

    @Test
    void aCommandIsListedWhileItsHandlerRuns() {
        commands.run(Caller.client("rest"), "test", ExtendedJson.parse("{ping: 1, comment: 'hi'}"));
        assertThat(seen).hasSize(1);
        RunningOperation op = seen.getFirst().getFirst();
        assertThat(op.commandName()).isEqualTo("ping");
        assertThat(op.db()).isEqualTo("test");
        assertThat(op.command()).isEqualTo(ExtendedJson.parse("{ping: 1, comment: 'hi'}"));
        assertThat(op.caller().name()).isEqualTo("rest");
        assertThat(op.startTicks()).isEqualTo(1_000);
        assertThat(operations.running()).isEmpty();
    }

    @Test
    void aDatabaseNameIsListedAsSentForTheCommandToCheck() {
        commands.run(Caller.client("rest"), " ", new BsonDocument("ping", new BsonInt32(1)));
        assertThat(seen.getFirst().getFirst().db()).isEqualTo(" ");
    }

    @Test
    void getMoreAndFailingCommandsAreRegisteredAndDeregisteredToo() {
        commands.run(Caller.peer(), "test", ExtendedJson.parse("{getMore: {$numberLong: '5'}, collection: 'c'}"));
        assertThatThrownBy(() -> commands.run(Caller.peer(), "test", new BsonDocument("fail", new BsonInt32(1))))
                .isInstanceOf(CommandException.class);
        assertThat(seen).extracting(ops -> ops.getFirst().commandName()).containsExactly("getMore", "fail");
        BsonDocument getMore = operations.describe(seen.getFirst().getFirst());
        assertThat(getMore.getString("op").getValue()).isEqualTo("getmore");
        assertThat(getMore.getString("ns").getValue()).isEqualTo("test.c");
        assertThat(operations.running()).isEmpty();
    }

    @Test
    void opidsAreUniqueAndANestedCommandIsAnOperationOfItsOwn() {
        commands.run(Caller.client("wire"), "test", new BsonDocument("nest", new BsonInt32(1)));
        commands.run(Caller.client("wire"), "test", new BsonDocument("ping", new BsonInt32(1)));
        List<RunningOperation> duringPing = seen.get(1);
        assertThat(duringPing).extracting(RunningOperation::commandName).containsExactly("nest", "ping");
        long nestOpid = duringPing.get(0).opid();
        long nestedPingOpid = duringPing.get(1).opid();
        long laterPingOpid = seen.get(2).getFirst().opid();
        assertThat(List.of(nestOpid, nestedPingOpid, laterPingOpid)).doesNotHaveDuplicates();
        duringPing.get(0).kill();
        assertThat(duringPing.get(1).killed()).as("a nested command stops with the one it runs for").isTrue();
    }

    @Test
    void describesAnOperationInMongoDBsShape() {
        RunningOperation op = operations.register(Caller.client("rest"), "geo", ExtendedJson.parse("{find: 'cities', filter: {}}"), null);
        ticks.addAndGet(2_500_000_000L);
        assertThat(operations.describe(op)).isEqualTo(new BsonDocument("type", new BsonString("op"))
                .append("opid", new BsonInt64(op.opid()))
                .append("active", org.bson.BsonBoolean.TRUE)
                .append("op", new BsonString("command"))
                .append("ns", new BsonString("geo.cities"))
                .append("command", ExtendedJson.parse("{find: 'cities', filter: {}}"))
                .append("secs_running", new BsonInt64(2))
                .append("microsecs_running", new BsonInt64(2_500_000))
                .append("desc", new BsonString("rest")));
        assertThat(operations.kill(op.opid())).isTrue();
        assertThat(operations.describe(op).getBoolean("killPending").getValue()).isTrue();
        operations.deregister(op);
        assertThat(operations.kill(op.opid())).as("an operation that ended is not found").isFalse();
    }

    @Test
    void aCommandOverOneKilobyteIsListedTruncatedWithItsComment() {
        BsonDocument big = new BsonDocument("insert", new BsonString("c"))
                .append("documents", new org.bson.BsonArray(List.of(new BsonDocument("s", new BsonString("x".repeat(2_000))))))
                .append("comment", new BsonString("find me"));
        RunningOperation op = operations.register(Caller.peer(), "test", big, null);
        BsonDocument listed = op.command();
        assertThat(listed.keySet()).containsExactly("$truncated", "comment");
        assertThat(listed.getString("comment").getValue()).isEqualTo("find me");
        assertThat(listed.getString("$truncated").getValue()).startsWith("{\"insert\": \"c\"").endsWith(" ...")
                .hasSize(RunningOperation.MAX_COMMAND_BYTES + 4);
        BsonDocument small = new BsonDocument("insert", new BsonString("c"));
        assertThat(operations.register(Caller.peer(), "test", small, null).command()).isEqualTo(small);
    }

    @Test
    void aKilledOperationsCheckForInterruptIsInterrupted() {
        assertThatThrownBy(() -> commands.run(Caller.client("rest"), "test", new BsonDocument("spin", new BsonInt32(1))))
                .isInstanceOfSatisfying(CommandException.class, e -> {
                    assertThat(e.code()).isEqualTo(ErrorCode.Interrupted);
                    assertThat(e.getMessage()).isEqualTo("operation was interrupted");
                });
        assertThat(operations.running()).isEmpty();
    }

    @Test
    void anExpiredOperationIsStillMaxTimeMSExpired() {
        assertThatThrownBy(() -> commands.run(Caller.client("rest"), "test", ExtendedJson.parse("{spin: 1, maxTimeMS: 2}")))
                .isInstanceOfSatisfying(CommandException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.MaxTimeMSExpired));
    }

    @Test
    void theProcesssOwnWorkIsNeverInterruptedByAKill() {
        OperationContext internal = OperationContext.internal("rangeDeleter");
        assertThat(internal.operation()).isEmpty();
        internal.checkForInterrupt(); // nothing registered, no limit
    }
}
