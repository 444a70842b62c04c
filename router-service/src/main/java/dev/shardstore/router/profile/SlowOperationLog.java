package dev.shardstore.router.profile;

import dev.shardstore.contracts.bson.ExtendedJson;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.support.security.Principal;
import java.time.Clock;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.DoubleSupplier;
import java.util.function.LongSupplier;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.stereotype.Component;

/**
 * The router's slow-operation log (MongoDB manual, "Database Profiler" and the {@code slowms} setting, which a mongos
 * keeps at profiling level 0): a client command that runs longer than {@code slowms} (100 ms by default) is logged as
 * a "Slow query" line and kept, the latest 200, for {@code /actuator/slowOperations}; {@code sampleRate} (0..1) is the
 * share of slow commands recorded. Both are set with {@code profile: 0} ({@link ProfileCommand}), for this router.
 *
 * <p>Durations come from the injected nanosecond ticker (a test's own counter in tests). Thread-safe.
 */
@Component
public class SlowOperationLog {
    /** MongoDB's default {@code slowms}. */
    public static final int DEFAULT_SLOW_MS = 100;
    /** How many slow operations are kept. */
    static final int KEPT = 200;
    /** How much of a command the log keeps, as MongoDB's log truncates a command past 1 KB. */
    private static final int MAX_COMMAND_CHARS = 1024;
    private static final Set<String> LEFT_OUT = Set.of("lsid", "txnNumber", "autocommit", "startTransaction", "pwd", "payload");
    private static final Logger log = LoggerFactory.getLogger(SlowOperationLog.class);

    private final LongSupplier ticker;
    private final DoubleSupplier random;
    private final Clock clock;
    private final Deque<SlowOperation> kept = new ArrayDeque<>();
    private volatile int slowMs = DEFAULT_SLOW_MS;
    private volatile double sampleRate = 1.0;

    /** The service's log: {@link System#nanoTime}, the system clock. */
    @Autowired
    public SlowOperationLog() {
        this(System::nanoTime, () -> ThreadLocalRandom.current().nextDouble(), Clock.systemUTC());
    }

    /**
     * @param ticker nanoseconds, for durations
     * @param random draws in [0, 1) against {@code sampleRate}
     * @param clock  stamps the entries
     */
    public SlowOperationLog(LongSupplier ticker, DoubleSupplier random, Clock clock) {
        this.ticker = ticker;
        this.random = random;
        this.clock = clock;
    }

    /** The ticker's value now: a command's start, to hand back to {@link #finished}. */
    public long start() {
        return ticker.getAsLong();
    }

    /**
     * Records {@code command} on {@code db}, begun at {@code startNanos}, when it ran longer than {@code slowms} (and
     * the sample draws it).
     *
     * @param error what it failed with; null when it succeeded
     */
    public void finished(long startNanos, String transport, Principal principal, String db, BsonDocument command,
            @Nullable CommandException error) {
        long nanos = ticker.getAsLong() - startNanos;
        if (nanos <= slowMs * 1_000_000L || command.isEmpty() || random.getAsDouble() >= sampleRate) {
            return; // longer than slowms, to the nanosecond: slowms 0 logs every command
        }
        long millis = nanos / 1_000_000;
        String name = command.getFirstKey();
        BsonValue target = command.get(name);
        String ns = db + "." + (target != null && target.isString() ? target.asString().getValue() : "$cmd");
        SlowOperation entry = new SlowOperation(clock.instant(), ns, name, loggable(command), millis,
                error == null ? 0 : error.code().code(), transport, principal.users().stream().map(Object::toString).toList());
        synchronized (kept) {
            kept.addLast(entry);
            if (kept.size() > KEPT) {
                kept.removeFirst();
            }
        }
        log.info("Slow query {}", ExtendedJson.toJson(entry.toBson()));
    }

    private static BsonDocument loggable(BsonDocument command) {
        BsonDocument shown = new BsonDocument();
        command.forEach((name, value) -> {
            if (!name.startsWith("$") && !LEFT_OUT.contains(name)) {
                shown.append(name, value);
            }
        });
        String json = shown.toJson();
        return json.length() <= MAX_COMMAND_CHARS ? shown
                : new BsonDocument("$truncated", new BsonString(json.substring(0, MAX_COMMAND_CHARS)));
    }

    /** The slow operations kept, oldest first. */
    public List<SlowOperation> recent() {
        synchronized (kept) {
            return new ArrayList<>(kept);
        }
    }

    /** The threshold in milliseconds. */
    public int slowMs() {
        return slowMs;
    }

    /** The share of slow operations recorded, 0..1. */
    public double sampleRate() {
        return sampleRate;
    }

    /**
     * Sets the threshold and the sample rate.
     *
     * @throws CommandException BadValue (2) for a negative {@code slowMs} or a rate outside 0..1
     */
    public void configure(int slowMs, double sampleRate) {
        if (slowMs < 0) {
            throw new CommandException(ErrorCode.BadValue, "slowms must be at least 0, was " + slowMs);
        }
        if (!(sampleRate >= 0 && sampleRate <= 1)) {
            throw new CommandException(ErrorCode.BadValue, "'sampleRate' must be between 0.0 and 1.0 inclusive, was " + sampleRate);
        }
        this.slowMs = slowMs;
        this.sampleRate = sampleRate;
    }
}
