package dev.shardstore.router.sharding;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shardstore.contracts.bson.ExtendedJson;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.http.InternalApi;
import dev.shardstore.router.command.ClientCommands;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

/**
 * The router's client front ends refuse the cluster's internal commands with Unauthorized (13), whoever asks (MongoDB
 * gives their actions to {@code __system} alone): every internal command the shards, the config service and the session
 * service register, and MongoDB's own, by REST and the wire protocol's path, also wrapped in {@code explain}. Nothing
 * reaches a shard or the config service, and the router keeps serving.
 */
class InternalCommandsFromClientsTest extends RouterAgainstFakeCluster {
    /** The internal commands the repository's handlers register (shard, config, session services), and MongoDB's. */
    private static final List<String> INTERNAL = List.of("_shardsvrMoveRange", "_shardsvrName", "_shardsvrCloneCatalogData",
            "_shardsvrRefreshCollection", "_shardsvrParticipantBlock", "_recvChunkStart", "_recvChunkStatus", "_recvChunkCommit",
            "_migrateClone", "_transferMods", "_getNextSessionMods", "_configsvrSetSettings", "_configsvrMoveRange",
            "_configsvrCommitChunkMigration", "_configsvrGetRoutingTable", "_sessionsRefresh", "_sessionsList",
            "_flushRoutingTableCacheUpdates", "_authenticateMember");

    @Autowired
    private ClientCommands commands;

    @Test
    void everyInternalCommandIsUnauthorizedOnRestAndTheWireProtocolAndReachesNoPeer() throws Exception {
        CLUSTER.forgetRequests();
        for (String name : INTERNAL) {
            assertThat(InternalApi.isInternalCommand(name)).as(name).isTrue();
            command("admin", "{\"" + name + "\": \"db.c\"}").assertError(403, ErrorCode.Unauthorized.code(), name, "members of the cluster");
            command("admin", "{\"explain\": {\"" + name + "\": \"db.c\"}}").assertError(403, ErrorCode.Unauthorized.code(), name);
            assertThatThrownBy(() -> commands.run(ClientCommands.Transport.WIRE, "admin", ExtendedJson.parse("{\"" + name + "\": \"db.c\"}")))
                    .isInstanceOfSatisfying(CommandException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.Unauthorized));
        }
        assertThat(CLUSTER.sh1.received).isEmpty();
        assertThat(CLUSTER.sh2.received).isEmpty();
        assertThat(CLUSTER.config.received.stream().filter(r -> INTERNAL.contains(r.name()))).isEmpty();

        command("icfc", "{\"insert\": \"c\", \"documents\": [{\"_id\": 1}]}").assertOk();
    }

    @Test
    void commandsThatOnlyLookInternalStillRun() throws Exception {
        assertThat(InternalApi.isInternalCommand("insert")).isFalse();
        assertThat(InternalApi.isInternalCommand("_id")).isFalse();
        // an option with a leading underscore is no command: moveChunk's _waitForDelete
        command("admin", "{\"noSuchCommand\": 1, \"_waitForDelete\": true}").assertError(404, ErrorCode.CommandNotFound.code(), "noSuchCommand");
    }
}
