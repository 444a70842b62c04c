package dev.shardstore.transport.membership;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.Base64;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;

/**
 * The proof of membership an HTTP request to {@code /internal} carries in
 * {@link dev.shardstore.contracts.http.InternalApi#MEMBER_TOKEN_HEADER}: {@code 1.<epoch seconds>.<base64url HMAC>},
 * the HMAC-SHA256 under the {@link ClusterKey} of the issuing second. A token is accepted for {@link #VALIDITY} either
 * side of the receiver's clock (clock skew between hosts), and the sender issues a new one every {@link #REISSUE_AFTER},
 * so a keep-alive connection's requests cost one string compare each, not an HMAC: the receiver remembers the last
 * token it verified. The key never travels. A token seen on the network can be replayed within its validity, as a
 * bearer token can; TLS on the internal endpoints is what keeps it unseen. Thread-safe.
 */
public final class MemberToken {
    /** How far a token's second may lie from the receiver's clock, either way. */
    public static final Duration VALIDITY = Duration.ofMinutes(5);
    /** How long a sender reuses a token before issuing the next. */
    static final Duration REISSUE_AFTER = Duration.ofMinutes(1);
    private static final String PURPOSE = "shardstore member token v1";
    private static final String VERSION = "1";

    private final ClusterKey key;
    private final Clock clock;
    private final AtomicReference<@Nullable Issued> issued = new AtomicReference<>();
    private final AtomicReference<@Nullable Issued> lastAccepted = new AtomicReference<>();

    /** One token and the second it was issued at. */
    private record Issued(long seconds, String text) {}

    /** @param clock the wall clock tokens are issued and checked on ({@link Clock#systemUTC} but in tests) */
    public MemberToken(ClusterKey key, Clock clock) {
        this.key = Objects.requireNonNull(key, "key");
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    /** The token to send now: the last one issued, or a new one once that is {@link #REISSUE_AFTER} old. */
    public String current() {
        long now = clock.instant().getEpochSecond();
        Issued last = issued.get();
        if (last != null && now - last.seconds() < REISSUE_AFTER.toSeconds() && now >= last.seconds()) {
            return last.text();
        }
        Issued next = new Issued(now, VERSION + "." + now + "." + Base64.getUrlEncoder().withoutPadding().encodeToString(mac(now)));
        issued.set(next);
        return next.text();
    }

    /**
     * Whether {@code token} proves membership now: well formed, issued within {@link #VALIDITY} of this clock, and its
     * HMAC is the key's (compared in constant time).
     *
     * @param token the header's value; null when the request has none
     */
    public boolean accepts(@Nullable String token) {
        if (token == null) {
            return false;
        }
        long now = clock.instant().getEpochSecond();
        Issued seen = lastAccepted.get();
        if (seen != null && seen.text().equals(token)) {
            return Math.abs(now - seen.seconds()) <= VALIDITY.toSeconds();
        }
        String[] parts = token.split("\\.", -1);
        if (parts.length != 3 || !parts[0].equals(VERSION)) {
            return false;
        }
        long seconds;
        byte[] proof;
        try {
            seconds = Long.parseLong(parts[1]);
            proof = Base64.getUrlDecoder().decode(parts[2].getBytes(StandardCharsets.US_ASCII));
        } catch (IllegalArgumentException e) {
            return false;
        }
        if (Math.abs(now - seconds) > VALIDITY.toSeconds() || !key.verifies(proof, PURPOSE, secondBytes(seconds))) {
            return false;
        }
        lastAccepted.set(new Issued(seconds, token));
        return true;
    }

    private byte[] mac(long seconds) {
        return key.mac(PURPOSE, secondBytes(seconds));
    }

    private static byte[] secondBytes(long seconds) {
        return ByteBuffer.allocate(Long.BYTES).putLong(seconds).array();
    }
}
