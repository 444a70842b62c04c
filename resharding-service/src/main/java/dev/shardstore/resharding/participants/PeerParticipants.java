package dev.shardstore.resharding.participants;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.namespace.Namespace;
import dev.shardstore.resharding.coordinator.ReshardedChunk;
import dev.shardstore.resharding.coordinator.ReshardingOperation;
import dev.shardstore.resharding.coordinator.ReshardingParticipants;
import dev.shardstore.support.ServiceSupportProperties;
import dev.shardstore.support.parameter.ServerParameters;
import dev.shardstore.transport.http.CommandClient;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import org.bson.BsonArray;
import org.bson.BsonBinary;
import org.bson.BsonBoolean;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.bson.BsonTimestamp;
import org.bson.BsonValue;
import org.bson.UuidRepresentation;
import org.springframework.stereotype.Component;

/**
 * The participants reached over the services' internal commands ({@link CommandClient}): the config service
 * ({@code _configsvrReshardingRegister}, {@code _configsvrReshardingCommit}, {@code _configsvrReshardingUnregister}) and
 * the shards' resharding commands (shard package {@code resharding}): the donors' start, sample and write block, the
 * recipients' clone and oplog apply (driven step by step from here, so an abort stops them between two steps), the
 * verification's digests on both sides, and the commit's rename and drops. Every call is idempotent.
 */
@Component
public class PeerParticipants implements ReshardingParticipants {
    private static final String CONFIG = "config";

    private final CommandClient client;
    private final String configUrl;
    private final ServerParameters parameters;

    public PeerParticipants(CommandClient client, ServiceSupportProperties support, ServerParameters parameters) {
        this.parameters = parameters;
        this.client = client;
        this.configUrl = support.configUrl();
    }

    /** {@code _configsvrReshardingRegister} → {@code {noChange, donorShards: [..], recipientShards: [..]}}. */
    @Override
    public Participants initialize(ReshardingOperation operation) {
        BsonDocument reply = client.runChecked(CONFIG, configUrl, "admin", operationCommand("_configsvrReshardingRegister", operation)
                .append("key", operation.request().key())
                .append("numInitialChunks", new BsonInt32(operation.request().numInitialChunks()))
                .append("forceRedistribution", BsonBoolean.valueOf(operation.request().forceRedistribution())));
        return reply.getBoolean("noChange").getValue() ? Participants.NO_CHANGE
                : Participants.of(names(reply.getArray("donorShards")), names(reply.getArray("recipientShards")));
    }

    /** {@code _shardsvrReshardingSampleKeys} on each donor → {@code {keys: [..]}}, all donors' keys together. */
    @Override
    public List<BsonDocument> sampleNewKey(ReshardingOperation operation, int perDonor) {
        Map<String, String> hosts = shardHosts();
        List<BsonDocument> keys = new ArrayList<>();
        for (String donor : operation.donorShards()) {
            BsonDocument reply = client.runChecked(donor, host(hosts, donor), "admin", operationCommand("_shardsvrReshardingSampleKeys", operation)
                    .append("key", operation.request().key()).append("size", new BsonInt32(perDonor)));
            reply.getArray("keys").forEach(k -> keys.add(k.asDocument()));
        }
        return keys;
    }

    /** {@code _shardsvrReshardingDonorStart} on each donor → the highest {@code minFetchTimestamp}. */
    @Override
    public BsonTimestamp prepareToDonate(ReshardingOperation operation, AbortCheck abort) {
        Map<String, String> hosts = shardHosts();
        BsonTimestamp highest = new BsonTimestamp(0L);
        for (String donor : operation.donorShards()) {
            abort.check();
            BsonTimestamp fetchFrom = client.runChecked(donor, host(hosts, donor), "admin", operationCommand("_shardsvrReshardingDonorStart", operation))
                    .getTimestamp("minFetchTimestamp");
            highest = Long.compareUnsigned(fetchFrom.getValue(), highest.getValue()) > 0 ? fetchFrom : highest;
        }
        return highest;
    }

    /**
     * Calls {@code _shardsvrReshardingRecipientClone} on every recipient, round after round, until each reports its
     * clone from every donor done.
     */
    @Override
    public void clone(ReshardingOperation operation, AbortCheck abort) {
        untilDone(operation, "_shardsvrReshardingRecipientClone", abort);
    }

    /** Calls {@code _shardsvrReshardingRecipientApply} on every recipient until each has fetched every donor's oplog up to now. */
    @Override
    public void catchUp(ReshardingOperation operation, AbortCheck abort) {
        untilDone(operation, "_shardsvrReshardingRecipientApply", abort);
    }

    /**
     * Blocks writes on the donors ({@code _shardsvrParticipantBlock} with {@code blockType: "Writes"}: the writes in flight
     * end first), applies until a round finds no entry left (within {@code reshardingCriticalSectionTimeoutMillis} of the
     * block, else ReshardingCriticalSectionTimeout, 342, which aborts the operation), then verifies: per new chunk, the donors' count and hash of
     * the documents they own whose new key falls in it ({@code _shardsvrReshardingDigest} with {@code ownedOnly}) against
     * its recipient's over the temporary collection.
     *
     * @throws CommandException ReshardCollectionAborted (341) naming the first chunk whose count or hash differs;
     *                          ReshardingCriticalSectionTimeout (342) when the recipients did not catch up in time
     */
    @Override
    public void blockWritesAndVerify(ReshardingOperation operation, AbortCheck abort) {
        Map<String, String> hosts = shardHosts();
        for (String donor : operation.donorShards()) {
            client.runChecked(donor, host(hosts, donor), operation.namespace().db(), block(operation, "Writes"));
        }
        long blockedAt = System.nanoTime();
        long limitMillis = parameters.longValue(ServerParameters.RESHARDING_CRITICAL_SECTION_TIMEOUT);
        AbortCheck withinTheBlock = () -> {
            abort.check();
            long blockedMillis = (System.nanoTime() - blockedAt) / 1_000_000;
            if (blockedMillis > limitMillis) {
                throw new CommandException(ErrorCode.ReshardingCriticalSectionTimeout, "the recipients of the resharding of "
                        + operation.namespace().full() + " had not caught up " + blockedMillis + " ms after writes were blocked"
                        + " (reshardingCriticalSectionTimeoutMillis: " + limitMillis + ")");
            }
        };
        while (untilDone(operation, "_shardsvrReshardingRecipientApply", withinTheBlock) > 0) {
            withinTheBlock.check(); // entries written before the block arrived in the last round: one more, until none comes
        }
        withinTheBlock.check();
        BsonArray bounds = chunkBounds(operation.newChunks());
        long[][] donors = new long[operation.newChunks().size()][2];
        for (String donor : operation.donorShards()) {
            add(donors, client.runChecked(donor, host(hosts, donor), "admin", digest(operation, operation.namespace(), bounds)
                    .append("ownedOnly", BsonBoolean.TRUE)));
        }
        Map<String, long[][]> recipients = new HashMap<>();
        for (String recipient : operation.recipientShards()) {
            long[][] digests = new long[operation.newChunks().size()][2];
            add(digests, client.runChecked(recipient, host(hosts, recipient), "admin", digest(operation, operation.temporaryNamespace(), bounds)));
            recipients.put(recipient, digests);
        }
        for (int i = 0; i < operation.newChunks().size(); i++) {
            ReshardedChunk chunk = operation.newChunks().get(i);
            long[] expected = donors[i];
            long[] found = Objects.requireNonNull(recipients.get(chunk.recipient()), "every chunk's recipient is a recipient")[i];
            if (expected[0] != found[0] || expected[1] != found[1]) {
                throw new CommandException(ErrorCode.ReshardCollectionAborted, "verification of the resharding of " + operation.namespace().full()
                        + " failed for the new chunk " + chunk.range() + " on " + chunk.recipient() + ": the donors hold " + expected[0]
                        + " documents (hash " + Long.toHexString(expected[1]) + "), the recipient " + found[0] + " (hash "
                        + Long.toHexString(found[1]) + ")");
            }
        }
    }

    /**
     * The decided commit, each step idempotent: reads blocked too on every participant (as MongoDB's commit does: no
     * read sees the new routing before the data is in place), {@code _configsvrReshardingCommit} (uuid, epoch, key and
     * chunks swapped in one catalog transaction), each recipient's rename of the temporary collection, each donor's drop
     * of the old one (a donor that is also a recipient had it replaced by the rename) and the end of its donation, the
     * blocks released (the shards reload the routing), then {@code _configsvrReshardingUnregister}.
     */
    @Override
    public void commit(ReshardingOperation operation) {
        Map<String, String> hosts = shardHosts();
        for (String shard : participantShards(operation)) {
            client.runChecked(shard, host(hosts, shard), operation.namespace().db(), block(operation, "ReadsAndWrites"));
        }
        client.runChecked(CONFIG, configUrl, "admin", operationCommand("_configsvrReshardingCommit", operation)
                .append("key", operation.request().key()).append("newChunks", new BsonArray(operation.newChunks().stream()
                        .map(c -> (BsonValue) c.toBson()).toList())));
        for (String recipient : operation.recipientShards()) {
            client.runChecked(recipient, host(hosts, recipient), "admin", operationCommand("_shardsvrReshardingRecipientCommit", operation));
        }
        for (String donor : operation.donorShards()) {
            client.runChecked(donor, host(hosts, donor), "admin", operationCommand("_shardsvrReshardingDonorCommit", operation)
                    .append("dropCollection", BsonBoolean.valueOf(!operation.recipientShards().contains(donor))));
        }
        unblock(operation, hosts);
        client.runChecked(CONFIG, configUrl, "admin", operationCommand("_configsvrReshardingUnregister", operation));
    }

    /**
     * {@code _shardsvrReshardingRecipientAbort} on each recipient (the temporary collection dropped),
     * {@code _shardsvrReshardingDonorAbort} on each donor (their oplog pins released) and the write block released
     * (where it was entered), then {@code _configsvrReshardingUnregister} (the collection released).
     */
    @Override
    public void abort(ReshardingOperation operation) {
        if (!operation.donorShards().isEmpty()) {
            Map<String, String> hosts = shardHosts();
            for (String recipient : operation.recipientShards()) {
                client.runChecked(recipient, host(hosts, recipient), "admin", operationCommand("_shardsvrReshardingRecipientAbort", operation));
            }
            for (String donor : operation.donorShards()) {
                client.runChecked(donor, host(hosts, donor), "admin", operationCommand("_shardsvrReshardingDonorAbort", operation));
            }
            unblock(operation, hosts);
        }
        client.runChecked(CONFIG, configUrl, "admin", operationCommand("_configsvrReshardingUnregister", operation));
    }

    /** The shards' URLs by name, from the config service's {@code listShards}. */
    private Map<String, String> shardHosts() {
        Map<String, String> hosts = new HashMap<>();
        for (BsonValue shard : client.runChecked(CONFIG, configUrl, "admin", new BsonDocument("listShards", new BsonInt32(1))).getArray("shards")) {
            hosts.put(shard.asDocument().getString("_id").getValue(), shard.asDocument().getString("host").getValue());
        }
        return hosts;
    }

    private static String host(Map<String, String> hosts, String shard) {
        String host = hosts.get(shard);
        if (host == null) {
            throw new CommandException(ErrorCode.ShardNotFound, "participant shard " + shard + " is not in listShards any more");
        }
        return host;
    }

    /** {@code {<name>: "db.coll", reshardingUUID}}: how every participant command names the operation. */
    private static BsonDocument operationCommand(String name, ReshardingOperation operation) {
        return new BsonDocument(name, new BsonString(operation.namespace().full()))
                .append("reshardingUUID", new BsonBinary(operation.id(), UuidRepresentation.STANDARD));
    }

    /**
     * Calls the recipient step {@code command} on every recipient not done yet, round after round, until all report done.
     *
     * @return how many documents or entries the steps took in all
     */
    private long untilDone(ReshardingOperation operation, String command, AbortCheck abort) {
        Map<String, String> hosts = shardHosts();
        Map<String, BsonDocument> pending = new LinkedHashMap<>();
        BsonTimestamp cloneTimestamp = Objects.requireNonNull(operation.cloneTimestamp(), "cloneTimestamp is fixed before cloning");
        for (String recipient : operation.recipientShards()) {
            List<ReshardedChunk> mine = operation.newChunks().stream().filter(c -> c.recipient().equals(recipient)).toList();
            pending.put(recipient, operationCommand(command, operation).append("key", operation.request().key())
                    .append("cloneTimestamp", cloneTimestamp).append("ranges", chunkBounds(mine))
                    .append("donorShards", new BsonArray(operation.donorShards().stream().map(d -> (BsonValue) new BsonString(d)).toList())));
        }
        long count = 0;
        while (!pending.isEmpty()) {
            abort.check();
            for (var it = pending.entrySet().iterator(); it.hasNext(); ) {
                Map.Entry<String, BsonDocument> recipient = it.next();
                BsonDocument reply = client.runChecked(recipient.getKey(), host(hosts, recipient.getKey()), "admin", recipient.getValue());
                count += reply.getInt64("count").getValue();
                if (reply.getBoolean("done").getValue()) {
                    it.remove();
                }
            }
        }
        return count;
    }

    /** The donors and the recipients, each once. */
    private static Set<String> participantShards(ReshardingOperation operation) {
        Set<String> shards = new TreeSet<>(operation.donorShards());
        shards.addAll(operation.recipientShards());
        return shards;
    }

    /** Releases this operation's block on every participant (nothing where none is held). */
    private void unblock(ReshardingOperation operation, Map<String, String> hosts) {
        for (String shard : participantShards(operation)) {
            client.runChecked(shard, host(hosts, shard), operation.namespace().db(), block(operation, "Unblock"));
        }
    }

    /** {@code _shardsvrParticipantBlock: <coll>} with {@code blockType} for this operation's reason. */
    private static BsonDocument block(ReshardingOperation operation, String blockType) {
        return new BsonDocument("_shardsvrParticipantBlock", new BsonString(operation.namespace().collection()))
                .append("blockType", new BsonString(blockType))
                .append("reason", new BsonDocument("command", new BsonString("reshardCollection"))
                        .append("reshardingUUID", new BsonBinary(operation.id(), UuidRepresentation.STANDARD)));
    }

    private static BsonDocument digest(ReshardingOperation operation, Namespace namespace, BsonArray bounds) {
        return new BsonDocument("_shardsvrReshardingDigest", new BsonString(namespace.full()))
                .append("reshardingUUID", new BsonBinary(operation.id(), UuidRepresentation.STANDARD))
                .append("key", operation.request().key()).append("ranges", bounds);
    }

    /** Adds a digest reply's {@code [count, hash]} per chunk to {@code sums} (the hash wraps: order does not matter). */
    private static void add(long[][] sums, BsonDocument reply) {
        BsonArray digests = reply.getArray("digests");
        for (int i = 0; i < sums.length; i++) {
            sums[i][0] += digests.get(i).asDocument().getInt64("count").getValue();
            sums[i][1] += digests.get(i).asDocument().getInt64("hash").getValue();
        }
    }

    private static BsonArray chunkBounds(List<ReshardedChunk> chunks) {
        return new BsonArray(chunks.stream().map(c -> (BsonValue) c.range().toBson()).toList());
    }

    private static List<String> names(BsonArray shards) {
        return shards.stream().map(s -> s.asString().getValue()).toList();
    }
}
