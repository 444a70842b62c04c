package dev.shardstore.shard.resharding;

import dev.shardstore.contracts.namespace.Namespace;
import dev.shardstore.shard.storage.OplogReader;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.bson.BsonTimestamp;
import org.bson.BsonString;
import org.bson.BsonDocument;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;

/**
 * This shard's donations to resharding operations (MongoDB's {@code ReshardingDonorService}), by resharding UUID. A
 * donation starts by fixing its {@code minFetchTimestamp}, the oplog's all-durable point (no entry at or below it can
 * still appear, so the recipients' oplog fetch from it misses nothing), and pinning the history after it so that
 * retention keeps every entry the recipients will fetch. The donation is persisted (table {@code resharding_donors})
 * before it is reported, and a restarted shard pins again from every persisted one once its beans are ready, before
 * the oplog retention's first run (a minute after the start). Thread-safe.
 */
@Component
public class ReshardingDonors implements SmartInitializingSingleton {
    private static final Logger log = LoggerFactory.getLogger(ReshardingDonors.class);

    private final OplogReader oplog;
    private final JdbcClient jdbc;
    private final Map<UUID, Donation> donations = new ConcurrentHashMap<>();

    public ReshardingDonors(OplogReader oplog, JdbcClient jdbc) {
        this.oplog = oplog;
        this.jdbc = jdbc;
    }

    /**
     * One donation.
     *
     * @param namespace       the collection donated
     * @param minFetchTimestamp the time after which the recipients fetch this shard's oplog entries of it
     */
    public record Donation(Namespace namespace, BsonTimestamp minFetchTimestamp, OplogReader.Pin pin) {}

    /**
     * Starts donating {@code namespace} to operation {@code reshardingUuid}, or answers as the first call did (the
     * coordinator repeats its call after a restart, of either side).
     *
     * @return the donation's {@code minFetchTimestamp}
     * @throws dev.shardstore.contracts.error.CommandException CappedPositionLost (136) when the oplog after the point is
     *                                                        already truncated (it never is: the point is the newest)
     */
    public BsonTimestamp start(UUID reshardingUuid, Namespace namespace) {
        return donations.computeIfAbsent(reshardingUuid, id -> {
            BsonTimestamp point = oplog.allDurable();
            Donation donation = new Donation(namespace, point, oplog.pin(point));
            jdbc.sql("INSERT INTO resharding_donors (resharding_uuid, namespace, min_fetch_timestamp) VALUES (?, ?, ?)")
                    .params(id, namespace.full(), point.getValue()).update();
            return donation;
        }).minFetchTimestamp();
    }

    /** Ends the donation to {@code reshardingUuid} (its abort or, later, its commit): unpersisted, its pin released. Idempotent. */
    public void end(UUID reshardingUuid) {
        jdbc.sql("DELETE FROM resharding_donors WHERE resharding_uuid = ?").param(reshardingUuid).update();
        Donation ended = donations.remove(reshardingUuid);
        if (ended != null) {
            ended.pin().close();
        }
    }

    /** The running donations, for {@code currentOp} and tests. */
    public List<Donation> active() {
        return List.copyOf(donations.values());
    }

    /**
     * The running donations as {@code $currentOp} lists them, MongoDB's shape for a resharding donor:
     * {@code {type: "op", desc: "ReshardingDonorService <uuid>", op: "command", ns, donorState: "donating", minFetchTimestamp}}.
     */
    public List<BsonDocument> describe() {
        return donations.entrySet().stream().map(e -> new BsonDocument("type", new BsonString("op"))
                .append("desc", new BsonString("ReshardingDonorService " + e.getKey()))
                .append("op", new BsonString("command"))
                .append("ns", new BsonString(e.getValue().namespace().full()))
                .append("donorState", new BsonString("donating"))
                .append("minFetchTimestamp", e.getValue().minFetchTimestamp())).toList();
    }

    /** Pins the oplog again for every persisted donation this process does not hold (after a restart: all of them). */
    @Override
    public void afterSingletonsInstantiated() {
        List<Persisted> persisted = jdbc.sql("SELECT resharding_uuid, namespace, min_fetch_timestamp FROM resharding_donors")
                .query((rs, n) -> new Persisted(rs.getObject("resharding_uuid", UUID.class), Namespace.parse(rs.getString("namespace")),
                        new BsonTimestamp(rs.getLong("min_fetch_timestamp"))))
                .list();
        for (Persisted donation : persisted) {
            donations.computeIfAbsent(donation.id(), id -> {
                log.info("resharding donation {} of {}: the oplog is pinned again after {}", id, donation.namespace(), donation.minFetchTimestamp());
                return new Donation(donation.namespace(), donation.minFetchTimestamp(), oplog.pin(donation.minFetchTimestamp()));
            });
        }
    }

    /** A row of {@code resharding_donors}. */
    private record Persisted(UUID id, Namespace namespace, BsonTimestamp minFetchTimestamp) {}
}
