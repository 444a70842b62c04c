package dev.shardstore.transport.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** {@link SocketDeadlines} on real loopback sockets, blocked in real reads. */
class SocketDeadlinesTest {
    private static final Duration HANG_GUARD = Duration.ofSeconds(10);
    private final LoopbackPair pair = LoopbackPair.open();
    private final Socket client = pair.client();
    private final Socket accepted = pair.accepted();

    @AfterEach
    void close() throws IOException {
        pair.close();
    }

    @Test
    void aReadThatOverrunsItsDeadlineFailsAsATimeoutAndItsSocketIsClosed() {
        SocketDeadlines.Deadline deadline = SocketDeadlines.shared().watch(client);
        long start = System.nanoTime();
        assertTimeoutPreemptively(HANG_GUARD, () -> assertThatThrownBy(
                () -> deadline.within(Duration.ofMillis(100), "no byte within 100 ms", () -> client.getInputStream().read()))
                .isInstanceOf(SocketTimeoutException.class).hasMessage("no byte within 100 ms"));
        assertThat(System.nanoTime() - start).as("not before its deadline").isGreaterThanOrEqualTo(Duration.ofMillis(100).toNanos());
        assertThat(deadline.expired()).isTrue();
        assertThat(client.isClosed()).isTrue();
        assertThatThrownBy(() -> deadline.arm(Duration.ofSeconds(1))).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void anOperationInTimeLeavesTheSocketOpenForTheNext() throws Exception {
        SocketDeadlines.Deadline deadline = SocketDeadlines.shared().watch(client);
        OutputStream out = accepted.getOutputStream();
        InputStream in = client.getInputStream();
        for (int i = 0; i < 3; i++) {
            out.write(i);
            out.flush();
            int read = deadline.within(Duration.ofMillis(200), "late", in::read);
            assertThat(read).isEqualTo(i);
            await("past the limit, disarmed: nothing closes").during(Duration.ofMillis(250)).atMost(HANG_GUARD)
                    .until(() -> !client.isClosed());
        }
        await().during(Duration.ofMillis(300)).atMost(HANG_GUARD).until(() -> !client.isClosed());
        assertThat(client.isClosed()).isFalse();
        assertThat(deadline.expired()).isFalse();
        deadline.close();
    }

    @Test
    void whenTheDeadlineAndTheOperationFinishTogetherExactlyOneWins() throws Exception {
        // operations that take about as long as their limit: each ends either returned with its socket open, or as a
        // timeout with its socket closed, never returned on a socket closed behind its back
        for (int i = 0; i < 40; i++) {
            try (LoopbackPair other = LoopbackPair.open()) {
                Socket c = other.client();
                SocketDeadlines.Deadline deadline = SocketDeadlines.shared().watch(c);
                long limit = 1 + i % 5;
                long overrun = (i % 3 - 1) * 500_000L;
                try {
                    deadline.within(Duration.ofMillis(limit), "late", () -> {
                        sleepNanos(limit * 1_000_000 + overrun);
                        return null;
                    });
                    // long past the limit: a deadline that still fired would have closed the socket
                    await("case " + i + " returned in time: its socket stays open").during(Duration.ofMillis(60)).atMost(HANG_GUARD)
                            .until(() -> !c.isClosed());
                    assertThat(c.isClosed()).as("case %d returned in time: its socket stays open", i).isFalse();
                    assertThat(deadline.expired()).isFalse();
                } catch (SocketTimeoutException late) {
                    assertThat(c.isClosed()).as("case %d timed out: its socket was closed", i).isTrue();
                }
                deadline.close();
            }
        }
    }

    @Test
    void aShortDeadlineWakesTheSleepingThread() throws Exception {
        SocketDeadlines deadlines = new SocketDeadlines();
        try (LoopbackPair other = LoopbackPair.open()) {
            SocketDeadlines.Deadline idle = deadlines.watch(other.client());
            idle.arm(Duration.ofMinutes(10)); // the thread now sleeps for its horizon
            awaitLooks(deadlines);
            SocketDeadlines.Deadline reply = deadlines.watch(client);
            long start = System.nanoTime();
            assertTimeoutPreemptively(HANG_GUARD, () -> assertThatThrownBy(
                    () -> reply.within(Duration.ofMillis(100), "no reply within 100 ms", () -> client.getInputStream().read()))
                    .isInstanceOf(SocketTimeoutException.class));
            assertThat(System.nanoTime() - start).as("not before its deadline").isGreaterThanOrEqualTo(Duration.ofMillis(100).toNanos());
            assertThat(other.client().isClosed()).as("the long deadline has not passed").isFalse();
            assertThat(idle.disarm()).isTrue();
            idle.close();
        }
    }

    @Test
    void theThreadDoesNotLookWhileNoDeadlineIsDue() throws Exception {
        SocketDeadlines deadlines = new SocketDeadlines();
        SocketDeadlines.Deadline idle = deadlines.watch(client);
        awaitLooks(deadlines);
        long before = deadlines.looks();
        long start = System.nanoTime();
        for (int i = 0; i < 50; i++) { // each message re-arms the same limit, later than the one the thread sleeps for
            idle.arm(Duration.ofMinutes(10));
            assertThat(idle.disarm()).isTrue();
            awaitAsleep(deadlines); // had the arm woken the thread, it has looked and gone back to sleep by now
        }
        long horizons = (System.nanoTime() - start) / SocketDeadlines.HORIZON.toNanos();
        assertThat(deadlines.looks() - before).as("looks while 50 ten-minute deadlines were armed and disarmed")
                .isLessThanOrEqualTo(1 + horizons);
        idle.close();
    }

    /** Waits until the thread has looked once since it started and gone back to sleep. */
    private static void awaitLooks(SocketDeadlines deadlines) {
        await().atMost(HANG_GUARD).pollInterval(Duration.ofMillis(1)).until(() -> deadlines.looks() > 0);
        awaitAsleep(deadlines);
    }

    /** Waits until the thread of {@code deadlines} sleeps: it parks with {@code deadlines} as its blocker. */
    private static void awaitAsleep(SocketDeadlines deadlines) {
        await().atMost(HANG_GUARD).pollInterval(Duration.ofMillis(1)).until(() -> Thread.getAllStackTraces().keySet().stream()
                .anyMatch(thread -> LockSupport.getBlocker(thread) == deadlines));
    }

    private static void sleepNanos(long nanos) {
        long until = System.nanoTime() + Math.max(0, nanos);
        while (System.nanoTime() < until) {
            Thread.onSpinWait();
        }
    }
}
