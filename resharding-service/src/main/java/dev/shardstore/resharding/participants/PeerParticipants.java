package dev.shardstore.resharding.participants;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.resharding.coordinator.ReshardingOperation;
import dev.shardstore.resharding.coordinator.ReshardingParticipants;
import dev.shardstore.support.ServiceSupportProperties;
import dev.shardstore.transport.http.CommandClient;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
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
 * The participants reached over the services' internal commands ({@link CommandClient}). The config service's part is
 * in place: {@code _configsvrReshardingRegister} (the collection is held for the operation: other DDL and chunk commits
 * are ConflictingOperationInProgress, migrations stop; the donors and recipients are fixed) and
 * {@code _configsvrReshardingUnregister}; so is the donors' start ({@code _shardsvrReshardingDonorStart}: each fixes
 * its {@code minFetchTimestamp} and pins its oplog after it; {@code _shardsvrReshardingDonorAbort} releases it). The
 * recipients' clone and apply, the write block with its verification and the commit on the shards are not built yet:
 * those steps fail with NotImplemented (238), so an operation aborts at cloning and leaves the collection as it was.
 */
@Component
public class PeerParticipants implements ReshardingParticipants {
    private static final String CONFIG = "config";

    private final CommandClient client;
    private final String configUrl;

    public PeerParticipants(CommandClient client, ServiceSupportProperties support) {
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

    @Override
    public void clone(ReshardingOperation operation, AbortCheck abort) {
        throw shardSideMissing(operation);
    }

    @Override
    public void catchUp(ReshardingOperation operation, AbortCheck abort) {
        throw shardSideMissing(operation);
    }

    @Override
    public void blockWritesAndVerify(ReshardingOperation operation, AbortCheck abort) {
        throw shardSideMissing(operation);
    }

    @Override
    public void commit(ReshardingOperation operation) {
        throw shardSideMissing(operation);
    }

    /**
     * {@code _shardsvrReshardingDonorAbort} on each donor (their oplog pins released), then
     * {@code _configsvrReshardingUnregister} (the collection released).
     */
    @Override
    public void abort(ReshardingOperation operation) {
        if (!operation.donorShards().isEmpty()) {
            Map<String, String> hosts = shardHosts();
            for (String donor : operation.donorShards()) {
                client.runChecked(donor, host(hosts, donor), "admin", operationCommand("_shardsvrReshardingDonorAbort", operation));
            }
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

    private static CommandException shardSideMissing(ReshardingOperation operation) {
        return new CommandException(ErrorCode.NotImplemented, "resharding " + operation.namespace().full() + " needs the recipients' clone "
                + "and oplog apply, the write block and the commit on the shards, which this version does not have yet "
                + "(docs/architecture.md \"Resharding\")");
    }

    private static List<String> names(BsonArray shards) {
        return shards.stream().map(s -> s.asString().getValue()).toList();
    }
}
