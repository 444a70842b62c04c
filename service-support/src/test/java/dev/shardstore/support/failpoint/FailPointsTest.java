package dev.shardstore.support.failpoint;

import dev.shardstore.support.operation.Caller;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.support.command.CommandRegistry;
import java.io.File;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.bson.BsonDocument;
import org.junit.jupiter.api.Test;

class FailPointsTest {
    private final AtomicInteger crashes = new AtomicInteger();
    private final FailPoints failPoints = new FailPoints(crashes::incrementAndGet);
    private final CommandRegistry commands = new CommandRegistry(FailPointCommands.over(failPoints));

    @Test
    void aDisarmedPointDoesNothing() {
        failPoints.hit("step");
        assertThat(crashes).hasValue(0);
        assertThat(failPoints.timesEntered("step")).isZero();
    }

    @Test
    void timesLimitsHowOftenThePointFires() {
        run("{configureFailPoint: 'step', mode: {times: 2}, data: {action: 'crash'}}");
        failPoints.hit("step");
        failPoints.hit("step");
        failPoints.hit("step");
        assertThat(crashes).hasValue(2);
        assertThat(failPoints.timesEntered("step")).isEqualTo(2);
    }

    @Test
    void errorActionThrowsTheArmedCode() {
        run("{configureFailPoint: 'step', mode: 'alwaysOn', data: {action: 'error', errorCode: 6}}");
        assertThatThrownBy(() -> failPoints.hit("step")).isInstanceOf(CommandException.class)
                .satisfies(e -> assertThat(((CommandException) e).code()).isEqualTo(ErrorCode.HostUnreachable));
        BsonDocument off = run("{configureFailPoint: 'step', mode: 'off'}");
        assertThat(off.getInt64("count").getValue()).isEqualTo(1);
        failPoints.hit("step");
    }

    @Test
    void pauseHoldsTheThreadUntilTurnedOffAndWaitForFailPointSeesIt() throws Exception {
        run("{configureFailPoint: 'step', mode: 'alwaysOn', data: {action: 'pause'}}");
        CompletableFuture<Void> paused = CompletableFuture.runAsync(() -> failPoints.hit("step"), Thread.ofVirtual()::start);
        run("{waitForFailPoint: 'step', timesEntered: 1, maxTimeMS: 10000}");
        assertThat(paused).isNotDone();
        run("{configureFailPoint: 'step', mode: 'off'}");
        paused.get(10, TimeUnit.SECONDS);
    }

    @Test
    void aKillEndsThePauseOfTheOperationHeldThere() throws Exception {
        run("{configureFailPoint: 'step', mode: 'alwaysOn', data: {action: 'pause'}}");
        java.util.concurrent.atomic.AtomicBoolean killed = new java.util.concurrent.atomic.AtomicBoolean();
        CompletableFuture<Void> paused = CompletableFuture.runAsync(() -> failPoints.hit("step", () -> {
            if (killed.get()) {
                throw new CommandException(ErrorCode.Interrupted, "operation was interrupted");
            }
        }), Thread.ofVirtual()::start);
        run("{waitForFailPoint: 'step', timesEntered: 1, maxTimeMS: 10000}");
        assertThat(paused).isNotDone();
        killed.set(true);
        assertThatThrownBy(() -> paused.get(10, TimeUnit.SECONDS)).hasCauseInstanceOf(CommandException.class)
                .cause().hasMessage("operation was interrupted");
        assertThat(failPoints.timesEntered("step")).isEqualTo(1);
    }

    @Test
    void waitForFailPointTimesOutWithMaxTimeMsExpired() {
        assertThatThrownBy(() -> run("{waitForFailPoint: 'never', timesEntered: 1, maxTimeMS: 50}"))
                .isInstanceOf(CommandException.class)
                .satisfies(e -> assertThat(((CommandException) e).code()).isEqualTo(ErrorCode.MaxTimeMSExpired));
    }

    @Test
    void badArgumentsNameTheField() {
        assertThatThrownBy(() -> run("{configureFailPoint: 'step', mode: 'sometimes', data: {action: 'crash'}}"))
                .hasMessageContaining("'mode'");
        assertThatThrownBy(() -> run("{configureFailPoint: 'step', mode: 'alwaysOn', data: {action: 'explode'}}"))
                .hasMessageContaining("'data.action'");
        assertThatThrownBy(() -> run("{configureFailPoint: 'step', mode: 'alwaysOn', data: {action: 'error'}}"))
                .hasMessageContaining("'data.errorCode'");
        assertThatThrownBy(() -> commands.run(Caller.peer(), "test", BsonDocument.parse("{configureFailPoint: 'step', mode: 'off'}")))
                .hasMessageContaining("admin");
    }

    /** The real crash action ends the JVM at once with SIGKILL's status, running no shutdown hook. */
    @Test
    void crashHaltsTheProcessLikeKillMinus9() throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process child = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"), CrashingMain.class.getName())
                .redirectErrorStream(true).start();
        assertThat(child.waitFor(60, TimeUnit.SECONDS)).isTrue();
        String output = new String(child.getInputStream().readAllBytes());
        assertThat(child.exitValue()).as(output).isEqualTo(FailPoints.CRASH_EXIT_STATUS);
        assertThat(output).contains("before").doesNotContain("after").doesNotContain("shutdown hook");
    }

    private BsonDocument run(String command) {
        return commands.run(Caller.peer(), "admin", BsonDocument.parse(command));
    }

    /** A process that arms a crash, passes it, and would print "after" if it survived. */
    static final class CrashingMain {
        public static void main(String[] args) {
            Runtime.getRuntime().addShutdownHook(new Thread(() -> System.out.println("shutdown hook")));
            FailPoints points = new FailPoints();
            points.configure("step", FailPointAction.crash(), Long.MAX_VALUE);
            System.out.println("before");
            System.out.flush();
            points.hit("step");
            System.out.println("after");
            System.exit(0);
        }
    }
}
