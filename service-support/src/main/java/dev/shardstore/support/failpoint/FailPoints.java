package dev.shardstore.support.failpoint;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Named points in a protocol where a test can make this process crash, pause or fail, as MongoDB's fail points
 * ({@code configureFailPoint}, {@code waitForFailPoint}) let its tests do. Code calls {@link #hit} at each step a fault
 * test names ("migration.afterConfigCommit"); nothing happens unless a test armed that name through the
 * {@code configureFailPoint} command, which exists only when {@code shardstore.test-commands.enabled} is true
 * (MongoDB's {@code enableTestCommands}).
 *
 * <p>The crash action is {@link Runtime#halt}: no shutdown hook, no finally block, no flush — what a {@code kill -9}
 * at that instruction would leave behind, at a step chosen exactly instead of by timing.
 *
 * <p>Thread-safe. A disarmed fail point costs one map lookup.
 */
public final class FailPoints {
    private static final Logger log = LoggerFactory.getLogger(FailPoints.class);
    /** The exit status of a crash, as a process killed by SIGKILL reports it. */
    static final int CRASH_EXIT_STATUS = 137;
    private static final Duration MAX_PAUSE = Duration.ofMinutes(10);
    /** How often a paused operation checks whether it was killed, ms. */
    private static final long PAUSE_CHECK_MILLIS = 20;

    private final Map<String, Armed> armed = new ConcurrentHashMap<>();
    private final Map<String, AtomicLong> entered = new ConcurrentHashMap<>();
    private final Runnable crash;

    /** Fail points whose crash action halts this JVM. */
    public FailPoints() {
        this(() -> Runtime.getRuntime().halt(CRASH_EXIT_STATUS));
    }

    /** @param crash what the crash action does (tests of this class replace the halt) */
    FailPoints(Runnable crash) {
        this.crash = crash;
    }

    /**
     * Passes the fail point {@code name}: does nothing when it is off; otherwise counts the entry and crashes the
     * process, blocks until the point is turned off (at most 10 minutes), or throws, as it was armed.
     *
     * @throws CommandException the armed error code, for the {@link FailPointAction.Kind#ERROR} action
     */
    public void hit(String name) {
        hit(name, () -> { });
    }

    /**
     * {@link #hit(String)} for an operation that can be killed while it pauses there: every {@value #PAUSE_CHECK_MILLIS}
     * ms of the pause it runs {@code checkForInterrupt}, whose exception ends the pause (MongoDB's fail points that pause
     * "while set and not canceled"), so that a test can {@code killOp} an operation it holds.
     *
     * @throws CommandException the armed error code, or what {@code checkForInterrupt} throws
     */
    public void hit(String name, Runnable checkForInterrupt) {
        Armed point = armed.get(name);
        if (point == null || !point.take()) {
            return;
        }
        entered.computeIfAbsent(name, n -> new AtomicLong()).incrementAndGet();
        FailPointAction action = point.action();
        switch (action.kind()) {
            case CRASH -> {
                log.warn("fail point {} crashes this process", name);
                System.err.println("fail point " + name + ": crashing (exit " + CRASH_EXIT_STATUS + ")");
                System.err.flush();
                crash.run();
            }
            case PAUSE -> pauseWhileArmed(name, point, checkForInterrupt);
            case ERROR -> {
                ErrorCode code = Objects.requireNonNull(action.errorCode(), "FailPointAction: the error action has a code");
                throw new CommandException(code, "fail point " + name + " is armed with error " + code);
            }
        }
    }

    /**
     * Arms {@code name} with {@code action} for the next {@code times} entries (any number when {@code times} is
     * empty), or disarms it when {@code action} is null. Pauses waiting at a point that is disarmed resume.
     *
     * @return how many times the point was entered before this call
     */
    public long configure(String name, @Nullable FailPointAction action, long times) {
        Armed previous = action == null ? armed.remove(name) : armed.put(name, new Armed(action, times));
        if (previous != null) {
            previous.release();
        }
        return timesEntered(name);
    }

    /** How many times {@code name} fired since this process started. */
    public long timesEntered(String name) {
        AtomicLong n = entered.get(name);
        return n == null ? 0 : n.get();
    }

    /**
     * Waits until {@code name} has fired at least {@code times} times in all.
     *
     * @return false when {@code max} passed first
     */
    public boolean awaitEntered(String name, long times, Duration max) throws InterruptedException {
        long deadline = System.nanoTime() + max.toNanos();
        while (timesEntered(name) < times) {
            if (System.nanoTime() > deadline) {
                return false;
            }
            TimeUnit.MILLISECONDS.sleep(10);
        }
        return true;
    }

    private void pauseWhileArmed(String name, Armed point, Runnable checkForInterrupt) {
        log.info("fail point {} pauses a thread until it is turned off", name);
        try {
            for (long waited = 0; !point.released.await(PAUSE_CHECK_MILLIS, TimeUnit.MILLISECONDS); waited += PAUSE_CHECK_MILLIS) {
                if (waited >= MAX_PAUSE.toMillis()) {
                    log.warn("fail point {} paused for {}; resuming", name, MAX_PAUSE);
                    return;
                }
                checkForInterrupt.run();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** One arming: the action and how many entries it still applies to ({@code Long.MAX_VALUE}: unlimited). */
    private static final class Armed {
        private final FailPointAction action;
        private final AtomicLong remaining;
        private final CountDownLatch released = new CountDownLatch(1);

        Armed(FailPointAction action, long times) {
            this.action = action;
            this.remaining = new AtomicLong(times);
        }

        FailPointAction action() {
            return action;
        }

        boolean take() {
            return remaining.getAndUpdate(n -> n == Long.MAX_VALUE ? n : Math.max(0, n - 1)) > 0;
        }

        void release() {
            released.countDown();
        }
    }
}
