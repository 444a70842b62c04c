package dev.shardstore.shard.resharding;

import dev.shardstore.contracts.namespace.Namespace;
import dev.shardstore.shard.storage.OplogReader;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.bson.BsonTimestamp;
import org.springframework.stereotype.Component;

/**
 * This shard's donations to resharding operations (MongoDB's {@code ReshardingDonorService}), by resharding UUID. A
 * donation starts by fixing its {@code minFetchTimestamp}, the oplog's all-durable point (no entry at or below it can
 * still appear, so the recipients' oplog fetch from it misses nothing), and pinning the history after it so that
 * retention keeps every entry the recipients will fetch. Thread-safe.
 *
 * <p>The pins live in this process only: a restarted donor has lost them (persisting them is still to come, see
 * docs/architecture.md "Resharding").
 */
@Component
public class ReshardingDonors {
    private final OplogReader oplog;
    private final Map<UUID, Donation> donations = new ConcurrentHashMap<>();

    public ReshardingDonors(OplogReader oplog) {
        this.oplog = oplog;
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
     * coordinator repeats its call after a restart).
     *
     * @return the donation's {@code minFetchTimestamp}
     * @throws dev.shardstore.contracts.error.CommandException CappedPositionLost (136) when the oplog after the point is
     *                                                        already truncated (it never is: the point is the newest)
     */
    public BsonTimestamp start(UUID reshardingUuid, Namespace namespace) {
        return donations.computeIfAbsent(reshardingUuid, id -> {
            BsonTimestamp point = oplog.allDurable();
            return new Donation(namespace, point, oplog.pin(point));
        }).minFetchTimestamp();
    }

    /** Ends the donation to {@code reshardingUuid} (its abort or, later, its commit): the pin is released. Idempotent. */
    public void end(UUID reshardingUuid) {
        Donation ended = donations.remove(reshardingUuid);
        if (ended != null) {
            ended.pin().close();
        }
    }

    /** The running donations, for {@code currentOp} and tests. */
    public List<Donation> active() {
        return List.copyOf(donations.values());
    }
}
