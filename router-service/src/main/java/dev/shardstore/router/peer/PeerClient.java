package dev.shardstore.router.peer;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.error.ErrorReplies;
import dev.shardstore.transport.http.CommandClient;
import io.github.resilience4j.bulkhead.Bulkhead;
import io.github.resilience4j.bulkhead.BulkheadConfig;
import io.github.resilience4j.bulkhead.BulkheadRegistry;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreakerConfig;
import io.github.resilience4j.circuitbreaker.CircuitBreakerRegistry;
import io.github.resilience4j.micrometer.tagged.TaggedBulkheadMetrics;
import io.github.resilience4j.micrometer.tagged.TaggedCircuitBreakerMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import java.net.ConnectException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.bson.BsonDocument;
import org.springframework.stereotype.Component;

/**
 * The router's client for its peers (every shard and the config service): the pooled {@link CommandClient}
 * behind a Resilience4j circuit breaker and a semaphore bulkhead per peer ({@link PeerGuardProperties}).
 *
 * <ul>
 *   <li><b>Circuit breaker.</b> A transport failure (HostUnreachable, NetworkTimeout) is a failed call, and a call slower
 *       than {@code slow-call-threshold} a slow one — except a refused connection, which is not counted at all: it fails
 *       at once without holding a thread, and a peer that restarts (a shard after a crash) must be served as soon as it
 *       listens, not after the open state; every other outcome, error replies included ({@code ok: 0},
 *       StaleConfig, write errors), is a success, since the peer answered. When the failure or slow-call rate over the
 *       last calls passes its threshold the breaker opens: calls to that peer fail at once with HostUnreachable (6)
 *       naming it, without touching the network, for {@code open-duration}; then a few probes go through and close it
 *       again if the peer answers.</li>
 *   <li><b>Bulkhead.</b> At most {@code max-concurrent-calls} calls in flight to one peer; a call that finds no place
 *       within {@code max-wait} gets NetworkInterfaceExceededTimeLimit (202), as a mongos whose connection pool to a
 *       host is exhausted. One slow shard therefore cannot hold every router thread while the others stay usable.</li>
 *   <li><b>Time limit.</b> The transport's own request timeout bounds how long a reply may stay silent (NetworkTimeout,
 *       a failed call), and the slow-call rule cuts off a peer that keeps answering late. There is no Resilience4j
 *       {@code TimeLimiter}: it would move every call onto another thread and back, the hand-off that the point-read
 *       profile (docs/benchmarks.md) showed to cost most of the router's CPU with the JDK client.</li>
 * </ul>
 *
 * <p>Nothing is retried here (a command may not be idempotent). States and counts are on {@code /actuator/peers} and in
 * the {@code resilience4j_circuitbreaker_*} and {@code resilience4j_bulkhead_*} meters tagged by peer name.
 */
@Component
public class PeerClient {
    private final CommandClient transport;
    private final CircuitBreakerRegistry breakers;
    private final BulkheadRegistry bulkheads;
    private final PeerGuardProperties properties;
    private final Map<String, String> lastFailures = new ConcurrentHashMap<>();

    public PeerClient(CommandClient transport, PeerGuardProperties properties, MeterRegistry meters) {
        this.transport = transport;
        this.properties = properties;
        this.breakers = CircuitBreakerRegistry.of(CircuitBreakerConfig.custom()
                .slidingWindowType(CircuitBreakerConfig.SlidingWindowType.COUNT_BASED)
                .slidingWindowSize(properties.slidingWindowSize())
                .minimumNumberOfCalls(properties.minimumCalls())
                .failureRateThreshold(properties.failureRateThreshold())
                .slowCallDurationThreshold(properties.slowCallThreshold())
                .slowCallRateThreshold(properties.slowCallRateThreshold())
                .waitDurationInOpenState(properties.openDuration())
                .permittedNumberOfCallsInHalfOpenState(properties.halfOpenCalls())
                .build());
        this.bulkheads = BulkheadRegistry.of(BulkheadConfig.custom()
                .maxConcurrentCalls(properties.maxConcurrentCalls())
                .maxWaitDuration(properties.maxWait())
                .build());
        TaggedCircuitBreakerMetrics.ofCircuitBreakerRegistry(breakers).bindTo(meters);
        TaggedBulkheadMetrics.ofBulkheadRegistry(bulkheads).bindTo(meters);
    }

    /**
     * {@link CommandClient#run} through {@code peerName}'s bulkhead and circuit breaker.
     *
     * @param peerName the shard id, or "config"; names the peer's breaker and bulkhead and the errors
     * @return the peer's reply, which may be an error reply
     * @throws CommandException HostUnreachable when the peer's breaker is open or the peer did not answer;
     *                          NetworkTimeout when it stayed silent; NetworkInterfaceExceededTimeLimit when its bulkhead
     *                          stayed full for {@code max-wait}
     */
    public BsonDocument run(String peerName, String baseUrl, String db, BsonDocument command) {
        return run(peerName, baseUrl, db, command, false);
    }

    /**
     * {@link #run} for a reply the router passes on to its client: its cursor batches stay raw documents
     * ({@link CommandClient#runForwarding}); the same bulkhead, breaker and errors.
     */
    public BsonDocument runForwarding(String peerName, String baseUrl, String db, BsonDocument command) {
        return run(peerName, baseUrl, db, command, true);
    }

    private BsonDocument run(String peerName, String baseUrl, String db, BsonDocument command, boolean forwarding) {
        Bulkhead bulkhead = bulkheads.bulkhead(peerName);
        if (!bulkhead.tryAcquirePermission()) {
            throw new CommandException(ErrorCode.NetworkInterfaceExceededTimeLimit, peerName + " at " + baseUrl + " already has "
                    + properties.maxConcurrentCalls() + " requests in flight from this router and none finished within "
                    + properties.maxWait().toMillis() + " ms; " + command.getFirstKey() + " was not sent");
        }
        try {
            return throughBreaker(breakers.circuitBreaker(peerName), peerName, baseUrl, db, command, forwarding);
        } finally {
            bulkhead.onComplete();
        }
    }

    /** Like {@link #run} but turns an error reply into a thrown {@link CommandException}. */
    public BsonDocument runChecked(String peerName, String baseUrl, String db, BsonDocument command) {
        return ErrorReplies.requireOk(run(peerName, baseUrl, db, command));
    }

    private BsonDocument throughBreaker(CircuitBreaker breaker, String peerName, String baseUrl, String db, BsonDocument command,
            boolean forwarding) {
        if (!breaker.tryAcquirePermission()) {
            CircuitBreaker.Metrics metrics = breaker.getMetrics();
            throw new CommandException(ErrorCode.HostUnreachable, peerName + " at " + baseUrl + " is failing: the router's circuit breaker"
                    + " for it is " + breaker.getState() + " (" + Math.round(metrics.getFailureRate()) + "% of its last "
                    + metrics.getNumberOfBufferedCalls() + " calls failed, " + Math.round(metrics.getSlowCallRate()) + "% were slow; last failure: "
                    + lastFailures.getOrDefault(peerName, "none") + "), so " + command.getFirstKey() + " was not sent; it is probed again "
                    + properties.openDuration().toSeconds() + " s after it opened");
        }
        long start = System.nanoTime();
        try {
            BsonDocument reply = forwarding ? transport.runForwarding(peerName, baseUrl, db, command) : transport.run(peerName, baseUrl, db, command);
            breaker.onSuccess(System.nanoTime() - start, TimeUnit.NANOSECONDS);
            return reply;
        } catch (CommandException e) {
            if (e.getCause() instanceof ConnectException) {
                // refused: nothing listens, the call cost no thread and no wait; a restarted peer is used as soon as it
                // listens again instead of after the open state
                lastFailures.put(peerName, e.getMessage());
                breaker.releasePermission();
            } else if (e.code() == ErrorCode.HostUnreachable || e.code() == ErrorCode.NetworkTimeout) {
                lastFailures.put(peerName, e.getMessage());
                breaker.onError(System.nanoTime() - start, TimeUnit.NANOSECONDS, e);
            } else {
                breaker.onSuccess(System.nanoTime() - start, TimeUnit.NANOSECONDS);
            }
            throw e;
        } catch (RuntimeException | Error e) {
            breaker.onError(System.nanoTime() - start, TimeUnit.NANOSECONDS, e);
            throw e;
        }
    }

    /**
     * Every peer called so far, by name: {@code {circuitBreaker: {state, failureRate, slowCallRate, bufferedCalls,
     * failedCalls, slowCalls, notPermittedCalls}, bulkhead: {availableConcurrentCalls, maxConcurrentCalls}, lastFailure}}
     * (rates in percent, -1 while the window holds fewer than {@code minimum-calls}).
     */
    public Map<String, Map<String, Object>> states() {
        Map<String, Map<String, Object>> peers = new TreeMap<>();
        for (CircuitBreaker breaker : breakers.getAllCircuitBreakers()) {
            CircuitBreaker.Metrics m = breaker.getMetrics();
            Map<String, Object> state = new LinkedHashMap<>();
            state.put("circuitBreaker", Map.of("state", breaker.getState().name(), "failureRate", m.getFailureRate(),
                    "slowCallRate", m.getSlowCallRate(), "bufferedCalls", m.getNumberOfBufferedCalls(), "failedCalls", m.getNumberOfFailedCalls(),
                    "slowCalls", m.getNumberOfSlowCalls(), "notPermittedCalls", m.getNumberOfNotPermittedCalls()));
            bulkheads.find(breaker.getName()).ifPresent(b -> state.put("bulkhead", Map.of(
                    "availableConcurrentCalls", b.getMetrics().getAvailableConcurrentCalls(),
                    "maxConcurrentCalls", b.getMetrics().getMaxAllowedConcurrentCalls())));
            state.put("lastFailure", lastFailures.getOrDefault(breaker.getName(), "none"));
            peers.put(breaker.getName(), state);
        }
        return peers;
    }
}
