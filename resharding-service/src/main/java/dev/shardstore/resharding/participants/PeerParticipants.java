package dev.shardstore.resharding.participants;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.resharding.coordinator.ReshardingOperation;
import dev.shardstore.resharding.coordinator.ReshardingParticipants;
import dev.shardstore.support.ServiceSupportProperties;
import dev.shardstore.transport.http.CommandClient;
import java.util.List;
import org.bson.BsonArray;
import org.bson.BsonBinary;
import org.bson.BsonBoolean;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.bson.BsonTimestamp;
import org.bson.UuidRepresentation;
import org.springframework.stereotype.Component;

/**
 * The participants reached over the services' internal commands ({@link CommandClient}). The config service's part is
 * in place: {@code _configsvrReshardingRegister} (the collection is held for the operation: other DDL and chunk commits
 * are ConflictingOperationInProgress, migrations stop; the donors and recipients are fixed) and
 * {@code _configsvrReshardingUnregister}. The shards' donor and recipient state machines are not built yet: the steps
 * from preparing-to-donate on fail with NotImplemented (238), so an operation aborts there and leaves the collection as
 * it was.
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
        BsonDocument reply = client.runChecked(CONFIG, configUrl, "admin", new BsonDocument("_configsvrReshardingRegister",
                new BsonString(operation.namespace().full()))
                .append("reshardingUUID", new BsonBinary(operation.id(), UuidRepresentation.STANDARD))
                .append("key", operation.request().key())
                .append("numInitialChunks", new BsonInt32(operation.request().numInitialChunks()))
                .append("forceRedistribution", BsonBoolean.valueOf(operation.request().forceRedistribution())));
        return reply.getBoolean("noChange").getValue() ? Participants.NO_CHANGE
                : Participants.of(names(reply.getArray("donorShards")), names(reply.getArray("recipientShards")));
    }

    @Override
    public BsonTimestamp prepareToDonate(ReshardingOperation operation, AbortCheck abort) {
        throw shardSideMissing(operation);
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

    /** {@code _configsvrReshardingUnregister}: the collection is released (no shard holds any of the operation's state yet). */
    @Override
    public void abort(ReshardingOperation operation) {
        client.runChecked(CONFIG, configUrl, "admin", new BsonDocument("_configsvrReshardingUnregister", new BsonString(operation.namespace().full()))
                .append("reshardingUUID", new BsonBinary(operation.id(), UuidRepresentation.STANDARD)));
    }

    private static CommandException shardSideMissing(ReshardingOperation operation) {
        return new CommandException(ErrorCode.NotImplemented, "resharding " + operation.namespace().full() + " needs the shards' donor and "
                + "recipient state machines, which this version does not have yet (docs/architecture.md \"Resharding\")");
    }

    private static List<String> names(BsonArray shards) {
        return shards.stream().map(s -> s.asString().getValue()).toList();
    }
}
