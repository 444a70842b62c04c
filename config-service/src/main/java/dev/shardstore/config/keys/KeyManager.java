package dev.shardstore.config.keys;

import dev.shardstore.contracts.clock.HmacClusterTimeSigner;
import dev.shardstore.contracts.clock.LogicalClock;
import dev.shardstore.contracts.clock.SigningKey;
import java.security.SecureRandom;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.bson.BsonTimestamp;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Owns {@code admin.system.keys} (table {@code system_keys}; mongo/src/mongo/db/s/README.md "Key management"): makes keys ahead, so that
 * one is always valid for the next {@link KeysProperties#rotationInterval()} (whenever the newest key expires within
 * one interval, a key expiring one interval after it is added: two at the first start), never deletes one, and serves them from memory to the config
 * service's own signer ({@link #keys()}) and to {@code find} on {@code admin.system.keys}, where every other service reads them.
 *
 * <p>Key ids are cluster times (the clock ticks for each key, as MongoDB's do). Generation runs under a transaction
 * advisory lock, so two config processes on one catalog would not both add a key.
 */
@Component
public class KeyManager {
    private static final SecureRandom RANDOM = new SecureRandom();

    private final JdbcClient jdbc;
    private final TransactionTemplate tx;
    private final LogicalClock clock;
    private final KeysProperties properties;
    /** Every key, oldest first (by expiresAt). */
    private final AtomicReference<List<SigningKey>> keys = new AtomicReference<>(List.of());

    public KeyManager(JdbcClient jdbc, TransactionTemplate tx, LogicalClock clock, KeysProperties properties) {
        this.jdbc = jdbc;
        this.tx = tx;
        this.clock = clock;
        this.properties = properties;
        ensureKeys();
    }

    /** Makes the key that is due, if one is: when the newest key expires within one rotation interval of now. */
    @Scheduled(initialDelayString = "${shardstore.keys.check-interval:1m}", fixedDelayString = "${shardstore.keys.check-interval:1m}")
    public void ensureKeys() {
        tx.executeWithoutResult(status -> {
            jdbc.sql("SELECT pg_advisory_xact_lock(hashtext('admin.system.keys'))").query(Object.class).optional();
            List<SigningKey> stored = load();
            long now = Math.max(System.currentTimeMillis() / 1000, clock.clusterTime().getValue() >>> 32);
            long interval = properties.rotationInterval().toSeconds();
            long newestExpiry = stored.isEmpty() ? 0 : stored.getLast().expiresAt().getValue() >>> 32;
            // as MongoDB's key generator: a key for now and one for the next interval (two at the first start)
            while (newestExpiry <= now + interval) {
                newestExpiry = Math.max(newestExpiry, now) + interval;
                byte[] secret = new byte[SigningKey.LENGTH];
                RANDOM.nextBytes(secret);
                SigningKey key = new SigningKey(clock.tick(1).getValue(), secret, new BsonTimestamp((int) newestExpiry, 0));
                jdbc.sql("INSERT INTO system_keys (id, purpose, key, expires_at) VALUES (?, ?, ?, ?)")
                        .params(key.keyId(), SigningKey.PURPOSE, secret, key.expiresAt().getValue()).update();
            }
        });
        keys.set(load());
    }

    /** Every key, oldest first. */
    public List<SigningKey> all() {
        return keys.get();
    }

    /** The keys for the config service's own signer: always the ones in memory. */
    public HmacClusterTimeSigner.Keys keys() {
        return HmacClusterTimeSigner.Keys.over(this::all);
    }

    private List<SigningKey> load() {
        return jdbc.sql("SELECT id, key, expires_at FROM system_keys ORDER BY expires_at")
                .query((rs, row) -> new SigningKey(rs.getLong("id"), rs.getBytes("key"), new BsonTimestamp(rs.getLong("expires_at"))))
                .list();
    }
}
