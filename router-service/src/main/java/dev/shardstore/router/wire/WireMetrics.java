package dev.shardstore.router.wire;

import dev.shardstore.transport.wire.OpCode;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * The wire listener's meters (Actuator's {@code /actuator/metrics} and {@code /actuator/prometheus}); commands are
 * timed by {@link dev.shardstore.router.command.ClientCommands} as {@code shardstore.router.command} with
 * {@code transport=wire}.
 * <ul>
 *   <li>{@code shardstore.router.wire.connections} (gauge): connections open now;</li>
 *   <li>{@code shardstore.router.wire.connections.accepted} (counter);</li>
 *   <li>{@code shardstore.router.wire.connections.rejected} (counter), {@code reason}: {@code limit} (the global
 *       limit) or {@code client-limit} (the per-client-address one);</li>
 *   <li>{@code shardstore.router.wire.connections.closed} (counter), {@code reason}: {@code client} (it hung up),
 *       {@code idle}, {@code malformed}, {@code stalled} (did not read its replies), {@code closed} (shutdown),
 *       {@code io}, {@code error}, {@code tls-required} (a plain client under {@code requireTLS}), {@code tls-handshake}
 *       (a TLS handshake that failed: no or a bad client certificate, a client that does not trust the listener's);</li>
 *   <li>{@code shardstore.router.wire.messages} (timer), {@code opcode} ({@code OP_MSG}, {@code OP_QUERY}) and
 *       {@code compressor} ({@code none}, {@code snappy}, {@code zlib}, {@code zstd}): each message from read to
 *       reply.</li>
 * </ul>
 */
final class WireMetrics {
    private final MeterRegistry meters;
    private final AtomicInteger open = new AtomicInteger();
    private final Counter accepted;

    WireMetrics(MeterRegistry meters) {
        this.meters = meters;
        Gauge.builder("shardstore.router.wire.connections", open, AtomicInteger::get)
                .description("wire protocol connections open now").register(meters);
        this.accepted = meters.counter("shardstore.router.wire.connections.accepted");
    }

    /** Connections open now. */
    int open() {
        return open.get();
    }

    void opened() {
        open.incrementAndGet();
        accepted.increment();
    }

    void rejected(String reason) {
        meters.counter("shardstore.router.wire.connections.rejected", "reason", reason).increment();
    }

    void closed(String reason) {
        open.decrementAndGet();
        meters.counter("shardstore.router.wire.connections.closed", "reason", reason).increment();
    }

    Timer.Sample startMessage() {
        return Timer.start(meters);
    }

    void stopMessage(Timer.Sample sample, OpCode opCode, @Nullable Compressor compressor) {
        sample.stop(meters.timer("shardstore.router.wire.messages", "opcode", opCode.name(),
                "compressor", compressor == null ? "none" : compressor.wireName()));
    }
}
