package dev.shardstore.support.clock;

import dev.shardstore.contracts.clock.HmacClusterTimeSigner;
import dev.shardstore.contracts.clock.SigningKey;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.transport.http.CommandClient;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.bson.BsonTimestamp;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A service's in-memory cache of the config service's {@code admin.system.keys} (mongo/src/mongo/db/s/README.md "Key management": "each
 * node also keeps the in memory cache of the valid keys"), read with {@code find} on the config service.
 *
 * <p>Signing never waits for the config service (it signs every internal request, including the one that fetches
 * keys): when no cached key is valid for a time, a refresh starts in the background and the dummy signature is used
 * meanwhile. Checking a signature with an unknown key id refreshes at once. Either kind starts at most once per
 * {@code minRefreshInterval}: clients sending made-up key ids cannot flood the config service, and while it is down a
 * service that keeps signing tries again once per interval (logging each failure) rather than once per request.
 * Thread-safe.
 */
public final class SigningKeyCache implements HmacClusterTimeSigner.Keys {
    private static final Logger log = LoggerFactory.getLogger(SigningKeyCache.class);

    private final Supplier<CommandClient> client;
    private final String configUrl;
    private final long minRefreshNanos;
    private final AtomicReference<List<SigningKey>> keys = new AtomicReference<>(List.of());
    private final AtomicBoolean refreshing = new AtomicBoolean();
    private volatile long lastRefreshNanos = System.nanoTime() - Long.MAX_VALUE / 2;

    /**
     * @param client             the peer client (supplied late: it signs with this cache)
     * @param configUrl          the config service's base URL
     * @param minRefreshInterval the least time between two refreshes that a missing key starts
     */
    public SigningKeyCache(Supplier<CommandClient> client, String configUrl, Duration minRefreshInterval) {
        this.client = client;
        this.configUrl = configUrl;
        this.minRefreshNanos = minRefreshInterval.toNanos();
    }

    @Override
    public @Nullable SigningKey forSigning(BsonTimestamp time) {
        SigningKey key = SigningKey.signing(keys.get(), time);
        if (key == null && refreshDue() && refreshing.compareAndSet(false, true)) {
            Thread.ofVirtual().name("signing-key-refresh").start(() -> {
                try {
                    refresh();
                } finally {
                    refreshing.set(false);
                }
            });
        }
        return key;
    }

    @Override
    public @Nullable SigningKey byId(long keyId) {
        SigningKey key = SigningKey.withId(keys.get(), keyId);
        if (key == null && refreshDue()) {
            refresh();
            key = SigningKey.withId(keys.get(), keyId);
        }
        return key;
    }

    private boolean refreshDue() {
        return System.nanoTime() - lastRefreshNanos >= minRefreshNanos;
    }

    /** Reads every key from the config service; a failure keeps the cached keys (and is logged). */
    public void refresh() {
        lastRefreshNanos = System.nanoTime();
        try {
            BsonDocument reply = client.get().runChecked("config", configUrl, "admin", new BsonDocument("find", new BsonString("system.keys"))
                    .append("filter", new BsonDocument("purpose", new BsonString(SigningKey.PURPOSE))).append("batchSize", new BsonInt32(10_000)));
            keys.set(reply.getDocument("cursor").getArray("firstBatch").stream().map(BsonValue::asDocument).map(SigningKey::fromBson)
                    .sorted(Comparator.comparing(key -> key.expiresAt().getValue(), Long::compareUnsigned)).toList());
        } catch (CommandException | IllegalArgumentException e) {
            log.warn("cannot read the cluster time signing keys from the config service at {}: {}", configUrl, e.getMessage());
        }
    }
}
